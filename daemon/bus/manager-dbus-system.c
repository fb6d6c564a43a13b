/* manager-dbus-system.c: the system-scope methods of the Manager interface. The caller is the bus
 * sender's process; the system context is its if it set it. Refusals name the owner's pid, so that
 * a second tool can say who holds the counters. */
#include "bus-errors.h"
#include "bus-names.h"
#include "clock.h"
#include "log.h"
#include "macro.h"
#include "manager-dbus.h"

int manager_bus_system_error(sd_bus_error *error, Manager *m, int r) {
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

static int fail(sd_bus_message *m, Manager *manager, sd_bus_error *error, const Caller *caller, int r) {
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
        return manager_bus_system_error(error, manager, r);
}

int manager_bus_set_system_program(sd_bus_message *m, void *userdata, sd_bus_error *error, BusProgramReader read) {
        Manager *manager = userdata;
        Program program;
        Caller caller;
        int counter = -1;
        ProgramError pe;
        int r;

        r = manager_bus_caller(m, manager, error, &caller);
        if (r < 0)
                return r;
        r = read(m, error, &program);
        if (r >= 0)
                r = manager_bus_check_sets(manager, error, &program);
        if (r < 0)
                return r;
        pe = program_check_system(&program, manager->events, &counter);
        if (pe != PROGRAM_OK)
                return bus_error_program(error, pe, counter);
        r = manager_set_system_program(manager, &caller, &program);
        if (r < 0)
                return fail(m, manager, error, &caller, r);
        return sd_bus_reply_method_return(m, NULL);
}

int method_set_system_program(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return manager_bus_set_system_program(m, userdata, error, manager_bus_read_program);
}

int manager_bus_message_system(sd_bus_message *m, Manager *manager, sd_bus_error *error, SystemContext **ret) {
        Caller caller;
        int r;

        r = manager_bus_caller(m, manager, error, &caller);
        if (r < 0)
                return r;
        r = manager_get_system(manager, &caller, ret);
        if (r < 0)
                return fail(m, manager, error, &caller, r);
        return 0;
}

int method_get_system_program(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        SystemContext *s;
        Program p;
        int r;

        r = manager_bus_message_system(m, userdata, error, &s);
        if (r < 0)
                return r;
        p = system_get_program(s);
        return manager_bus_reply_program(m, &p);
}

int method_delete_system_program(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        SystemContext *s;
        int r;

        r = manager_bus_message_system(m, userdata, error, &s);
        if (r < 0)
                return r;
        manager_delete_system(userdata, s->owner_pid);
        return sd_bus_reply_method_return(m, NULL);
}

typedef int (*SystemOp)(SystemContext *s);

static int system_op(sd_bus_message *m, void *userdata, sd_bus_error *error, SystemOp op, bool stamped) {
        SystemContext *s;
        int r;

        r = manager_bus_message_system(m, userdata, error, &s);
        if (r < 0)
                return r;
        r = op(s);
        if (r < 0)
                return manager_bus_system_error(error, userdata, r);
        return manager_bus_reply_done(m, stamped);
}

int method_start_system(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return system_op(m, userdata, error, system_start, true);
}

int method_stop_system(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return system_op(m, userdata, error, system_stop, true);
}

int method_reset_system_data(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return system_op(m, userdata, error, system_reset, false);
}

int method_get_system_data(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        SystemContext *s;
        AcctVector accu;
        int r;

        r = manager_bus_message_system(m, userdata, error, &s);
        if (r < 0)
                return r;
        r = system_read(s, accu);
        if (r < 0)
                return manager_bus_system_error(error, userdata, r);
        return manager_bus_reply_data(m, accu, NULL, NULL);
}

int method_get_cpu_data(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        SystemContext *s;
        AcctVector accu;
        uint32_t id;
        int logical;
        unsigned cpu = 0;
        int r;

        r = sd_bus_message_read(m, "ub", &id, &logical);
        if (r < 0)
                return r;
        r = manager_bus_message_system(m, userdata, error, &s);
        if (r < 0)
                return r;
        r = system_cpu_by_id(s, id, logical, &cpu);
        if (r >= 0)
                r = system_read_cpu(s, cpu, accu);
        if (r < 0)
                return manager_bus_system_error(error, userdata, r);
        return manager_bus_reply_data(m, accu, &cpu, NULL);
}
