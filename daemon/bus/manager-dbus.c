/* manager-dbus.c: the Manager interface. Each handler reads its arguments, identifies the caller
 * from the bus, calls one core function and replies; errors become named D-Bus errors in
 * bus-errors.c. Nothing here blocks. */
#include "bus-errors.h"
#include "bus-names.h"
#include <inttypes.h>
#include <stdio.h>

#include "clock.h"
#include "context-dbus.h"
#include "cgroup-dbus.h"
#include "cpu-dbus.h"
#include "group-dbus.h"
#include "log.h"
#include "macro.h"
#include "heirs.h"
#include "cpu-scope.h"
#include "manager-dbus.h"

static int method_set_program(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return manager_bus_set_program(m, userdata, error, manager_bus_read_program);
}

static int method_get_program(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        BusTarget t;
        Context *c;
        Program p;
        int r;

        r = manager_bus_message_context(m, userdata, error, &t, &c);
        if (r < 0)
                return r;
        p = context_get_program(c);
        return manager_bus_reply_program(m, &p);
}

static int method_delete_program(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        BusTarget t;
        Context *c;
        int r;

        r = manager_bus_message_context(m, userdata, error, &t, &c);
        if (r < 0)
                return r;
        if (t.pid != t.caller.pid)
                log_info("Context of thread %d of pid %d deleted by pid %d uid %u.", (int) t.tid, (int) t.pid,
                         (int) t.caller.pid, (unsigned) t.caller.euid);
        manager_delete_context(userdata, c);
        return sd_bus_reply_method_return(m, NULL);
}

typedef int (*ContextOp)(Context *c);

/* op on the message's context; with stamped, the reply is the CLOCK_MONOTONIC time right after it
 * (pm_tstart, pm_tstop). */
static int context_op(sd_bus_message *m, void *userdata, sd_bus_error *error, ContextOp op, bool stamped) {
        BusTarget t;
        Context *c;
        int r;

        r = manager_bus_message_context(m, userdata, error, &t, &c);
        if (r < 0)
                return r;
        r = op(c);
        if (r < 0)
                return manager_bus_fail(m, userdata, error, r, &t);
        return manager_bus_reply_done(m, stamped);
}

static int method_start(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return context_op(m, userdata, error, context_start, true);
}

static int method_stop(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return context_op(m, userdata, error, context_stop, true);
}

static int method_reset_data(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return context_op(m, userdata, error, context_reset, false);
}

static int method_get_data(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        AcctVector accu;
        BusTarget t;
        Context *c;
        int r;

        r = manager_bus_message_context(m, userdata, error, &t, &c);
        if (r < 0)
                return r;
        r = manager_check_read(userdata, &t.caller, c->program, c->owner_uid);
        if (r >= 0)
                r = context_read(c, accu);
        if (r < 0)
                return manager_bus_fail(m, userdata, error, r, &t);
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_append_array(reply, 'x', accu, ACCT_COUNTS_SIZE);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "t", now_monotonic_ns());
        if (r < 0)
                return r;
        /* Whether OpenLocal would hand this caller the context (manager-dbus-local.c): libpmapi
         * asks only then, so that a futile call never lands in what a thread counts. */
        r = sd_bus_message_append(reply, "b", (int) manager_bus_local_allowed(&t, c));
        if (r < 0)
                return r;
        r = manager_bus_append_times(reply, accu);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int method_inherit(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Manager *manager = userdata;
        int32_t ppid, ptid;
        uint64_t created_ns;
        bool attached = false;
        BusTarget t;
        int r;

        r = manager_bus_read_target(m, manager, error, &t);
        if (r < 0)
                return r;
        r = sd_bus_message_read(m, "iit", &ppid, &ptid, &created_ns);
        if (r < 0)
                return r;
        r = manager_inherit(manager, &t.caller, t.pid, t.tid, ppid, ptid, created_ns, &attached);
        if (r < 0)
                return manager_bus_fail(m, manager, error, r, &t);
        return sd_bus_reply_method_return(m, "b", (int) attached);
}

static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("GetEvents", SD_BUS_NO_ARGS,
                                SD_BUS_RESULT("s", processor, "u", counters, "a(iusss)", events),
                                method_get_events, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetGroups", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(isssai)", groups),
                                method_get_groups, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetMetrics", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(sssssd)", metrics),
                                method_get_metrics, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetProgram",
                                SD_BUS_ARGS("i", pid, "i", tid, "i", mode, "ai", events),
                                SD_BUS_NO_RESULT, method_set_program, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetProgram", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("i", mode, "ai", events),
                                method_get_program, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("DeleteProgram", SD_BUS_ARGS("i", pid, "i", tid), SD_BUS_NO_RESULT,
                                method_delete_program, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Start", SD_BUS_ARGS("i", pid, "i", tid), SD_BUS_RESULT("t", timestamp_ns),
                                method_start, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Stop", SD_BUS_ARGS("i", pid, "i", tid), SD_BUS_RESULT("t", timestamp_ns),
                                method_stop, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ResetData", SD_BUS_ARGS("i", pid, "i", tid), SD_BUS_NO_RESULT,
                                method_reset_data, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetData", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("ax", data, "t", timestamp_ns, "b", local, "t", enabled_ns,
                                              "t", running_ns),
                                method_get_data, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("OpenLocal", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("h", counter, "h", page, "h", state),
                                method_open_local, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetProgramMx",
                                SD_BUS_ARGS("i", pid, "i", tid, "i", slice_ms, "b", multi_mode, "a(iai)", sets),
                                SD_BUS_NO_RESULT, method_set_program_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetProgramMx", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("i", slice_ms, "b", multi_mode, "a(iai)", sets),
                                method_get_program_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetDataMx", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("a(axtt)", sets, "t", timestamp_ns, "u", rounds),
                                method_get_data_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetGroupProgramMx",
                                SD_BUS_ARGS("i", pid, "i", tid, "i", slice_ms, "b", multi_mode, "a(iai)", sets),
                                SD_BUS_NO_RESULT, method_set_group_program_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetGroupProgramMx", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("i", slice_ms, "b", multi_mode, "a(iai)", sets),
                                method_get_group_program_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetGroupDataMx", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("a(axtt)", sets, "t", timestamp_ns, "i", members, "u", flags,
                                              "u", rounds),
                                method_get_group_data_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetGroupProgram",
                                SD_BUS_ARGS("i", pid, "i", tid, "i", mode, "ai", events),
                                SD_BUS_NO_RESULT, method_set_group_program, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetGroupProgram", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("i", mode, "ai", events),
                                method_get_group_program, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("DeleteGroupProgram", SD_BUS_ARGS("i", pid, "i", tid), SD_BUS_NO_RESULT,
                                method_delete_group_program, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("StartGroup", SD_BUS_ARGS("i", pid, "i", tid), SD_BUS_RESULT("t", timestamp_ns),
                                method_start_group, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("StopGroup", SD_BUS_ARGS("i", pid, "i", tid), SD_BUS_RESULT("t", timestamp_ns),
                                method_stop_group, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ResetGroupData", SD_BUS_ARGS("i", pid, "i", tid), SD_BUS_NO_RESULT,
                                method_reset_group_data, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetGroupData", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("ax", data, "t", timestamp_ns, "i", members, "u", flags,
                                              "t", enabled_ns, "t", running_ns),
                                method_get_group_data, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListCgroups", SD_BUS_ARGS("s", path, "b", subtree),
                                SD_BUS_RESULT("a(tsb)", cgroups), method_list_cgroups, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetGroupMembers", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("a(iisbax)", members, "u", dropped),
                                method_get_group_members, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetGroupMembersPage", SD_BUS_ARGS("i", pid, "i", tid, "u", first, "u", max),
                                SD_BUS_RESULT("a(iisbax)", members, "u", dropped, "u", total, "u", missed),
                                method_get_group_members_page, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListContexts", SD_BUS_NO_ARGS,
                                SD_BUS_RESULT("a(iiuuisbo)", contexts),
                                method_list_contexts, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ReadContexts", SD_BUS_ARGS("u", after_tid, "u", max),
                                SD_BUS_RESULT("a(iiubuaiaxtt)", contexts, "b", more, "u", resume_after),
                                method_read_contexts, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ReadGroups", SD_BUS_ARGS("u", after_id, "u", max),
                                SD_BUS_RESULT("a(uiuiubaiaxtt)", groups, "b", more, "u", resume_after),
                                method_read_groups, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Inherit",
                                SD_BUS_ARGS("i", pid, "i", tid, "i", parent_pid, "i", parent_tid,
                                            "t", created_ns),
                                SD_BUS_RESULT("b", attached),
                                method_inherit, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END
};

int manager_bus_register(Manager *m, sd_bus *bus) {
        int r;

        r = caller_cache_new(bus, &m->callers);
        if (r < 0)
                return log_error_errno(r, "Failed to watch bus clients: %m");
        r = caller_lookup_new(bus, m->callers, &m->lookup);
        if (r < 0)
                return log_error_errno(r, "Failed to set up caller lookups: %m");
        m->log_budget = log_budget_new();
        m->creation_log_budget = log_budget_new();
        if (!m->log_budget || !m->creation_log_budget)
                return log_error_errno(-ENOMEM, "Out of memory.");
        r = sd_bus_add_object_vtable(bus, NULL, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE,
                                     manager_properties_vtable, m);
        if (r >= 0)
                r = sd_bus_add_object_vtable(bus, NULL, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE,
                                             manager_vtable, m);
        if (r < 0)
                return log_error_errno(r, "Failed to register the Manager object: %m");
        r = cpu_scopes_register(m, bus);
        if (r < 0)
                return log_error_errno(r, "Failed to register the system and cgroup scopes: %m");
        r = context_bus_register(m, bus);
        if (r < 0)
                return log_error_errno(r, "Failed to register the thread objects: %m");
        r = group_bus_register(m, bus);
        if (r < 0)
                return log_error_errno(r, "Failed to register the group objects: %m");
        r = cgroup_bus_register(m, bus);
        if (r < 0)
                return log_error_errno(r, "Failed to register the cgroup objects: %m");
        r = cpu_bus_register(m, bus);
        if (r < 0)
                return log_error_errno(r, "Failed to register the CPU objects: %m");
        return 0;
}
