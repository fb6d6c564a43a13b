/* plain-target.c: a program that knows nothing of pmapi (it is not linked with libpmapi), for the
 * variant of scenario S2 where the debugger's target never called pm_*: touches N fresh pages,
 * stops at plain_breakpoint(), touches M, stops there again, exits 0.
 *
 *   plain-target N M */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fresh-pages.h"

__attribute__((noinline)) void plain_breakpoint(void) {
        __asm__ volatile("" ::: "memory");
}

static int touch(long n) {
        return n <= 0 ? 0 : fresh_pages_touch((size_t) n);
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
