/* manager-dbus-group.c: the Manager's group-scope methods. Every one names a thread (pid, tid), of
 * the caller's own process (_mygroup) or one the caller may trace (_group), and acts on that
 * thread's group, with that thread as the "calling thread" of AIX's rules (DESIGN.md §4, §8 A1-A5). */
#include "bus-errors.h"
#include "clock.h"
#include "log.h"
#include "macro.h"
#include "manager-dbus.h"

int manager_bus_set_group_program(sd_bus_message *m, void *userdata, sd_bus_error *error, BusProgramReader read) {
        Manager *manager = userdata;
        Program program;
        BusTarget t;
        int counter = -1;
        ProgramError pe;
        int r;

        r = manager_bus_read_target(m, manager, error, &t);
        if (r < 0)
                return r;
        r = read(m, error, &program);
        if (r >= 0)
                r = manager_bus_check_sets(manager, error, &program);
        if (r < 0)
                return r;
        pe = program_check_group(&program, manager->events, &counter);
        if (pe != PROGRAM_OK)
                return bus_error_program(error, pe, counter);
        r = manager_set_group_program(manager, &t.caller, t.pid, t.tid, &program, &t.refusal);
        if (r < 0)
                return manager_bus_fail(m, manager, error, r, &t);
        return sd_bus_reply_method_return(m, NULL);
}

int method_set_group_program(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return manager_bus_set_group_program(m, userdata, error, manager_bus_read_program);
}

int manager_bus_message_group(sd_bus_message *m, Manager *manager, sd_bus_error *error, BusTarget *ret_target,
                              Context **ret_context, Group **ret_group) {
        int r;

        r = manager_bus_read_target(m, manager, error, ret_target);
        if (r < 0)
                return r;
        r = manager_get_group(manager, &ret_target->caller, ret_target->pid, ret_target->tid, ret_context,
                              ret_group, &ret_target->refusal);
        if (r < 0)
                return manager_bus_fail(m, manager, error, r, ret_target);
        return 0;
}

int method_get_group_program(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        BusTarget t;
        Context *c;
        Group *g;
        Program p;
        int r;

        r = manager_bus_message_group(m, userdata, error, &t, &c, &g);
        if (r < 0)
                return r;
        p = group_get_program(g);
        return manager_bus_reply_program(m, &p);
}

int method_delete_group_program(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        BusTarget t;
        Context *c;
        Group *g;
        int r;

        r = manager_bus_message_group(m, userdata, error, &t, &c, &g);
        if (r < 0)
                return r;
        if (t.pid != t.caller.pid)
                log_info("Group %u of thread %d of pid %d deleted by pid %d uid %u.", g->id, (int) t.tid,
                         (int) t.pid, (int) t.caller.pid, (unsigned) t.caller.euid);
        manager_delete_group(userdata, g);
        return sd_bus_reply_method_return(m, NULL);
}

typedef int (*GroupOp)(Group *g, Context *caller);

static int group_op(sd_bus_message *m, void *userdata, sd_bus_error *error, GroupOp op, bool stamped) {
        BusTarget t;
        Context *c;
        Group *g;
        int r;

        r = manager_bus_message_group(m, userdata, error, &t, &c, &g);
        if (r < 0)
                return r;
        r = op(g, c);
        if (r < 0)
                return manager_bus_fail(m, userdata, error, r, &t);
        return manager_bus_reply_done(m, stamped);
}

int method_start_group(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return group_op(m, userdata, error, group_start, true);
}

int method_stop_group(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return group_op(m, userdata, error, group_stop, true);
}

int method_reset_group_data(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return group_op(m, userdata, error, group_reset, false);
}

int method_get_group_data(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        Manager *manager = userdata;
        AcctVector accu;
        BusTarget t;
        Context *c;
        Group *g;
        int r;

        /* Threads created outside libpmapi just before this call are members by now. */
        if (manager->fork_watch)
                fork_watch_flush(manager->fork_watch);
        r = manager_bus_message_group(m, userdata, error, &t, &c, &g);
        if (r < 0)
                return r;
        r = manager_check_read(manager, &t.caller, &g->program, g->owner_uid);
        if (r >= 0)
                r = group_read(g, accu);
        if (r < 0)
                return manager_bus_fail(m, manager, error, r, &t);
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_append_array(reply, 'x', accu, ACCT_COUNTS_SIZE);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "tiu", now_monotonic_ns(), (int32_t) g->n_members,
                                  (uint32_t) group_info_flags(g));
        if (r >= 0)
                r = manager_bus_append_times(reply, accu);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}
