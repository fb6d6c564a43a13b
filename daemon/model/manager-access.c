/* manager-access.c: who may do what to which thread, as the Manager decides it: the kernel's
 * ptrace rule for a target thread, perf_event_paranoid and pmapid.conf's groups for counting, and
 * the kernel-mode rule for reading (manager.h). The context table and its limits are manager.c. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "manager.h"
#include "thread-pin.h"

int manager_check_access(Manager *m, const Caller *caller, pid_t pid, pid_t tid, int *ret_pidfd,
                         AccessVerdict *ret_refusal) {
        _cleanup_close_ int pidfd = -1;
        TargetCreds t = {};
        AccessVerdict v;
        int r, yama;

        r = thread_pin(pid, tid, &pidfd);
        if (r < 0)
                return r;
        if (pid == caller->pid)
                v = ACCESS_SELF;        /* first party: no /proc reads on the hot path */
        else {
                yama = yama_ptrace_scope();
                /* Root's verdict needs no credentials of the target (access_check looks at them
                 * only after the root check). */
                if (caller->euid != 0) {
                        r = target_creds_read(pid, tid, caller->pid, &t);
                        if (r < 0)
                                return r;
                        if (yama == 1)
                                t.caller_is_ancestor = access_is_ancestor(caller->pid, pid);
                }
                t.is_daemon = pid == m->self_pid;
                v = access_check(caller, &t, yama);
                /* The credentials are the pinned thread's only if it still lives. */
                if (!thread_pin_alive(pidfd))
                        return -ESRCH;
        }
        if (!access_allowed(v)) {
                if (ret_refusal)
                        *ret_refusal = v;
                return -EPERM;
        }
        if (ret_pidfd)
                *ret_pidfd = TAKE_FD(pidfd);
        return 0;
}

int manager_check_context_access(Manager *m, const Caller *caller, const Context *c, int yama_scope) {
        TargetCreds t = { .is_daemon = c->pid == m->self_pid };
        int r;

        /* First party, and root's verdict, need no credentials of the target; others' come from
         * /proc under a pin of whatever thread has the context's tid now. */
        if (c->pid == caller->pid)
                r = 0;
        else if (caller->euid == 0)
                r = access_allowed(access_check(caller, &t, yama_scope)) ? 0 : -EPERM;
        else
                r = manager_check_access(m, caller, c->pid, c->tid, NULL, NULL);
        /* Where the verdict rests on the pid (first party) or on whoever holds the tid now (others),
         * the context's own thread must still live (its pidfd, or its pidfd inode): then the tid was
         * not recycled, and a dead thread's counts go to nobody who took its pid. Root may read any
         * thread; a thread that died a moment ago stays its row until pmapid handles the exit, which
         * spares root's reads a pidfd_open per context (about 8 us, measured: 4 ms a page of 1,000
         * became 11). */
        if (r >= 0 && caller->euid != 0 && !context_thread_alive(c))
                r = -ESRCH;
        return r;
}

Context *manager_lookup_fresh(Manager *m, pid_t tid) {
        Context *c = manager_lookup(m, tid);

        if (!c && m->fork_watch) {
                fork_watch_flush(m->fork_watch);
                c = manager_lookup(m, tid);
        }
        return c;
}

int manager_get_thread(Manager *m, const Caller *caller, pid_t pid, pid_t tid, Context **ret,
                       AccessVerdict *ret_refusal) {
        _cleanup_close_ int pidfd = -1;
        Context *c;
        int r;

        /* First party: a live context of the caller's own process is the caller's to use. */
        if (pid == caller->pid) {
                c = manager_lookup_fresh(m, tid);
                if (c && c->pid == pid) {
                        *ret = c;
                        return 0;
                }
        }
        r = manager_check_access(m, caller, pid, tid, &pidfd, ret_refusal);
        if (r == -ESRCH)
                (void) manager_lookup(m, tid);  /* a context of that dead thread goes now */
        if (r < 0)
                return r;
        /* The context's own pin and ours are both alive: the same thread. */
        c = manager_lookup_fresh(m, tid);
        if (!c || c->pid != pid)
                return -ENODATA;
        *ret = c;
        return 0;
}

int manager_check_read(const Manager *m, const Caller *caller, const Program *program, uid_t owner_uid) {
        /* The owner was granted the program when it was set, as the kernel grants at open. */
        if (caller->euid == owner_uid || caller->euid == 0 || !program_counts_kernel(program))
                return 0;
        return manager_caller_verdict(m, caller, program) < 0 ? -EACCES : 0;
}

int manager_counting_verdict(const Manager *m, uid_t uid, PolicyGrant grant, const Program *program) {
        bool kernel = program_counts_kernel(program);
        bool owner_ok = program_owner_may_count_kernel(program, m->events);
        int paranoid = access_policy_paranoid(grant, perf_event_paranoid());

        switch (caller_may_count(uid, paranoid, kernel, owner_ok)) {
        case COUNT_ALLOWED:
                return 0;
        case COUNT_KERNEL_DENIED:
                return -EACCES;
        default:
                return -EPERM;
        }
}

int manager_caller_verdict(const Manager *m, const Caller *caller, const Program *program) {
        return manager_counting_verdict(m, caller->euid, access_policy_grant(&m->policy, caller), program);
}

/* An owner not seen on the bus by this image (a re-exec or the fd store keeps contexts, not this
 * cache): its groups in the group database, as login would give them. */
static PolicyGrant database_grant(const Manager *m, uid_t uid) {
        struct passwd *pw = getpwuid(uid);
        gid_t groups[CALLER_MAX_GROUPS];
        int n = CALLER_MAX_GROUPS;
        Caller c = { .euid = uid, .egid = (gid_t) -1 };

        if (!pw)
                return POLICY_GRANT_NONE;
        c.egid = pw->pw_gid;
        if (getgrouplist(pw->pw_name, pw->pw_gid, groups, &n) < 0)
                n = CALLER_MAX_GROUPS;  /* more than fit: the first ones */
        c.n_groups = (unsigned) n;
        memcpy(c.groups, groups, (size_t) n * sizeof(gid_t));
        return access_policy_grant(&m->policy, &c);
}

int manager_owner_verdict(Manager *m, uid_t uid, const Program *program) {
        gpointer g = g_hash_table_lookup(m->uid_grants, GUINT_TO_POINTER(uid));
        PolicyGrant grant = g ? (PolicyGrant) (GPOINTER_TO_INT(g) - 1) : POLICY_GRANT_NONE;

        /* Once per uid: a lookup may be slow (a directory service), and new threads are many. */
        if (!g && uid != 0 && m->policy.user_mode.n + m->policy.kernel_mode.n > 0) {
                grant = database_grant(m, uid);
                g_hash_table_insert(m->uid_grants, GUINT_TO_POINTER(uid), GINT_TO_POINTER((int) grant + 1));
        }
        return manager_counting_verdict(m, uid, grant, program);
}

void manager_note_grant(Manager *m, const Caller *caller) {
        g_hash_table_insert(m->uid_grants, GUINT_TO_POINTER(caller->euid),
                            GINT_TO_POINTER((int) access_policy_grant(&m->policy, caller) + 1));
}
