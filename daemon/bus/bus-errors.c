/* bus-errors.c: errno and ProgramError to named D-Bus errors (names from bus-names.h). */
#include <errno.h>
#include <string.h>

#include "bus-errors.h"
#include "bus-names.h"
#include "macro.h"

static const struct {
        int error;
        const char *name;
        const char *format;             /* takes tid, then pid */
} errno_map[] = {
        { ESRCH,   PMAPI_ERROR_NO_SUCH_THREAD,
          "Thread %d is not a live thread of process %d" },
        { EEXIST,  PMAPI_ERROR_CONTEXT_EXISTS,
          "Thread %d (pid %d) already has a context; delete it before setting a new program" },
        { ENODATA, PMAPI_ERROR_NO_CONTEXT,
          "Thread %d (pid %d) has no context; set a program first" },
        { ENOLINK, PMAPI_ERROR_NO_GROUP,
          "Thread %d (pid %d) is not a member of a counting group; create one with a group program" },
        { EBUSY,   PMAPI_ERROR_CONTEXT_EXISTS,
          "Thread %d of process %d already has a context; a process group needs every thread of "
          "the process free: delete the thread contexts first" },
        { EDQUOT,  PMAPI_ERROR_LIMIT_EXCEEDED,
          "Cannot create a context on thread %d (pid %d): this user has reached its context limit "
          "(MaxContextsPerUser in pmapid.conf); delete unused contexts" },
        { ENFILE,  PMAPI_ERROR_LIMIT_EXCEEDED,
          "Cannot create a context on thread %d (pid %d): pmapid holds as many contexts as its file "
          "descriptors allow (MaxContexts in pmapid.conf); delete unused contexts" },
        { EPERM,   PMAPI_ERROR_ACCESS_DENIED,
          "Counting thread %d (pid %d) refused: kernel.perf_event_paranoid forbids unprivileged "
          "perf; an administrator can allow it to a group with [Access] UserModeGroups= in pmapid.conf, "
          "or lower it; or run as root" },
        { EACCES,  PMAPI_ERROR_KERNEL_MODE_DENIED,
          "Kernel-mode counting on thread %d (pid %d) refused: kernel.perf_event_paranoid > 1 allows "
          "only user mode for these events to this caller; drop PM_KERNEL, run as root, or ask an "
          "administrator for [Access] KernelModeGroups= in pmapid.conf" },
        { ENODEV,  PMAPI_ERROR_OPEN_FAILED,
          "The kernel refused to open these counters on thread %d (pid %d); try fewer or other events" },
        { ENOSPC,  PMAPI_ERROR_OPEN_FAILED,
          "These counters on thread %d (pid %d) could never count: pmapid pins some of the CPU PMU's "
          "counters for programs it carries inside the kernel ([Limits] CarriedCounters in "
          "pmapid.conf), and these hardware events need more than are left; try fewer hardware events" },
        { ENOMEM,  PMAPI_ERROR_NO_MEMORY,
          "pmapid is out of memory (thread %d, pid %d)" },
};

const char *bus_error_name_from_errno(int r) {
        for (size_t i = 0; i < ELEMENTSOF(errno_map); i++)
                if (errno_map[i].error == -r)
                        return errno_map[i].name;
        return SD_BUS_ERROR_FAILED;
}

int bus_error_thread(sd_bus_error *error, int r, pid_t pid, pid_t tid) {
        for (size_t i = 0; i < ELEMENTSOF(errno_map); i++)
                if (errno_map[i].error == -r)
                        return sd_bus_error_setf(error, errno_map[i].name, errno_map[i].format,
                                                 (int) tid, (int) pid);
        return sd_bus_error_set_errnof(error, r, "Thread %d (pid %d): %s", (int) tid, (int) pid,
                                       strerror(-r));
}

int bus_error_caller(sd_bus_error *error, int r) {
        if (r == -ESTALE)
                return sd_bus_error_set(error, PMAPI_ERROR_CALLER_GONE,
                                        "The process that opened this bus connection has exited or runs as another "
                                        "user now (its pid may be another process's): a forked child cannot act in "
                                        "its parent's name; open a new connection");
        return sd_bus_error_set_errno(error, r);
}

static const char *const refusal_names[_ACCESS_VERDICT_MAX] = {
        [ACCESS_DENIED_OTHER_USER] = PMAPI_ERROR_NOT_OWNER,
        [ACCESS_DENIED_OTHER_GROUP] = PMAPI_ERROR_NOT_OWNER,
        [ACCESS_DENIED_SET_ID] = PMAPI_ERROR_SET_ID_TARGET,
        [ACCESS_DENIED_NOT_DUMPABLE] = PMAPI_ERROR_NOT_DUMPABLE,
        [ACCESS_DENIED_YAMA] = PMAPI_ERROR_PTRACE_SCOPE,
        [ACCESS_DENIED_DAEMON] = PMAPI_ERROR_DAEMON_THREAD,
};

const char *bus_error_name_from_refusal(AccessVerdict v) {
        return v >= 0 && v < _ACCESS_VERDICT_MAX && refusal_names[v] ? refusal_names[v] : PMAPI_ERROR_NOT_OWNER;
}

int bus_error_target(sd_bus_error *error, int r, AccessVerdict refusal, pid_t pid, pid_t tid) {
        if (r != -EPERM || access_allowed(refusal))
                return bus_error_thread(error, r, pid, tid);
        return sd_bus_error_setf(error, bus_error_name_from_refusal(refusal), "Thread %d of process %d: %s",
                                 (int) tid, (int) pid, access_verdict_reason(refusal));
}

static const struct {
        const char *name;
        const char *message;
} program_map[_PROGRAM_ERROR_MAX] = {
        [PROGRAM_UNKNOWN_EVENT] = { PMAPI_ERROR_UNKNOWN_EVENT,
                                    "Counter %d names an event id that pm_init did not return" },
        [PROGRAM_INVALID_MODE]  = { PMAPI_ERROR_INVALID_MODE,
                                    "The mode word has bits this scope does not take (no_inherit and "
                                    "process not system-wide; wpar_all or spare bits)" },
        [PROGRAM_CONFLICTING_MODE] = { PMAPI_ERROR_INVALID_MODE,
                                    "proctree counts new threads and processes, which no_inherit (or a "
                                    "process group, PM_PROCESS) leaves out: set one or the other" },
        [PROGRAM_THRESHOLD]     = { PMAPI_ERROR_THRESHOLD,
                                    "No event on Linux is thresholdable; clear the threshold bits" },
        [PROGRAM_HYPERVISOR]    = { PMAPI_ERROR_HYPERVISOR,
                                    "Hypervisor-mode counting is not supported on Linux" },
        [PROGRAM_FOREIGN_LAYOUT] = { PMAPI_ERROR_FOREIGN_MODE_LAYOUT,
                                    "The mode word has bits in the threshold field and neither user nor kernel "
                                    "mode: it looks byte-swapped, or built from a copy of AIX's big-endian "
                                    "pm_mode_t; use <pmapi.h>'s pm_mode_t or PM_USER, PM_KERNEL, PM_COUNT..." },
        [PROGRAM_UNKNOWN_GROUP] = { PMAPI_ERROR_UNKNOWN_GROUP,
                                    "Event group %d (mode.b.is_group, events[0]) is not one GetGroups lists on "
                                    "this machine (POWER group ids such as 137 or 186-195 do not exist on Linux); "
                                    "pmlist -g lists them, or program the events themselves" },
        [PROGRAM_NO_EVENTS]     = { PMAPI_ERROR_NO_EVENTS,
                                    "Every counter is COUNT_NOTHING; program at least one event" },
        [PROGRAM_BAD_SLICE]     = { PMAPI_ERROR_BAD_SLICE,
                                    "slice_duration must be 10 .. 30000 ms" },
        [PROGRAM_BAD_SETS]      = { PMAPI_ERROR_BAD_SETS,
                                    "A multiplexed program needs 1 .. MaxSets event sets (pmapid.conf [Limits])" },
        [PROGRAM_SET_MODES_DISAGREE] = { PMAPI_ERROR_SET_MODES_DISAGREE,
                                    "The event sets disagree on their mode: _mx sets share one mode, and _mm "
                                    "sets must agree on the proctree, count, process and no_inherit bits" },
};

int bus_error_program(sd_bus_error *error, ProgramError e, int counter) {
        if (e <= PROGRAM_OK || e >= _PROGRAM_ERROR_MAX)
                return sd_bus_error_set(error, SD_BUS_ERROR_FAILED, "Invalid program");
        if (e == PROGRAM_UNKNOWN_EVENT && counter >= MAX_COUNTERS)
                return sd_bus_error_setf(error, program_map[e].name, "Set %d, counter %d names an event id "
                                         "that pm_init did not return", counter / MAX_COUNTERS,
                                         counter % MAX_COUNTERS);
        return sd_bus_error_setf(error, program_map[e].name, program_map[e].message, counter);
}
