/* local.h: the calling thread reads its own context in process (include/internal/local-page.h):
 * pm_get_data_mythread and pm_get_tdata_mythread cost one read() of a perf fd that pmapid handed
 * this thread, not a bus round trip, and add nothing to the counts they read (no context switch,
 * no page fault). The handle is this thread's (thread-local), asked for once after the first read
 * over the bus, dropped when the program changes, after fork in the child, at thread exit, and as
 * soon as its page says the context is gone; every failure falls back to the bus. */
#pragma once

#include <stdbool.h>

#include "pmapi.h"

/* 0 and data (and time, and times: the counted time since the last reset) filled from the local
 * counters, or -1: read over the bus (also when the PMU time-shared the group: pmapid scales). */
int local_read(pm_data_t *data, timebasestruct_t *time, pm_accu_time_t *times);
/* pm_start_mythread / pm_stop_mythread / pm_reset_data_mythread at ioctl cost, on the handle: 0,
 * or -1: make the call to pmapid. A switch is written to the page pmapid reads (LocalState), so
 * that it knows the state and what new threads inherit. */
int local_switch(bool on, timebasestruct_t *time);
int local_reset(void);
/* After a read over the bus succeeded: asks pmapid for a handle, once per program. */
void local_try_open(void);
/* The program changes (set, delete, group): the handle goes; the next read asks again. */
void local_drop(void);
/* fork(): the list of handles is held across it; in the child every handle goes (they read the
 * parent's threads), without a bus call. */
void local_prepare_fork(void);
void local_parent_after_fork(void);
void local_forget_after_fork(void);
