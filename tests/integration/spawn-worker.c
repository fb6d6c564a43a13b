/* spawn-worker.c: touches N fresh pages and exits, linked statically and calling nothing but the
 * kernel: an exec'd worker of test-creation-paths.c whose faults are its pages, the exec's and its
 * own start's only. With a second argument "fork", a child it forks and waits for touches N more.
 * "loop N" instead runs pmu-workload.h's known loop of 2N user-mode instructions
 * (test-hardware-carried.c). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fresh-pages.h"
#include "pmu-workload.h"

static int touch(size_t n) {
        return fresh_pages_touch(n) < 0 ? 1 : 0;
}

int main(int argc, char *argv[]) {
        size_t n = argc >= 2 ? (size_t) atol(argv[1]) : 0;
        int status;
        pid_t child;

        if (argc == 3 && strcmp(argv[1], "loop") == 0) {
                known_loop((uint64_t) atoll(argv[2]));
                return 0;
        }
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
