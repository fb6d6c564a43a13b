/* manager-dbus-group.c: the Manager's group-scope methods. Every one names a thread (pid, tid) of
 * the caller and acts on that thread's group, with that thread as the "calling thread" of AIX's
 * rules (DESIGN.md §4, §8 A1-A4). */
#include "bus-errors.h"
#include "clock.h"
#include "log.h"
#include "macro.h"
#include "manager-dbus.h"

int method_set_group_program(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Manager *manager = userdata;
        Program program;
        Caller caller;
        pid_t pid, tid;
        int counter = -1;
        ProgramError pe;
        int r;

        r = manager_bus_read_target(m, manager, &caller, &pid, &tid);
        if (r < 0)
                return r;
        r = manager_bus_read_program(m, error, &program);
        if (r < 0)
                return r;
        pe = program_check_group(&program, manager->events, &counter);
        if (pe != PROGRAM_OK)
                return bus_error_program(error, pe, counter);
        r = manager_set_group_program(manager, &caller, pid, tid, &program);
        if (r < 0) {
                log_info("SetGroupProgram on thread %d of pid %d by pid %d uid %u refused: %s", (int) tid,
                         (int) pid, (int) caller.pid, (unsigned) caller.euid, bus_error_name_from_errno(r));
                return bus_error_thread(error, r, pid, tid);
        }
        return sd_bus_reply_method_return(m, NULL);
}

/* Finds the group of the caller's thread named by the (pid, tid) arguments, or sets the error. */
static int message_group(sd_bus_message *m, Manager *manager, sd_bus_error *error, Context **ret_context,
                         Group **ret_group) {
        Caller caller;
        pid_t pid, tid;
        int r;

        r = manager_bus_read_target(m, manager, &caller, &pid, &tid);
        if (r < 0)
                return r;
        r = manager_get_group(manager, &caller, pid, tid, ret_context, ret_group);
        if (r < 0)
                return bus_error_thread(error, r, pid, tid);
        return 0;
}

int method_get_group_program(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Context *c;
        Group *g;
        Program p;
        int r;

        r = message_group(m, userdata, error, &c, &g);
        if (r < 0)
                return r;
        p = group_get_program(g);
        return manager_bus_reply_program(m, &p);
}

int method_delete_group_program(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Context *c;
        Group *g;
        int r;

        r = message_group(m, userdata, error, &c, &g);
        if (r < 0)
                return r;
        manager_delete_group(userdata, g);
        return sd_bus_reply_method_return(m, NULL);
}

static int group_op_reply(sd_bus_message *m, Context *c, int r, sd_bus_error *error) {
        if (r < 0)
                return bus_error_thread(error, r, c->pid, c->tid);
        return sd_bus_reply_method_return(m, NULL);
}

int method_start_group(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Context *c;
        Group *g;
        int r = message_group(m, userdata, error, &c, &g);
        return r < 0 ? r : group_op_reply(m, c, group_start(g, c), error);
}

int method_stop_group(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Context *c;
        Group *g;
        int r = message_group(m, userdata, error, &c, &g);
        return r < 0 ? r : group_op_reply(m, c, group_stop(g, c), error);
}

int method_reset_group_data(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Context *c;
        Group *g;
        int r = message_group(m, userdata, error, &c, &g);
        return r < 0 ? r : group_op_reply(m, c, group_reset(g, c), error);
}

int method_get_group_data(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        AcctVector accu;
        Context *c;
        Group *g;
        int r;

        Manager *manager = userdata;

        /* Threads created outside libpmapi just before this call are members by now. */
        if (manager->fork_watch)
                fork_watch_flush(manager->fork_watch);
        r = message_group(m, userdata, error, &c, &g);
        if (r < 0)
                return r;
        r = group_read(g, accu);
        if (r < 0)
                return bus_error_thread(error, r, c->pid, c->tid);
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_append_array(reply, 'x', accu, sizeof(accu));
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "tiu", now_monotonic_ns(), (int32_t) g->n_members,
                                  (uint32_t) group_info_flags(g));
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}
