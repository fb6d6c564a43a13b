/* scope.c: the calls of the thread and group scopes, made once from their Scope (scope.h). */
#include "scope.h"

const Scope scope_thread = {
        .set_program = "SetProgram",
        .get_program = "GetProgram",
        .delete_program = "DeleteProgram",
        .start = "Start",
        .stop = "Stop",
        .reset_data = "ResetData",
        .get_data = "GetData",
};

const Scope scope_group = {
        .set_program = "SetGroupProgram",
        .get_program = "GetGroupProgram",
        .delete_program = "DeleteGroupProgram",
        .start = "StartGroup",
        .stop = "StopGroup",
        .reset_data = "ResetGroupData",
        .get_data = "GetGroupData",
        .group = true,
};

/* pm_set_program(3)'s: one context per CPU, owned by the calling process; the calls name no thread
 * (target_none()). */
const Scope scope_system = {
        .set_program = "SetSystemProgram",
        .get_program = "GetSystemProgram",
        .delete_program = "DeleteSystemProgram",
        .start = "StartSystem",
        .stop = "StopSystem",
        .reset_data = "ResetSystemData",
        .get_data = "GetSystemData",
};

int scope_set_program(const Scope *s, CallTarget t, const pm_prog_t *prog) {
        return call_set_program(s->set_program, t, prog);
}

int scope_get_program(const Scope *s, CallTarget t, pm_prog_t *prog) {
        return call_get_program(s->get_program, t, prog);
}

int scope_delete_program(const Scope *s, CallTarget t) {
        return call_simple(s->delete_program, t);
}

int scope_switch(const Scope *s, CallTarget t, bool on, timebasestruct_t *time) {
        return call_switch(on ? s->start : s->stop, t, time);
}

int scope_tswitch(const Scope *s, CallTarget t, bool on, timebasestruct_t *time) {
        return time ? scope_switch(s, t, on, time) : PM_EFAULT;
}

int scope_reset_data(const Scope *s, CallTarget t) {
        return call_simple(s->reset_data, t);
}

int scope_get_data(const Scope *s, CallTarget t, pm_data_t *data, timebasestruct_t *time, bool *ret_local) {
        return call_get_data(s->get_data, t, s->group, data, time, NULL, ret_local);
}

int scope_get_Tdata(const Scope *s, CallTarget t, pm_data_t *data, pm_accu_time_t *times, bool *ret_local) {
        if (!times)
                return PM_EFAULT;
        return call_get_data(s->get_data, t, s->group, data, NULL, times, ret_local);
}
