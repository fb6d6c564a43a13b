/* reply.h: the argument and reply shapes shared by every scope's calls (program and data). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "pmapi.h"

/* The thread a call names: the calling thread for the first-party calls, any for third party. */
typedef struct CallTarget {
        pid_t pid;
        pid_t tid;
        bool none;                      /* the system scope: the call names no thread */
} CallTarget;

/* bus_call_target(), or bus_call() for the system scope (bus.h). */
#define call_on(t, method, ret_reply, ...)                                                  \
        ((t).none ? bus_call(method, ret_reply, __VA_ARGS__)                                \
                  : bus_call_target(method, ret_reply, (t).pid, (t).tid, __VA_ARGS__))

/* A CLOCK_MONOTONIC time, or a length, in ns as a timebasestruct_t (pmapi.h). */
void set_duration(timebasestruct_t *tb, uint64_t ns);

CallTarget target_self(void);
CallTarget target_none(void);
/* (pid, tid, ptid) of the _pthread/_pgroup calls as a target: ptid must be 0 or tid (tid 0 takes
 * ptid). Returns 0 or PM_EPTID. */
int target_from_pthread(pid_t pid, tid_t tid, ptid_t ptid, CallTarget *ret);

/* Checks prog against the installed catalog and calls method(pid, tid, mode, events). */
int call_set_program(const char *method, CallTarget t, const pm_prog_t *prog);
/* Calls method on the target and reads its (mode, events) reply into prog. */
int call_get_program(const char *method, CallTarget t, pm_prog_t *prog);
/* Calls method on the target and reads its (data, timestamp[, members, flags][, local], enabled,
 * running) reply; times (may be NULL) gets the last two. ret_local (may be NULL): GetData's hint
 * that OpenLocal would hand the context over (local.h). */
int call_get_data(const char *method, CallTarget t, bool group, pm_data_t *data, timebasestruct_t *time,
                  pm_accu_time_t *times, bool *ret_local);
/* Skips what skip says (a signature, may be NULL), then reads a data reply's (enabled, running)
 * into times (may be NULL). */
int reply_read_times(sd_bus_message *reply, const char *skip, pm_accu_time_t *times);
/* Reads a Start or Stop reply's time into time. */
int reply_read_stamp(sd_bus_message *reply, timebasestruct_t *time);
/* A Start or Stop method on the target: its reply, the time of the switch, into time (may be NULL). */
int call_switch(const char *method, CallTarget t, timebasestruct_t *time);
/* Reads a (mode, events) reply into prog. */
int reply_read_program(sd_bus_message *reply, pm_prog_t *prog);
/* Reads a (data, timestamp) reply into data and time (either may be NULL). */
int reply_read_data(sd_bus_message *reply, pm_data_t *data, timebasestruct_t *time);
/* A method on the target without other arguments or reply. */
int call_simple(const char *method, CallTarget t);
