/* manager-dbus-cgroup.c: the cgroup scope of the Manager interface (AIX's _wp calls), as a CpuScope
 * (cpu-scope.h), and ListCgroups: a cgroup is named by its path in ListCgroups and by its id
 * everywhere else; each context is the calling process's own. */
#include <inttypes.h>

#include "bus-errors.h"
#include "bus-names.h"
#include "clock.h"
#include "comm-text.h"
#include "cpu-scope.h"
#include "log.h"
#include "macro.h"
#include "manager-dbus.h"

static int cgroup_error(sd_bus_error *error, uint64_t id, int r) {
        switch (r) {
        case -ENOENT:
                return sd_bus_error_setf(error, PMAPI_ERROR_NO_SUCH_CGROUP,
                                         "No such cgroup (id %" PRIu64 "), or it was removed", id);
        case -ENOTDIR:
                /* A file of the hierarchy (its cgroup.procs, say) has an inode number as well. */
                return sd_bus_error_setf(error, PMAPI_ERROR_NOT_A_CGROUP,
                                         "Id %" PRIu64 " names a file of the cgroup hierarchy, not a cgroup", id);
        case -ENOMEDIUM:
                return sd_bus_error_set(error, PMAPI_ERROR_NO_CGROUP_HIERARCHY,
                                        "No cgroup v2 hierarchy is mounted on this machine");
        case MANAGER_CGROUP_NOT_DELEGATED:
                return sd_bus_error_set(error, PMAPI_ERROR_CGROUP_ACCESS,
                                        "Only root, or the owner of a delegated cgroup (its directory and "
                                        "cgroup.procs), may count it");
        case MANAGER_CGROUP_FOREIGN:
                return sd_bus_error_set(error, PMAPI_ERROR_CGROUP_ACCESS,
                                        "The cgroup holds a process this caller may not trace (another user's, "
                                        "or a set-id program)");
        case -EEXIST:
                return sd_bus_error_set(error, PMAPI_ERROR_CONTEXT_EXISTS,
                                        "This process counts that cgroup already; delete its program first");
        case -ENODATA:
                return sd_bus_error_setf(error, PMAPI_ERROR_NO_CONTEXT,
                                         "This process does not count cgroup %" PRIu64 "; set a program first", id);
        case -EINVAL:
                return sd_bus_error_set(error, PMAPI_ERROR_INVALID_MODE,
                                        "PM_PROCTREE does not apply to a cgroup: its context counts every task in it");
        case -EUSERS:
                return sd_bus_error_setf(error, PMAPI_ERROR_LIMIT_EXCEEDED,
                                         "This user's processes count %d cgroups already; delete one first",
                                         SYSTEM_OWNERS_MAX_CGROUPS_PER_UID);
        case -EDQUOT:
                return sd_bus_error_set(error, PMAPI_ERROR_LIMIT_EXCEEDED,
                                        "Too many processes in the cgroup to check them, or this user's cgroup "
                                        "and process-tree counters would pass a quarter of MaxContexts");
        case -EACCES:
                return sd_bus_error_set(error, PMAPI_ERROR_KERNEL_MODE_DENIED,
                                        "Kernel-mode counting refused: kernel.perf_event_paranoid > 1 allows this "
                                        "caller user mode only; drop PM_KERNEL, run as root, or ask an administrator "
                                        "for [Access] KernelModeGroups= in pmapid.conf");
        case -EPERM:
                return sd_bus_error_set(error, PMAPI_ERROR_ACCESS_DENIED,
                                        "kernel.perf_event_paranoid forbids unprivileged perf; an administrator can "
                                        "allow it to a group with [Access] UserModeGroups= in pmapid.conf");
        case -ENODEV:
                return sd_bus_error_set(error, PMAPI_ERROR_OPEN_FAILED,
                                        "The kernel refused to open these counters for the cgroup on the CPUs");
        case MANAGER_CGROUP_NO_PERF:
                return sd_bus_error_setf(error, PMAPI_ERROR_OPEN_FAILED,
                                         "This kernel has no perf state for cgroup %" PRIu64 ": before Linux 6.x "
                                         "perf counts a cgroup only where its parent's cgroup.subtree_control "
                                         "enables a controller (systemd enables them in its slices); enable one "
                                         "there, e.g. +pids", id);
        case MANAGER_CGROUP_NO_HANDLE:
                return sd_bus_error_setf(error, PMAPI_ERROR_OPEN_FAILED,
                                         "The kernel refused pmapid cgroup %" PRIu64 " by its id: "
                                         "open_by_handle_at(2) needs CAP_DAC_READ_SEARCH in pmapid's capability "
                                         "bounding set, and a container's seccomp filter may refuse the call", id);
        case -ENFILE:
                return sd_bus_error_set(error, PMAPI_ERROR_LIMIT_EXCEEDED,
                                        "pmapid is out of file descriptors for cgroup counters");
        case -ENXIO:
                return sd_bus_error_set(error, PMAPI_ERROR_NO_SUCH_CPU,
                                        "No such CPU, or it was not online since the cgroup program was set");
        default:
                return sd_bus_error_set_errnof(error, r, "Cgroup context: %m");
        }
}

/* A refusal of who may count, logged within the uid's budget. */
static int fail(sd_bus_message *m, Manager *manager, sd_bus_error *error, const Caller *caller, uint64_t id,
                int r) {
        const char *why = r == MANAGER_CGROUP_NOT_DELEGATED ? "neither root nor the cgroup's delegated owner" :
                          r == MANAGER_CGROUP_FOREIGN ? "the cgroup holds a process it may not trace" :
                          r == -EPERM ? "kernel.perf_event_paranoid forbids unprivileged perf (no [Access] grant)" :
                          r == -EACCES ? "kernel-mode counting refused (no [Access] KernelModeGroups grant)" : NULL;
        char more[96];

        if (why && manager_log_budget(manager, caller->euid, more, sizeof(more)))
                log_info("Refused %s on cgroup %" PRIu64 " to pid %d uid %u: %s%s.", sd_bus_message_get_member(m), id,
                         (int) caller->pid, (unsigned) caller->euid, why, more);
        return cgroup_error(error, id, r);
}

static int read_target(sd_bus_message *m, uint64_t *ret_id) {
        return sd_bus_message_read(m, "t", ret_id);
}

static int resolve(sd_bus_message *m, Manager *manager, sd_bus_error *error, Caller *ret_caller, uint64_t *ret_id,
                   SystemContext **ret) {
        int r;

        r = read_target(m, ret_id);
        if (r < 0)
                return r;
        r = manager_bus_caller(m, manager, error, ret_caller);
        if (r < 0)
                return r;
        r = manager_get_cgroup(manager, ret_caller, *ret_id, ret);
        if (r < 0)
                return fail(m, manager, error, ret_caller, *ret_id, r);
        return 0;
}

static void delete(Manager *manager, SystemContext *s) {
        system_owners_remove_context(manager->systems, s);
}

const CpuScope cpu_scope_cgroup = {
        .resolve = resolve,
        .read_target = read_target,
        .set = manager_set_cgroup_program,
        .start = manager_start_cgroup,
        .delete = delete,
        .fail = fail,
        .reports_removed = true,
};

const sd_bus_vtable cpu_scope_cgroup_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("SetCgroupProgram", SD_BUS_ARGS("t", cgroup, "i", mode, "ai", events),
                                SD_BUS_NO_RESULT, cpu_scope_set_program, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetCgroupProgram", SD_BUS_ARGS("t", cgroup), SD_BUS_RESULT("i", mode, "ai", events),
                                cpu_scope_get_program, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("DeleteCgroupProgram", SD_BUS_ARGS("t", cgroup), SD_BUS_NO_RESULT,
                                cpu_scope_delete_program, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("StartCgroup", SD_BUS_ARGS("t", cgroup), SD_BUS_RESULT("t", timestamp_ns),
                                cpu_scope_start, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("StopCgroup", SD_BUS_ARGS("t", cgroup), SD_BUS_RESULT("t", timestamp_ns),
                                cpu_scope_stop, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ResetCgroupData", SD_BUS_ARGS("t", cgroup), SD_BUS_NO_RESULT,
                                cpu_scope_reset_data, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetCgroupData", SD_BUS_ARGS("t", cgroup),
                                SD_BUS_RESULT("ax", data, "t", timestamp_ns, "b", removed, "t", enabled_ns,
                                              "t", running_ns),
                                cpu_scope_get_data, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetCgroupCpuData", SD_BUS_ARGS("t", cgroup, "u", id, "b", logical),
                                SD_BUS_RESULT("ax", data, "t", timestamp_ns, "u", cpu, "t", enabled_ns,
                                              "t", running_ns),
                                cpu_scope_get_cpu_data, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetCgroupProgramMx",
                                SD_BUS_ARGS("t", cgroup, "i", slice_ms, "b", multi_mode, "a(iai)", sets),
                                SD_BUS_NO_RESULT, cpu_scope_set_program_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetCgroupProgramMx", SD_BUS_ARGS("t", cgroup),
                                SD_BUS_RESULT("i", slice_ms, "b", multi_mode, "a(iai)", sets),
                                cpu_scope_get_program_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetCgroupDataMx", SD_BUS_ARGS("t", cgroup),
                                SD_BUS_RESULT("a(axtt)", sets, "t", timestamp_ns, "u", rounds),
                                cpu_scope_get_data_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetCgroupCpuDataMx", SD_BUS_ARGS("t", cgroup, "u", id, "b", logical),
                                SD_BUS_RESULT("a(axtt)", sets, "t", timestamp_ns, "u", rounds),
                                cpu_scope_get_cpu_data_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END
};

int method_list_cgroups(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(cgroup_listing_done) CgroupListing l = {};
        Manager *manager = userdata;
        const char *path;
        Caller caller;
        int subtree, r;

        r = sd_bus_message_read(m, "sb", &path, &subtree);
        if (r < 0)
                return r;
        r = manager_bus_caller(m, manager, error, &caller);
        if (r < 0)
                return r;
        r = manager_list_cgroups(manager, &caller, path, subtree, &l);
        switch (r) {
        case -EINVAL:
                return sd_bus_error_setf(error, PMAPI_ERROR_NOT_A_CGROUP,
                                         "'%s' is not a cgroup path: empty, too long, or with a '..' component",
                                         path);
        case -ELOOP:
                return sd_bus_error_setf(error, PMAPI_ERROR_NOT_A_CGROUP,
                                         "'%s' goes through a symbolic link: name the cgroup by its own path", path);
        case -ENOTDIR:
                return sd_bus_error_setf(error, PMAPI_ERROR_NOT_A_CGROUP,
                                         "'%s' is a file, not a cgroup directory", path);
        case -ENOENT:
                return sd_bus_error_setf(error, PMAPI_ERROR_NO_SUCH_CGROUP,
                                         "No cgroup '%s' under the cgroup v2 hierarchy", path);
        case -EDQUOT:
                return sd_bus_error_setf(error, PMAPI_ERROR_LIMIT_EXCEEDED,
                                         "More than %d cgroups at and below '%s'; name a smaller subtree",
                                         MANAGER_CGROUP_LIST_MAX, path);
        default:
                if (r < 0)
                        return cgroup_error(error, 0, r);
        }
        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(tsb)");
        for (size_t i = 0; r >= 0 && i < l.n; i++) {
                _cleanup_free_ char *text = text_to_utf8_dup(l.entries[i].path, false);

                r = text ? sd_bus_message_append(reply, "(tsb)", l.entries[i].id, text, (int) l.removed[i]) : -ENOMEM;
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}
