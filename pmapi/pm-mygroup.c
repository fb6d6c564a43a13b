/* pm-mygroup.c: the first-party calls on the calling thread's counting group (_mygroup). The
 * calling thread is the group's "calling thread" of AIX's rules: a group start or reset acts on it
 * as well as on the group (pm_start_mygroup(3)). */
#include "inherit.h"
#include "local.h"
#include "pmapi.h"
#include "reply.h"

int pm_set_program_mygroup(pm_prog_t *prog) {
        int r;

        local_drop();                   /* a member reads over the bus */
        r = call_set_program("SetGroupProgram", target_self(), prog);

        if (r == 0) {
                bool inherits = !(prog->mode.w & PM_NO_INHERIT);
                inherit_note_thread(inherits);
                inherit_note_process(inherits && (prog->mode.w & PM_PROCESS));
        }
        return r;
}

int pm_get_program_mygroup(pm_prog_t *prog) {
        return call_get_program("GetGroupProgram", target_self(), prog);
}

int pm_delete_program_mygroup(void) {
        int r;

        local_drop();
        r = call_simple("DeleteGroupProgram", target_self());

        if (r == 0) {
                inherit_note_thread(false);
                inherit_note_process(false);
        }
        return r;
}

int pm_tstart_mygroup(timebasestruct_t *time) {
        return time ? call_switch("StartGroup", target_self(), time) : PM_EFAULT;
}

int pm_start_mygroup(void) {
        return call_switch("StartGroup", target_self(), NULL);
}

int pm_tstop_mygroup(timebasestruct_t *time) {
        return time ? call_switch("StopGroup", target_self(), time) : PM_EFAULT;
}

int pm_stop_mygroup(void) {
        return call_switch("StopGroup", target_self(), NULL);
}

int pm_reset_data_mygroup(void) {
        return call_simple("ResetGroupData", target_self());
}

int pm_get_tdata_mygroup(pm_data_t *data, timebasestruct_t *time) {
        return call_get_data("GetGroupData", target_self(), /* group= */ true, data, time, NULL, NULL);
}

int pm_get_Tdata_mygroup(pm_data_t *data, pm_accu_time_t *times) {
        if (!times)
                return PM_EFAULT;
        return call_get_data("GetGroupData", target_self(), /* group= */ true, data, NULL, times, NULL);
}

int pm_get_data_mygroup(pm_data_t *data) {
        return pm_get_tdata_mygroup(data, NULL);
}
