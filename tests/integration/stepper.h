/* stepper.h: a thread that touches fresh pages only when told, step by step, and waits between
 * steps: its counts are exactly what a test told it to do, whatever happens to pmapid meanwhile
 * (test-reexec.c, test-fd-store.c). */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "pmapi.h"

typedef struct Stepper {
        pthread_t thread;
        pthread_barrier_t go, done;
        pid_t tid;                      /* set once its first step is done */
        size_t pages;                   /* for the next step; 0: exit */
        bool read_own;                  /* read its own counts after each step (a bus call: faults) */
        pm_data_t own;
} Stepper;

/* 0 or -1. */
int stepper_start(Stepper *s, bool read_own);
/* Lets it touch pages fresh pages and waits until it has. */
void stepper_step(Stepper *s, size_t pages);
/* Lets it exit and joins it. */
void stepper_stop(Stepper *s);
