/* pm-error.c: pm_error() and pm_strerror(): the text for every PM_E* code. */
#include <stdio.h>

#include "bus.h"
#include "macro.h"
#include "pmapi.h"

static const char *const messages[] = {
        [0]              = "Success",
        [PM_ENOTINIT]    = "The library is not initialized: call pm_init() or pm_initialize(..., PM_CURRENT) first",
        [PM_EFILTER]     = "The filter selects no event status: use PM_VERIFIED, PM_UNVERIFIED and/or PM_CAVEAT",
        [PM_EPROCTYPE]   = "Not the running processor: on Linux pm_initialize() takes PM_CURRENT or pm_get_procindex() (PM_LINUX_PERF), and cannot describe a POWER or PowerPC type",
        [PM_EFAULT]      = "A required pointer argument is NULL",
        [PM_EEVENT]      = "An event id was not returned by pm_init() for that counter (with that filter)",
        [PM_EMODE]       = "The mode word has bits this call does not take, or bits that contradict each other (wpar_all or spare bits; no_inherit or process system-wide; proctree with no_inherit, or with process in a group)",
        [PM_ENOCONTEXT]  = "No performance monitor context: the thread has none, or no system-wide one was set",
        [PM_ENOTHREAD]   = "No such thread, or the thread is not a thread of that process",
        [PM_EPERM]       = "Permission denied: kernel.perf_event_paranoid or the bus policy forbids it",
        [PM_EKERNELMODE] = "Kernel-mode counting refused for these events (kernel.perf_event_paranoid > 1): drop PM_KERNEL or run as root",
        [PM_ENODAEMON]   = "The pmapid daemon cannot be reached on the system bus: is it running?",
        [PM_EDAEMON]     = "The pmapid daemon gave an unexpected answer",
        [PM_ENOMEM]      = "Out of memory",
        [PM_ELIMIT]      = "This user, or pmapid as a whole, has reached its limit of contexts: delete unused ones",
        [PM_EOPEN]       = "The kernel refused to open these counters: try fewer or other events",
        [PM_ETHRESH]     = "Thresholds are not supported: no event on Linux is thresholdable",
        [PM_EHYPERVISOR] = "Hypervisor-mode counting is not supported on Linux",
        [PM_EGROUPS]     = "No such event group: mode.b.is_group names in events[0] a group id that pm_init(PM_GET_GROUPS) did not list on this machine (ids run from 0 to maxgroups - 1; POWER group ids such as 137 or 186-195 do not exist on Linux; pmlist -g lists those that do)",
        [PM_ENOEVENTS]   = "The program selects no event: every counter is COUNT_NOTHING",
        [PM_ENOGROUP]    = "The thread is not a member of a counting group: create one with pm_set_program_mygroup()",
        [PM_ENOTOWNER]   = "The thread belongs to another user or group: act as its owner or as root, or trace it",
        [PM_ESETID]      = "The thread runs a set-id program (its uids or gids differ): only root or its tracer may act on it",
        [PM_ENOTDUMPABLE] = "The thread is not dumpable (PR_SET_DUMPABLE 0 or a privileged exec): only root or its tracer may act on it",
        [PM_EPTRACESCOPE] = "kernel.yama.ptrace_scope forbids it: act from the thread's parent, as its tracer or as root",
        [PM_EDAEMONTHREAD] = "That is a thread of pmapid itself, which pmapid never counts",
        [PM_EPTID]       = "Linux threads are 1:1: ptid must be 0 or the thread's tid",
        [PM_ESYSBUSY]    = "Another process counts every process: wait until it calls pm_delete_program() or exits, or count a process tree (PM_PROCTREE) beside it",
        [PM_ESYSROOT]    = "Counting every process needs root: run as root or set PM_PROCTREE",
        [PM_ECPU]        = "No such processor, or it has not been online since pm_set_program()",
        [PM_ECALLERGONE] = "The process that opened this bus connection has exited or runs as another user now: a forked child cannot act in its parent's name",
        [PM_ERESTARTED]  = "pmapid restarted since this process set its program, and the contexts it held were lost: set the program again",
        [PM_ENOCGROUP]   = "No such cgroup: no cgroup at that path or with that id, or it was removed (pm_get_wplist lists them)",
        [PM_ECGROUPPATH] = "Not a cgroup path: a file, a '..' component, or a symbolic link on the way (name the cgroup by its path from the cgroup v2 root)",
        [PM_ECGROUPACCESS] = "Only root, or the owner of a delegated cgroup (its directory and cgroup.procs), may count it; and not while it holds a process the caller may not trace",
        [PM_ENOCGROUPV2] = "No cgroup v2 hierarchy is mounted on this machine",
        [PM_EMXSLICE]    = "The slice duration is outside 10 to 30000 ms (PM_MX_SLICE_MIN to PM_MX_SLICE_MAX)",
        [PM_EMXSETS]     = "Bad set count or set array: no set, more sets than pmapid's MaxSets (at most PM_MX_MAX_SETS, 16), or a NULL set array",
        [PM_EMXMODE]     = "The sets disagree on their mode: multi-mode sets must have the same PM_PROCTREE, PM_COUNT, PM_PROCESS and PM_NO_INHERIT bits",
        [PM_EMODELAYOUT] = "The mode word looks built for another bit-field layout: bits in the threshold field and neither PM_USER nor PM_KERNEL, as when pm_mode_t is copied in AIX's big-endian field order or the word is byte-swapped; use pm_mode_t from <pmapi.h> or the PM_USER, PM_KERNEL, PM_COUNT... values",
        [PM_EEXIST_AIX5] = "The context already exists: delete it before setting a new program (error 59 answered as 13 because PMAPI_EEXIST=13)",
        [PM_ENOTATTACHED] = "This thread was created in a counting group, but pmapid could not count it (a limit or its file descriptors): the group is partial",
        [PM_EEXIST]      = "The context already exists: delete it before setting a new program",
        [PM_ENOTSTARTED] = "Counting was never started",
};

char *pm_strerror(const char *where, int error) {
        (void) where;
        if (error < 0 || (size_t) error >= ELEMENTSOF(messages) || !messages[error])
                return (char *) "Unknown pmapi error code";
        return (char *) messages[error];
}

/* With pmapid's explanation of the same failure when this thread just had one: it names the
 * thread, the CPU or the process that owns the system-wide counters. */
void pm_error(const char *where, int error) {
        const char *detail = bus_last_detail(error);

        fprintf(stderr, "%s: %s%s%s%s\n", where ? where : "pmapi", pm_strerror(where, error),
                detail ? " (" : "", detail ? detail : "", detail ? ")" : "");
}
