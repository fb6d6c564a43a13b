/* thread-burst.c: the thread-heavy command of bench-pmcount.c, deliberately not linked with libpmapi
 * (pmcount preloads it). Creates THREADS threads, BATCH at a time, and joins each batch before the
 * next; each thread maps PAGES fresh pages, writes one byte to each and unmaps them. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fresh-pages.h"

#define MAX_BATCH 256

static size_t pages;

static void *touch(void *arg) {
        return fresh_pages_touch(pages) < 0 ? (void *) (intptr_t) 1 : arg;
}

int main(int argc, char *argv[]) {
        pthread_t t[MAX_BATCH];
        long threads, batch;
        void *ret;

        if (argc != 4 || (threads = atol(argv[1])) < 1 || (batch = atol(argv[2])) < 1 || batch > MAX_BATCH) {
                fprintf(stderr, "Usage: thread-burst THREADS BATCH(<=%d) PAGES\n", MAX_BATCH);
                return 1;
        }
        pages = (size_t) atol(argv[3]);
        for (long done = 0; done < threads; done += batch) {
                long n = threads - done < batch ? threads - done : batch;

                for (long i = 0; i < n; i++)
                        if (pthread_create(&t[i], NULL, touch, NULL) != 0)
                                return 1;
                for (long i = 0; i < n; i++)
                        if (pthread_join(t[i], &ret) != 0 || ret != NULL)
                                return 1;
        }
        return 0;
}
