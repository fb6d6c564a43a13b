/* spawn-worker.c: touches N fresh pages and exits, linked statically and calling nothing but the
 * kernel: an exec'd worker of test-creation-paths.c whose faults are its pages, the exec's and its
 * own start's only. With a second argument "fork", a child it forks and waits for touches N more. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static int touch(size_t n) {
        size_t page = (size_t) sysconf(_SC_PAGESIZE);
        char *p = n ? mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : NULL;

        if (n && p == MAP_FAILED)
                return 1;
        if (n)
                (void) madvise(p, n * page, MADV_NOHUGEPAGE);
        for (size_t i = 0; i < n; i++)
                p[i * page] = 1;
        return 0;
}

int main(int argc, char *argv[]) {
        size_t n = argc >= 2 ? (size_t) atol(argv[1]) : 0;
        int status;
        pid_t child;

        if (argc == 3 && strcmp(argv[2], "fork") == 0) {
                child = fork();
                if (child == 0)
                        _exit(touch(n));
                if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
                    WEXITSTATUS(status) != 0)
                        return 1;
        }
        return touch(n);
}
