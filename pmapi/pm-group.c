/* pm-group.c: the third-party calls on a thread's counting group (_group, and _pgroup, which names
 * the same group on Linux). The target thread is the "calling thread" of the group rules (a group
 * start or reset acts on it too); pmapid decides whether the caller may act on it (the kernel's
 * ptrace rule); the library only names it. */
#include "pmapi.h"
#include "reply.h"

#define TARGET(pid, tid) ((CallTarget) { (pid), (tid) })

int pm_set_program_group(pid_t pid, tid_t tid, pm_prog_t *prog) {
        return call_set_program("SetGroupProgram", TARGET(pid, tid), prog);
}

int pm_get_program_group(pid_t pid, tid_t tid, pm_prog_t *prog) {
        return call_get_program("GetGroupProgram", TARGET(pid, tid), prog);
}

int pm_delete_program_group(pid_t pid, tid_t tid) {
        return call_simple("DeleteGroupProgram", TARGET(pid, tid));
}

int pm_tstart_group(pid_t pid, tid_t tid, timebasestruct_t *time) {
        return time ? call_switch("StartGroup", TARGET(pid, tid), time) : PM_EFAULT;
}

int pm_start_group(pid_t pid, tid_t tid) {
        return call_switch("StartGroup", TARGET(pid, tid), NULL);
}

int pm_tstop_group(pid_t pid, tid_t tid, timebasestruct_t *time) {
        return time ? call_switch("StopGroup", TARGET(pid, tid), time) : PM_EFAULT;
}

int pm_stop_group(pid_t pid, tid_t tid) {
        return call_switch("StopGroup", TARGET(pid, tid), NULL);
}

int pm_reset_data_group(pid_t pid, tid_t tid) {
        return call_simple("ResetGroupData", TARGET(pid, tid));
}

int pm_get_tdata_group(pid_t pid, tid_t tid, pm_data_t *data, timebasestruct_t *time) {
        return call_get_data("GetGroupData", TARGET(pid, tid), /* group= */ true, data, time, NULL, NULL);
}

int pm_get_Tdata_group(pid_t pid, tid_t tid, pm_data_t *data, pm_accu_time_t *times) {
        if (!times)
                return PM_EFAULT;
        return call_get_data("GetGroupData", TARGET(pid, tid), /* group= */ true, data, NULL, times, NULL);
}

int pm_get_data_group(pid_t pid, tid_t tid, pm_data_t *data) {
        return pm_get_tdata_group(pid, tid, data, NULL);
}

/* The pgroup forms: (tid, ptid) resolved to one kernel thread first. */
#define RESOLVE(pid, tid, ptid, t)                                      \
        CallTarget t;                                                   \
        int _r = target_from_pthread(pid, tid, ptid, &t);               \
        if (_r != 0)                                                    \
                return _r

int pm_set_program_pgroup(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_t *prog) {
        RESOLVE(pid, tid, ptid, t);
        return pm_set_program_group(t.pid, t.tid, prog);
}

int pm_get_program_pgroup(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_t *prog) {
        RESOLVE(pid, tid, ptid, t);
        return pm_get_program_group(t.pid, t.tid, prog);
}

int pm_delete_program_pgroup(pid_t pid, tid_t tid, ptid_t ptid) {
        RESOLVE(pid, tid, ptid, t);
        return pm_delete_program_group(t.pid, t.tid);
}

int pm_start_pgroup(pid_t pid, tid_t tid, ptid_t ptid) {
        RESOLVE(pid, tid, ptid, t);
        return pm_start_group(t.pid, t.tid);
}

int pm_stop_pgroup(pid_t pid, tid_t tid, ptid_t ptid) {
        RESOLVE(pid, tid, ptid, t);
        return pm_stop_group(t.pid, t.tid);
}

int pm_reset_data_pgroup(pid_t pid, tid_t tid, ptid_t ptid) {
        RESOLVE(pid, tid, ptid, t);
        return pm_reset_data_group(t.pid, t.tid);
}

int pm_get_data_pgroup(pid_t pid, tid_t tid, ptid_t ptid, pm_data_t *data) {
        RESOLVE(pid, tid, ptid, t);
        return pm_get_data_group(t.pid, t.tid, data);
}

int pm_get_tdata_pgroup(pid_t pid, tid_t tid, ptid_t ptid, pm_data_t *data, timebasestruct_t *time) {
        RESOLVE(pid, tid, ptid, t);
        return pm_get_tdata_group(t.pid, t.tid, data, time);
}

int pm_tstart_pgroup(pid_t pid, tid_t tid, ptid_t ptid, timebasestruct_t *time) {
        RESOLVE(pid, tid, ptid, t);
        return pm_tstart_group(t.pid, t.tid, time);
}

int pm_tstop_pgroup(pid_t pid, tid_t tid, ptid_t ptid, timebasestruct_t *time) {
        RESOLVE(pid, tid, ptid, t);
        return pm_tstop_group(t.pid, t.tid, time);
}

int pm_get_Tdata_pgroup(pid_t pid, tid_t tid, ptid_t ptid, pm_data_t *data, pm_accu_time_t *times) {
        RESOLVE(pid, tid, ptid, t);
        return pm_get_Tdata_group(t.pid, t.tid, data, times);
}
