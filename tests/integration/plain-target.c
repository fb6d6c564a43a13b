/* plain-target.c: a program that knows nothing of pmapi (it is not linked with libpmapi), for the
 * variant of scenario S2 where the debugger's target never called pm_*: touches N fresh pages,
 * stops at plain_breakpoint(), touches M, stops there again, exits 0.
 *
 *   plain-target N M */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((noinline)) void plain_breakpoint(void) {
        __asm__ volatile("" ::: "memory");
}

static int touch(long n) {
        long page = sysconf(_SC_PAGESIZE);
        volatile char *p;

        if (n <= 0)
                return 0;
        p = mmap(NULL, (size_t) (n * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
                return -1;
        (void) madvise((void *) p, (size_t) (n * page), MADV_NOHUGEPAGE);      /* one fault per page */
        for (long i = 0; i < n; i++)
                p[i * page] = 1;
        return munmap((void *) p, (size_t) (n * page));
}

int main(int argc, char *argv[]) {
        if (argc != 3)
                return 2;
        if (touch(1) < 0)               /* code paths warm: the counted touches are exact */
                return 1;
        if (touch(atol(argv[1])) < 0)
                return 1;
        plain_breakpoint();
        if (touch(atol(argv[2])) < 0)
                return 1;
        plain_breakpoint();
        return 0;
}
