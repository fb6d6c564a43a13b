/* pm-mythread.c: the first-party calls on the calling thread (_mythread). Each is one call to
 * pmapid with (getpid(), gettid()) as the target; pmapid checks that the thread is the caller's.
 * Reads are local where pmapid hands the thread its counters (local.h). */
#include "inherit.h"
#include "local.h"
#include "pmapi.h"
#include "scope.h"

int pm_set_program_mythread(pm_prog_t *prog) {
        int r;

        local_drop();
        r = scope_set_program(&scope_thread, target_self(), prog);

        if (r == 0)
                inherit_note_program(prog);
        return r;
}

int pm_get_program_mythread(pm_prog_t *prog) {
        return scope_get_program(&scope_thread, target_self(), prog);
}

int pm_delete_program_mythread(void) {
        int r;

        local_drop();
        r = scope_delete_program(&scope_thread, target_self());

        if (r == 0)
                inherit_note_thread(false);
        return r;
}

/* In process where the thread holds its counters (local.h), else through pmapid. */
static int switch_mythread(bool on, timebasestruct_t *time) {
        return local_switch(on, time) == 0 ? 0 : scope_switch(&scope_thread, target_self(), on, time);
}

int pm_tstart_mythread(timebasestruct_t *time) {
        return time ? switch_mythread(true, time) : PM_EFAULT;
}

int pm_start_mythread(void) {
        return switch_mythread(true, NULL);
}

int pm_tstop_mythread(timebasestruct_t *time) {
        return time ? switch_mythread(false, time) : PM_EFAULT;
}

int pm_stop_mythread(void) {
        return switch_mythread(false, NULL);
}

int pm_reset_data_mythread(void) {
        return local_reset() == 0 ? 0 : scope_reset_data(&scope_thread, target_self());
}

int pm_get_tdata_mythread(pm_data_t *data, timebasestruct_t *time) {
        bool local = false;
        int r;

        if (data && local_read(data, time, NULL) == 0)
                return 0;
        r = scope_get_data(&scope_thread, target_self(), data, time, &local);
        if (r == 0 && local)
                local_try_open();
        return r;
}

/* In process too: the times less the base of the last reset, from the pages (local.h). */
int pm_get_Tdata_mythread(pm_data_t *data, pm_accu_time_t *times) {
        bool local = false;
        int r;

        if (times && data && local_read(data, NULL, times) == 0)
                return 0;
        r = scope_get_Tdata(&scope_thread, target_self(), data, times, &local);
        if (r == 0 && local)
                local_try_open();
        return r;
}

int pm_get_data_mythread(pm_data_t *data) {
        return pm_get_tdata_mythread(data, NULL);
}
