/* thread-park.h: threads created by the calling thread (through libpmapi, so that each inherits its
 * pmapi state: one live context each) that wait until released, for the tests and benchmarks that
 * need many live contexts at once. One park at a time per process. */
#pragma once

#include <pthread.h>

typedef struct ThreadPark {
        pthread_t *threads;
        int n_created;
} ThreadPark;

/* Creates n threads (64 KiB stacks) and returns once each runs: 0, or -1 with the ones created
 * still parked (release them all the same). */
int thread_park_start(ThreadPark *p, int n);
/* Releases the parked threads and joins them. */
void thread_park_release(ThreadPark *p);
