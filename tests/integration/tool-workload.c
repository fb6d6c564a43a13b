/* tool-workload.c: workloads for the tools' tests (test-tools.c), not linked with libpmapi.
 *
 *   tool-workload names NAME...    one thread per NAME, named NAME (prctl: the kernel keeps 15
 *                                  bytes, whatever they are), each touching 10 fresh pages
 *   tool-workload paced            per line on stdin, N: the main thread touches N fresh pages,
 *                                  tN: a new thread does; then "done" on stdout; exits at the
 *                                  end of stdin
 *   tool-workload steps N K MS     K steps of N fresh pages, MS milliseconds apart */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "workload.h"

static void *named_thread(void *name) {
        (void) prctl(PR_SET_NAME, (unsigned long) name, 0, 0, 0);
        return touch_fresh_pages(10) == 0 ? NULL : (void *) 1;
}

static void *paced_thread(void *pages) {
        return touch_fresh_pages((size_t) (long) pages) == 0 ? NULL : (void *) 1;
}

static int run_thread(void *(*fn)(void *), void *arg) {
        pthread_t t;
        void *ret;

        if (pthread_create(&t, NULL, fn, arg) != 0 || pthread_join(t, &ret) != 0)
                return 1;
        return ret ? 1 : 0;
}

int main(int argc, char *argv[]) {
        char line[64];

        if (argc >= 2 && strcmp(argv[1], "names") == 0) {
                for (int i = 2; i < argc; i++)
                        if (run_thread(named_thread, argv[i]) != 0)
                                return 1;
                return 0;
        }
        if (argc == 2 && strcmp(argv[1], "paced") == 0) {
                setvbuf(stdout, NULL, _IOLBF, 0);
                while (fgets(line, sizeof(line), stdin)) {
                        if (line[0] == 't' ? run_thread(paced_thread, (void *) atol(line + 1)) != 0 :
                                             touch_fresh_pages((size_t) atol(line)) != 0)
                                return 1;
                        puts("done");
                }
                return 0;
        }
        if (argc == 5 && strcmp(argv[1], "steps") == 0) {
                long n = atol(argv[2]), k = atol(argv[3]), ms = atol(argv[4]);

                for (long i = 0; i < k; i++) {
                        if (touch_fresh_pages((size_t) n) != 0)
                                return 1;
                        nanosleep(&(struct timespec) { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L }, NULL);
                }
                return 0;
        }
        fputs("usage: tool-workload names NAME... | paced | steps N K MS\n", stderr);
        return 2;
}
