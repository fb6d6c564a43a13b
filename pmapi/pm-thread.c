/* pm-thread.c: the third-party calls on one thread (_thread, and _pthread, which names the same
 * kernel thread on Linux). pmapid decides whether the caller may act on the target (the kernel's
 * ptrace rule); the library only names it. */
#include "pmapi.h"
#include "reply.h"

#define TARGET(pid, tid) ((CallTarget) { (pid), (tid) })

int pm_set_program_thread(pid_t pid, tid_t tid, pm_prog_t *prog) {
        return call_set_program("SetProgram", TARGET(pid, tid), prog);
}

int pm_get_program_thread(pid_t pid, tid_t tid, pm_prog_t *prog) {
        return call_get_program("GetProgram", TARGET(pid, tid), prog);
}

int pm_delete_program_thread(pid_t pid, tid_t tid) {
        return call_simple("DeleteProgram", TARGET(pid, tid));
}

int pm_tstart_thread(pid_t pid, tid_t tid, timebasestruct_t *time) {
        return time ? call_switch("Start", TARGET(pid, tid), time) : PM_EFAULT;
}

int pm_start_thread(pid_t pid, tid_t tid) {
        return call_switch("Start", TARGET(pid, tid), NULL);
}

int pm_tstop_thread(pid_t pid, tid_t tid, timebasestruct_t *time) {
        return time ? call_switch("Stop", TARGET(pid, tid), time) : PM_EFAULT;
}

int pm_stop_thread(pid_t pid, tid_t tid) {
        return call_switch("Stop", TARGET(pid, tid), NULL);
}

int pm_reset_data_thread(pid_t pid, tid_t tid) {
        return call_simple("ResetData", TARGET(pid, tid));
}

int pm_get_tdata_thread(pid_t pid, tid_t tid, pm_data_t *data, timebasestruct_t *time) {
        return call_get_data("GetData", TARGET(pid, tid), /* group= */ false, data, time, NULL, NULL);
}

int pm_get_Tdata_thread(pid_t pid, tid_t tid, pm_data_t *data, pm_accu_time_t *times) {
        if (!times)
                return PM_EFAULT;
        return call_get_data("GetData", TARGET(pid, tid), /* group= */ false, data, NULL, times, NULL);
}

int pm_get_data_thread(pid_t pid, tid_t tid, pm_data_t *data) {
        return pm_get_tdata_thread(pid, tid, data, NULL);
}

/* The pthread forms: (tid, ptid) resolved to one kernel thread first. */
#define RESOLVE(pid, tid, ptid, t)                                      \
        CallTarget t;                                                   \
        int _r = target_from_pthread(pid, tid, ptid, &t);               \
        if (_r != 0)                                                    \
                return _r

int pm_set_program_pthread(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_t *prog) {
        RESOLVE(pid, tid, ptid, t);
        return pm_set_program_thread(t.pid, t.tid, prog);
}

int pm_get_program_pthread(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_t *prog) {
        RESOLVE(pid, tid, ptid, t);
        return pm_get_program_thread(t.pid, t.tid, prog);
}

int pm_delete_program_pthread(pid_t pid, tid_t tid, ptid_t ptid) {
        RESOLVE(pid, tid, ptid, t);
        return pm_delete_program_thread(t.pid, t.tid);
}

int pm_start_pthread(pid_t pid, tid_t tid, ptid_t ptid) {
        RESOLVE(pid, tid, ptid, t);
        return pm_start_thread(t.pid, t.tid);
}

int pm_stop_pthread(pid_t pid, tid_t tid, ptid_t ptid) {
        RESOLVE(pid, tid, ptid, t);
        return pm_stop_thread(t.pid, t.tid);
}

int pm_reset_data_pthread(pid_t pid, tid_t tid, ptid_t ptid) {
        RESOLVE(pid, tid, ptid, t);
        return pm_reset_data_thread(t.pid, t.tid);
}

int pm_get_data_pthread(pid_t pid, tid_t tid, ptid_t ptid, pm_data_t *data) {
        RESOLVE(pid, tid, ptid, t);
        return pm_get_data_thread(t.pid, t.tid, data);
}

int pm_get_tdata_pthread(pid_t pid, tid_t tid, ptid_t ptid, pm_data_t *data, timebasestruct_t *time) {
        RESOLVE(pid, tid, ptid, t);
        return pm_get_tdata_thread(t.pid, t.tid, data, time);
}

int pm_tstart_pthread(pid_t pid, tid_t tid, ptid_t ptid, timebasestruct_t *time) {
        RESOLVE(pid, tid, ptid, t);
        return pm_tstart_thread(t.pid, t.tid, time);
}

int pm_tstop_pthread(pid_t pid, tid_t tid, ptid_t ptid, timebasestruct_t *time) {
        RESOLVE(pid, tid, ptid, t);
        return pm_tstop_thread(t.pid, t.tid, time);
}

int pm_get_Tdata_pthread(pid_t pid, tid_t tid, ptid_t ptid, pm_data_t *data, pm_accu_time_t *times) {
        RESOLVE(pid, tid, ptid, t);
        return pm_get_Tdata_thread(t.pid, t.tid, data, times);
}
