/* pm-target.c: the third-party calls, which name a thread (pid, tid) of any process the caller may
 * trace: what a debugger uses. THIRD_PARTY_CALLS makes one scope's from its Scope (scope.h):
 *   pm_set_program_S, pm_get_program_S, pm_delete_program_S, pm_start_S, pm_stop_S, pm_tstart_S,
 *   pm_tstop_S, pm_reset_data_S, pm_get_data_S, pm_get_tdata_S, pm_get_Tdata_S,
 * for S = thread and group, and the same with a pthread id for S = pthread and pgroup (P below),
 * which on Linux name the same kernel thread: (tid, ptid) is resolved to one first (ptid 0 or tid;
 * tid 0 takes ptid). pmapid decides whether the caller may act on the target (the kernel's ptrace
 * rule); the library only names it. In the group scope the target thread is the "calling thread"
 * of the group rules: a group start or reset acts on it too. */
#include "pmapi.h"
#include "scope.h"

#define TARGET(pid, tid) ((CallTarget) { (pid), (tid) })

/* (pid, tid, ptid) as a target t, or the call returns PM_EPTID. */
#define RESOLVE(pid, tid, ptid, t)                                                                  \
        CallTarget t;                                                                               \
        int _r = target_from_pthread(pid, tid, ptid, &t);                                           \
        if (_r != 0)                                                                                \
                return _r

#define THIRD_PARTY_CALLS(S, P, scope)                                                              \
        int pm_set_program_##S(pid_t pid, tid_t tid, pm_prog_t *prog) {                             \
                return scope_set_program(&scope, TARGET(pid, tid), prog);                           \
        }                                                                                           \
        int pm_get_program_##S(pid_t pid, tid_t tid, pm_prog_t *prog) {                             \
                return scope_get_program(&scope, TARGET(pid, tid), prog);                           \
        }                                                                                           \
        int pm_delete_program_##S(pid_t pid, tid_t tid) {                                           \
                return scope_delete_program(&scope, TARGET(pid, tid));                              \
        }                                                                                           \
        int pm_start_##S(pid_t pid, tid_t tid) {                                                    \
                return scope_switch(&scope, TARGET(pid, tid), true, NULL);                          \
        }                                                                                           \
        int pm_stop_##S(pid_t pid, tid_t tid) {                                                     \
                return scope_switch(&scope, TARGET(pid, tid), false, NULL);                         \
        }                                                                                           \
        int pm_tstart_##S(pid_t pid, tid_t tid, timebasestruct_t *time) {                           \
                return scope_tswitch(&scope, TARGET(pid, tid), true, time);                         \
        }                                                                                           \
        int pm_tstop_##S(pid_t pid, tid_t tid, timebasestruct_t *time) {                            \
                return scope_tswitch(&scope, TARGET(pid, tid), false, time);                        \
        }                                                                                           \
        int pm_reset_data_##S(pid_t pid, tid_t tid) {                                               \
                return scope_reset_data(&scope, TARGET(pid, tid));                                  \
        }                                                                                           \
        int pm_get_data_##S(pid_t pid, tid_t tid, pm_data_t *data) {                                \
                return scope_get_data(&scope, TARGET(pid, tid), data, NULL, NULL);                  \
        }                                                                                           \
        int pm_get_tdata_##S(pid_t pid, tid_t tid, pm_data_t *data, timebasestruct_t *time) {       \
                return scope_get_data(&scope, TARGET(pid, tid), data, time, NULL);                  \
        }                                                                                           \
        int pm_get_Tdata_##S(pid_t pid, tid_t tid, pm_data_t *data, pm_accu_time_t *times) {        \
                return scope_get_Tdata(&scope, TARGET(pid, tid), data, times, NULL);                \
        }                                                                                           \
        int pm_set_program_##P(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_t *prog) {                \
                RESOLVE(pid, tid, ptid, t);                                                         \
                return scope_set_program(&scope, t, prog);                                          \
        }                                                                                           \
        int pm_get_program_##P(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_t *prog) {                \
                RESOLVE(pid, tid, ptid, t);                                                         \
                return scope_get_program(&scope, t, prog);                                          \
        }                                                                                           \
        int pm_delete_program_##P(pid_t pid, tid_t tid, ptid_t ptid) {                              \
                RESOLVE(pid, tid, ptid, t);                                                         \
                return scope_delete_program(&scope, t);                                             \
        }                                                                                           \
        int pm_start_##P(pid_t pid, tid_t tid, ptid_t ptid) {                                       \
                RESOLVE(pid, tid, ptid, t);                                                         \
                return scope_switch(&scope, t, true, NULL);                                         \
        }                                                                                           \
        int pm_stop_##P(pid_t pid, tid_t tid, ptid_t ptid) {                                        \
                RESOLVE(pid, tid, ptid, t);                                                         \
                return scope_switch(&scope, t, false, NULL);                                        \
        }                                                                                           \
        int pm_tstart_##P(pid_t pid, tid_t tid, ptid_t ptid, timebasestruct_t *time) {              \
                RESOLVE(pid, tid, ptid, t);                                                         \
                return scope_tswitch(&scope, t, true, time);                                        \
        }                                                                                           \
        int pm_tstop_##P(pid_t pid, tid_t tid, ptid_t ptid, timebasestruct_t *time) {               \
                RESOLVE(pid, tid, ptid, t);                                                         \
                return scope_tswitch(&scope, t, false, time);                                       \
        }                                                                                           \
        int pm_reset_data_##P(pid_t pid, tid_t tid, ptid_t ptid) {                                  \
                RESOLVE(pid, tid, ptid, t);                                                         \
                return scope_reset_data(&scope, t);                                                 \
        }                                                                                           \
        int pm_get_data_##P(pid_t pid, tid_t tid, ptid_t ptid, pm_data_t *data) {                   \
                RESOLVE(pid, tid, ptid, t);                                                         \
                return scope_get_data(&scope, t, data, NULL, NULL);                                 \
        }                                                                                           \
        int pm_get_tdata_##P(pid_t pid, tid_t tid, ptid_t ptid, pm_data_t *data, timebasestruct_t *time) { \
                RESOLVE(pid, tid, ptid, t);                                                         \
                return scope_get_data(&scope, t, data, time, NULL);                                 \
        }                                                                                           \
        int pm_get_Tdata_##P(pid_t pid, tid_t tid, ptid_t ptid, pm_data_t *data, pm_accu_time_t *times) { \
                RESOLVE(pid, tid, ptid, t);                                                         \
                return scope_get_Tdata(&scope, t, data, times, NULL);                               \
        }

THIRD_PARTY_CALLS(thread, pthread, scope_thread)
THIRD_PARTY_CALLS(group, pgroup, scope_group)
