/* thread-pages.c: the workload of test-pmcount.c, deliberately not linked with libpmapi (pmcount
 * preloads it). A warm-up thread ("tp-warm-up") runs and exits first; then THREADS workers run at
 * once; worker i names itself "tp-worker-<i>" and touches
 * (i + 1) * PAGES fresh pages ROUNDS times, each round a new mapping written once a page and
 * unmapped: exactly (i + 1) * PAGES * ROUNDS page faults in user mode. The main thread does the
 * same with PAGES pages after the workers have exited, then exits with status EXIT (default 0). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fresh-pages.h"

static size_t pages, rounds;

static int touch_rounds(size_t n) {
        for (size_t r = 0; r < rounds; r++)
                if (fresh_pages_touch(n) < 0)
                        return -1;
        return 0;
}

static void *worker(void *arg) {
        size_t i = (size_t) (uintptr_t) arg;
        char name[16];

        snprintf(name, sizeof(name), "tp-worker-%zu", i);
        (void) pthread_setname_np(pthread_self(), name);
        return (void *) (intptr_t) touch_rounds((i + 1) * pages);
}

static void *warm_up(void *arg) {
        (void) pthread_setname_np(pthread_self(), "tp-warm-up");
        return arg;
}

int main(int argc, char *argv[]) {
        pthread_t t[64];
        size_t n;
        void *ret;
        int failed = 0;

        if (argc < 4 || argc > 5 || (n = (size_t) atol(argv[1])) > 64) {
                fprintf(stderr, "Usage: thread-pages THREADS(<=64) PAGES ROUNDS [EXIT]\n");
                return 1;
        }
        pages = (size_t) atol(argv[2]);
        rounds = (size_t) atol(argv[3]);
        {
                /* What a worker does that the process does once: the first call of stdio and of
                 * the touch loop here, the first thread exit (libc code run for the first time:
                 * its text pages fault in) in a thread of its own. Their page faults are then
                 * nobody's but main's and the warm-up thread's. */
                char warm[16];
                size_t saved = rounds;
                pthread_t w;

                snprintf(warm, sizeof(warm), "tp-worker-%zu", n);
                rounds = 1;
                (void) touch_rounds(1);
                rounds = saved;
                if (pthread_create(&w, NULL, warm_up, NULL) != 0 || pthread_join(w, NULL) != 0)
                        return 1;
        }
        for (size_t i = 0; i < n; i++)
                if (pthread_create(&t[i], NULL, worker, (void *) (uintptr_t) i) != 0)
                        return 1;
        for (size_t i = 0; i < n; i++)
                if (pthread_join(t[i], &ret) != 0 || ret != NULL)
                        failed = 1;
        if (failed || touch_rounds(pages) < 0)
                return 1;
        return argc == 5 ? atoi(argv[4]) : 0;
}
