/* pm-mygroup.c: the first-party calls on the calling thread's counting group (_mygroup). The
 * calling thread is the group's "calling thread" of AIX's rules: a group start or reset acts on it
 * as well as on the group (pm_start_mygroup(3)). */
#include "inherit.h"
#include "local.h"
#include "pmapi.h"
#include "scope.h"

int pm_set_program_mygroup(pm_prog_t *prog) {
        int r;

        local_drop();                   /* a member reads over the bus */
        r = scope_set_program(&scope_group, target_self(), prog);

        if (r == 0) {
                inherit_note_program(prog);
                inherit_note_process(!(prog->mode.w & PM_NO_INHERIT) && (prog->mode.w & PM_PROCESS));
        }
        return r;
}

int pm_get_program_mygroup(pm_prog_t *prog) {
        return scope_get_program(&scope_group, target_self(), prog);
}

int pm_delete_program_mygroup(void) {
        int r;

        local_drop();
        r = scope_delete_program(&scope_group, target_self());

        if (r == 0) {
                inherit_note_thread(false);
                inherit_note_process(false);
        }
        return r;
}

int pm_tstart_mygroup(timebasestruct_t *time) {
        return scope_tswitch(&scope_group, target_self(), true, time);
}

int pm_start_mygroup(void) {
        return scope_switch(&scope_group, target_self(), true, NULL);
}

int pm_tstop_mygroup(timebasestruct_t *time) {
        return scope_tswitch(&scope_group, target_self(), false, time);
}

int pm_stop_mygroup(void) {
        return scope_switch(&scope_group, target_self(), false, NULL);
}

int pm_reset_data_mygroup(void) {
        return scope_reset_data(&scope_group, target_self());
}

int pm_get_tdata_mygroup(pm_data_t *data, timebasestruct_t *time) {
        return scope_get_data(&scope_group, target_self(), data, time, NULL);
}

int pm_get_Tdata_mygroup(pm_data_t *data, pm_accu_time_t *times) {
        return scope_get_Tdata(&scope_group, target_self(), data, times, NULL);
}

int pm_get_data_mygroup(pm_data_t *data) {
        return pm_get_tdata_mygroup(data, NULL);
}
