/* spawn-worker.c: touches N fresh pages and exits, linked statically and calling nothing but the
 * kernel: an exec'd worker of test-creation-paths.c whose faults are its pages, the exec's and its
 * own start's only. */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char *argv[]) {
        size_t n = argc == 2 ? (size_t) atol(argv[1]) : 0, page = (size_t) sysconf(_SC_PAGESIZE);
        char *p = n ? mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : NULL;

        if (n && p == MAP_FAILED)
                return 1;
        if (n)
                (void) madvise(p, n * page, MADV_NOHUGEPAGE);
        for (size_t i = 0; i < n; i++)
                p[i * page] = 1;
        return 0;
}
