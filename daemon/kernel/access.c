/* access.c: see access.h. The order of the checks follows the kernel's __ptrace_may_access() and
 * Yama's ptrace_access_check(): same thread group, privilege, then identity, then dumpability, then
 * Yama. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "access.h"
#include "macro.h"
#include "perf-syscall.h"
#include "thread-pin.h"

DEFINE_FREEP(FILE, fclose);

static bool all_equal(const unsigned v[3], unsigned to) {
        return v[0] == to && v[1] == to && v[2] == to;
}

AccessVerdict access_check(const Caller *caller, const TargetCreds *t, int yama_scope) {
        /* The kernel lets every thread of a process at the others (same thread group). */
        if (t->same_process)
                return ACCESS_SELF;
        /* Counting pmapid would count its own bus work and let a process group of it hold the
         * daemon's threads: refused even to root, who has perf(1) for that. */
        if (t->is_daemon)
                return ACCESS_DENIED_DAEMON;
        /* Yama's "no attach": not even CAP_SYS_PTRACE may attach. */
        if (yama_scope >= 3)
                return ACCESS_DENIED_YAMA;
        if (caller->euid == 0)
                return ACCESS_ROOT;
        /* An attached tracer already passed the kernel's own check. A descendant of it with its euid
         * could ptrace the tracer itself, and through it the target. */
        if (t->tracer > 0 && (t->tracer == caller->pid ||
                              (t->caller_descends_from_tracer && t->tracer_euid == caller->euid)))
                return ACCESS_TRACER;
        if (!all_equal(t->uid, t->uid[0]) || !all_equal(t->gid, t->gid[0]))
                return t->uid[0] == caller->euid || t->uid[1] == caller->euid ? ACCESS_DENIED_SET_ID :
                                                                                ACCESS_DENIED_OTHER_USER;
        if (t->uid[0] != caller->euid)
                return ACCESS_DENIED_OTHER_USER;
        if (t->gid[0] != caller->egid)
                return ACCESS_DENIED_OTHER_GROUP;
        if (!t->dumpable)
                return ACCESS_DENIED_NOT_DUMPABLE;
        if (yama_scope >= 2 || (yama_scope == 1 && !t->caller_is_ancestor))
                return ACCESS_DENIED_YAMA;
        return ACCESS_OWNER;
}

bool access_allowed(AccessVerdict v) {
        return v == ACCESS_SELF || v == ACCESS_ROOT || v == ACCESS_TRACER || v == ACCESS_OWNER;
}

const char *access_verdict_reason(AccessVerdict v) {
        static const char *const reasons[_ACCESS_VERDICT_MAX] = {
                [ACCESS_SELF] = "allowed: a thread of the caller's own process",
                [ACCESS_ROOT] = "allowed: the caller is root",
                [ACCESS_TRACER] = "allowed: the caller traces the target",
                [ACCESS_OWNER] = "allowed: the caller owns the target",
                [ACCESS_DENIED_OTHER_USER] = "the target belongs to another user; run as that user or as root, "
                                             "or trace it",
                [ACCESS_DENIED_OTHER_GROUP] = "the target runs with another group id than the caller's; run "
                                              "with that group or as root, or trace it",
                [ACCESS_DENIED_SET_ID] = "the target runs a set-id program (its uids or gids differ); only root "
                                         "or its tracer may count it",
                [ACCESS_DENIED_NOT_DUMPABLE] = "the target is not dumpable (prctl PR_SET_DUMPABLE 0 or a "
                                               "privileged exec); only root or its tracer may count it",
                [ACCESS_DENIED_YAMA] = "kernel.yama.ptrace_scope forbids it; attach as the target's parent, "
                                       "as its tracer or as root",
                [ACCESS_DENIED_DAEMON] = "the target is a thread of pmapid itself, which pmapid never counts; "
                                         "use perf(1) as root for that",
        };
        return v >= 0 && v < _ACCESS_VERDICT_MAX ? reasons[v] : "invalid verdict";
}

bool access_is_ancestor(pid_t ancestor, pid_t pid) {
        for (int depth = 0; pid > 1 && depth < 4096; depth++) {
                pid = proc_parent_pid(pid);
                if (pid == ancestor)
                        return true;
        }
        return false;
}

/* TracerPid names the tracing thread: its process and euid, read under a pin of that thread, and
 * only if the target is still traced by it afterwards. */
static void read_tracer(const char *target_status, pid_t tracer_tid, pid_t caller_pid, TargetCreds *t) {
        _cleanup_close_ int pin = thread_pin_open(tracer_tid);
        _cleanup_(fclosep) FILE *f = NULL;
        char path[64], line[256];
        unsigned uid[2];
        int tgid = 0, again = -1, found = 0;

        t->tracer = 0;
        if (pin < 0)
                return;
        (void) snprintf(path, sizeof(path), "/proc/%d/status", (int) tracer_tid);
        f = fopen(path, "re");
        while (f && fgets(line, sizeof(line), f)) {
                if (sscanf(line, "Tgid: %d", &tgid) == 1)
                        found |= 1;
                else if (sscanf(line, "Uid: %u %u", &uid[0], &uid[1]) == 2)
                        found |= 2;
        }
        if (found != 3 || !thread_pin_alive(pin))
                return;
        fclose(TAKE_PTR(f));
        f = fopen(target_status, "re");
        while (f && fgets(line, sizeof(line), f))
                if (sscanf(line, "TracerPid: %d", &again) == 1)
                        break;
        if (again != tracer_tid)
                return;
        t->tracer = tgid;
        t->tracer_euid = uid[1];
        t->caller_descends_from_tracer = access_is_ancestor(tgid, caller_pid);
}

int target_creds_read(pid_t pid, pid_t tid, pid_t caller_pid, TargetCreds *ret) {
        _cleanup_(fclosep) FILE *f = NULL;
        TargetCreds t = {};
        char path[96], line[256];
        int found = 0;
        struct stat st;

        (void) snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int) pid, (int) tid);
        f = fopen(path, "re");
        if (!f)
                return -ESRCH;
        while (fgets(line, sizeof(line), f)) {
                if (sscanf(line, "Uid: %u %u %u", &t.uid[0], &t.uid[1], &t.uid[2]) == 3)
                        found |= 1;
                else if (sscanf(line, "Gid: %u %u %u", &t.gid[0], &t.gid[1], &t.gid[2]) == 3)
                        found |= 2;
                else if (sscanf(line, "TracerPid: %d", &t.tracer) == 1)
                        found |= 4;
        }
        if (found != 7)
                return -ESRCH;
        /* The kernel hands a non-dumpable task's /proc files to root (task_dump_owner()); its
         * directories keep their owner. */
        if (fstat(fileno(f), &st) < 0)
                return -ESRCH;
        t.dumpable = st.st_uid == t.uid[1];
        t.same_process = pid == caller_pid;
        if (t.tracer > 0)
                read_tracer(path, t.tracer, caller_pid, &t);
        *ret = t;
        return 0;
}

int yama_ptrace_scope(void) {
        _cleanup_(fclosep) FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
        int v;

        if (!f)
                return 0;
        return fscanf(f, "%d", &v) == 1 ? v : 3;
}
