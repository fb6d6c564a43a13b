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
#include "thread-scope.h"

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
        SD_BUS_METHOD_WITH_ARGS("OpenLocal", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("h", counter, "h", page, "h", state),
                                method_open_local, SD_BUS_VTABLE_UNPRIVILEGED),
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
        r = thread_scopes_register(m, bus);
        if (r < 0)
                return log_error_errno(r, "Failed to register the thread and group scopes: %m");
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
