/* manager-dbus-system.c: the system scope of the Manager interface, as a CpuScope (cpu-scope.h): a
 * context on every task, at most one a process; the caller is the bus sender's process. Refusals name
 * the owner's pid, so that a second tool can say who holds the counters. */
#include "bus-errors.h"
#include "bus-names.h"
#include "clock.h"
#include "log.h"
#include "macro.h"
#include "cpu-scope.h"
#include "manager-dbus.h"

static int system_error(sd_bus_error *error, Manager *m, int r) {
        switch (r) {
        case -EEXIST:
                return sd_bus_error_set(error, PMAPI_ERROR_CONTEXT_EXISTS,
                                        "This process owns a system-wide context already; delete it first");
        case -EBUSY:
                return sd_bus_error_setf(error, PMAPI_ERROR_SYSTEM_BUSY, "owned by pid %d",
                                         (int) manager_system_owner(m));
        case -EUSERS:
                return sd_bus_error_setf(error, PMAPI_ERROR_LIMIT_EXCEEDED,
                                         "This user's processes own %d system-wide contexts already (one per process); "
                                         "delete one first", SYSTEM_OWNERS_MAX_PER_UID);
        case -ENOTSUP:
                return sd_bus_error_set(error, PMAPI_ERROR_ROOT_REQUIRED,
                                        "the caller is not root; PM_PROCTREE counts its own process tree");
        case -ENODATA:
                return sd_bus_error_set(error, PMAPI_ERROR_NO_CONTEXT,
                                        "There is no system-wide context; set a system program first");
        case -EDQUOT:
                return sd_bus_error_set(error, PMAPI_ERROR_LIMIT_EXCEEDED,
                                        "This user's process trees have too many threads to count on every CPU "
                                        "(a quarter of MaxContexts between them)");
        case -EACCES:
                return sd_bus_error_set(error, PMAPI_ERROR_KERNEL_MODE_DENIED,
                                        "Kernel-mode counting of these events refused: kernel.perf_event_paranoid "
                                        "> 1 allows this caller user mode only; drop PM_KERNEL, run as root, or ask an "
                                        "administrator for [Access] KernelModeGroups= in pmapid.conf");
        case -EPERM:
                return sd_bus_error_set(error, PMAPI_ERROR_ACCESS_DENIED,
                                        "kernel.perf_event_paranoid forbids unprivileged perf; an administrator can allow "
                                        "it to a group with [Access] UserModeGroups= in pmapid.conf; or run as root");
        case -ENODEV:
                return sd_bus_error_set(error, PMAPI_ERROR_OPEN_FAILED,
                                        "The kernel refused to open these counters on the CPUs; try fewer or "
                                        "other events");
        case -ENFILE:
                return sd_bus_error_set(error, PMAPI_ERROR_LIMIT_EXCEEDED,
                                        "pmapid is out of file descriptors for the system-wide counters");
        case -ENXIO:
                return sd_bus_error_set(error, PMAPI_ERROR_NO_SUCH_CPU,
                                        "No such CPU, or it was not online since the system program was set");
        default:
                return sd_bus_error_set_errnof(error, r, "System-wide context: %m");
        }
}

static int fail(sd_bus_message *m, Manager *manager, sd_bus_error *error, const Caller *caller, uint64_t id,
                int r) {
        const char *method = sd_bus_message_get_member(m);
        const char *why = r == -EBUSY ? "another process counts every process" :
                          r == -EUSERS ? "this user owns its limit of system-wide contexts" :
                          r == -ENOTSUP ? "counting every process needs root" :
                          r == -EPERM ? "kernel.perf_event_paranoid forbids unprivileged perf (no [Access] grant)" :
                          r == -EACCES ? "kernel-mode counting refused by kernel.perf_event_paranoid (no [Access] "
                                        "KernelModeGroups grant)" : NULL;

        char more[96];

        if (why && manager_log_budget(manager, caller->euid, more, sizeof(more)))
                log_info("Refused %s to pid %d uid %u: %s%s.", method, (int) caller->pid, (unsigned) caller->euid,
                         why, more);
        return system_error(error, manager, r);
}

static int read_no_target(sd_bus_message *m, uint64_t *ret_id) {
        *ret_id = 0;
        return 0;
}

static int resolve(sd_bus_message *m, Manager *manager, sd_bus_error *error, Caller *ret_caller, uint64_t *ret_id,
                   SystemContext **ret) {
        int r;

        *ret_id = 0;
        r = manager_bus_caller(m, manager, error, ret_caller);
        if (r < 0)
                return r;
        r = manager_get_system(manager, ret_caller, ret);
        if (r < 0)
                return fail(m, manager, error, ret_caller, 0, r);
        return 0;
}

static int set(Manager *manager, const Caller *caller, uint64_t id, const Program *p) {
        return manager_set_system_program(manager, caller, p);
}

static int start(Manager *manager, const Caller *caller, SystemContext *s) {
        return system_start(s);
}

static void delete(Manager *manager, SystemContext *s) {
        manager_delete_system(manager, s->owner_pid);
}

const CpuScope cpu_scope_system = {
        .resolve = resolve,
        .read_target = read_no_target,
        .set = set,
        .start = start,
        .delete = delete,
        .fail = fail,
};

const sd_bus_vtable cpu_scope_system_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("SetSystemProgram", SD_BUS_ARGS("i", mode, "ai", events), SD_BUS_NO_RESULT,
                                cpu_scope_set_program, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetSystemProgram", SD_BUS_NO_ARGS, SD_BUS_RESULT("i", mode, "ai", events),
                                cpu_scope_get_program, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("DeleteSystemProgram", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT,
                                cpu_scope_delete_program, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("StartSystem", SD_BUS_NO_ARGS, SD_BUS_RESULT("t", timestamp_ns),
                                cpu_scope_start, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("StopSystem", SD_BUS_NO_ARGS, SD_BUS_RESULT("t", timestamp_ns),
                                cpu_scope_stop, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ResetSystemData", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT,
                                cpu_scope_reset_data, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetSystemData", SD_BUS_NO_ARGS,
                                SD_BUS_RESULT("ax", data, "t", timestamp_ns, "t", enabled_ns, "t", running_ns),
                                cpu_scope_get_data, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetCpuData", SD_BUS_ARGS("u", id, "b", logical),
                                SD_BUS_RESULT("ax", data, "t", timestamp_ns, "u", cpu, "t", enabled_ns,
                                              "t", running_ns),
                                cpu_scope_get_cpu_data, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetSystemProgramMx",
                                SD_BUS_ARGS("i", slice_ms, "b", multi_mode, "a(iai)", sets),
                                SD_BUS_NO_RESULT, cpu_scope_set_program_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetSystemProgramMx", SD_BUS_NO_ARGS,
                                SD_BUS_RESULT("i", slice_ms, "b", multi_mode, "a(iai)", sets),
                                cpu_scope_get_program_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetSystemDataMx", SD_BUS_NO_ARGS,
                                SD_BUS_RESULT("a(axtt)", sets, "t", timestamp_ns, "u", rounds),
                                cpu_scope_get_data_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetCpuDataMx", SD_BUS_ARGS("u", id, "b", logical),
                                SD_BUS_RESULT("a(axtt)", sets, "t", timestamp_ns, "u", rounds),
                                cpu_scope_get_cpu_data_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END
};
