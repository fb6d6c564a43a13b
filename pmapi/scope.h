/* scope.h: what the thread scope (_mythread, _thread, _pthread), the group scope (_mygroup, _group,
 * _pgroup) and the system scope (pm_set_program...) differ in on the library's side: the Manager's
 * methods each call is sent as, and the shape of the data reply. The calls are made once from a
 * Scope (scope.c); pm-target.c makes the third-party calls of the first two from one list,
 * pm-mythread.c and pm-mygroup.c the first-party ones (they also keep the in-process state: local
 * reads, inheritance), pm-system.c the system scope's. The cgroup scope (pm-wp.c) names a cgroup,
 * not a thread, and is written out. */
#pragma once

#include <stdbool.h>

#include "pmapi.h"
#include "reply.h"

typedef struct Scope {
        const char *set_program, *get_program, *delete_program;
        const char *start, *stop, *reset_data, *get_data;
        bool group;                     /* the data reply holds (members, flags) */
} Scope;

extern const Scope scope_thread, scope_group, scope_system;

int scope_set_program(const Scope *s, CallTarget t, const pm_prog_t *prog);
int scope_get_program(const Scope *s, CallTarget t, pm_prog_t *prog);
int scope_delete_program(const Scope *s, CallTarget t);
/* Start (on) or Stop, the switch's time into time (may be NULL). */
int scope_switch(const Scope *s, CallTarget t, bool on, timebasestruct_t *time);
/* The timed forms (pm_tstart_*, pm_tstop_*): time is required (PM_EFAULT). */
int scope_tswitch(const Scope *s, CallTarget t, bool on, timebasestruct_t *time);
int scope_reset_data(const Scope *s, CallTarget t);
/* data and time (either may be NULL); ret_local as call_get_data. */
int scope_get_data(const Scope *s, CallTarget t, pm_data_t *data, timebasestruct_t *time, bool *ret_local);
/* The pm_get_Tdata_* form: times is required (PM_EFAULT). */
int scope_get_Tdata(const Scope *s, CallTarget t, pm_data_t *data, pm_accu_time_t *times, bool *ret_local);
