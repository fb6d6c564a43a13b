/* thread-park.c: see thread-park.h. */
#include <stdbool.h>
#include <stdlib.h>

#include "thread-park.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* Two conditions: a parked thread that woke every other at its start made parking n threads cost
 * n²/2 wake-ups (minutes of system time at 100,000). */
static pthread_cond_t one_more_runs = PTHREAD_COND_INITIALIZER;
static pthread_cond_t release_all = PTHREAD_COND_INITIALIZER;
static int n_running;
static bool released;

static void *parked(void *arg) {
        (void) arg;
        pthread_mutex_lock(&lock);
        n_running++;
        pthread_cond_signal(&one_more_runs);    /* only the creator waits on it */
        while (!released)
                pthread_cond_wait(&release_all, &lock);
        pthread_mutex_unlock(&lock);
        return NULL;
}

int thread_park_start(ThreadPark *p, int n) {
        pthread_attr_t attr;

        *p = (ThreadPark) { .threads = calloc(n > 0 ? (size_t) n : 1, sizeof(pthread_t)) };
        if (!p->threads)
                return -1;
        n_running = 0;
        released = false;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 64 * 1024);
        for (; p->n_created < n; p->n_created++)
                if (pthread_create(&p->threads[p->n_created], &attr, parked, NULL) != 0)
                        break;
        pthread_attr_destroy(&attr);
        pthread_mutex_lock(&lock);
        while (n_running < p->n_created)
                pthread_cond_wait(&one_more_runs, &lock);
        pthread_mutex_unlock(&lock);
        return p->n_created == n ? 0 : -1;
}

void thread_park_release(ThreadPark *p) {
        pthread_mutex_lock(&lock);
        released = true;
        pthread_cond_broadcast(&release_all);
        pthread_mutex_unlock(&lock);
        for (int i = 0; i < p->n_created; i++)
                (void) pthread_join(p->threads[i], NULL);
        free(p->threads);
        *p = (ThreadPark) {};
}
