/* stepper.c: see stepper.h. */
#include <unistd.h>

#include "stepper.h"
#include "workload.h"

static void *stepper_main(void *p) {
        Stepper *s = p;

        s->tid = gettid();
        for (;;) {
                pthread_barrier_wait(&s->go);
                if (s->pages == 0)
                        return NULL;
                (void) touch_fresh_pages(s->pages);
                if (s->read_own)
                        (void) pm_get_data_mythread(&s->own);
                pthread_barrier_wait(&s->done);
        }
}

int stepper_start(Stepper *s, bool read_own) {
        *s = (Stepper) { .read_own = read_own };
        if (pthread_barrier_init(&s->go, NULL, 2) != 0 || pthread_barrier_init(&s->done, NULL, 2) != 0)
                return -1;
        return pthread_create(&s->thread, NULL, stepper_main, s) == 0 ? 0 : -1;
}

void stepper_step(Stepper *s, size_t pages) {
        s->pages = pages;
        pthread_barrier_wait(&s->go);
        pthread_barrier_wait(&s->done);
}

void stepper_stop(Stepper *s) {
        s->pages = 0;
        pthread_barrier_wait(&s->go);
        pthread_join(s->thread, NULL);
}
