/* manager-system.c: the system scope's rules (docs/design.md, A6). Each process may own one
 * system-wide context (system-owners.h), from SetSystemProgram until DeleteSystemProgram or its
 * exit, and only it acts on it. Counting every process needs root, and only one process at a time
 * counts every process (AIX's single system-wide context: SystemBusy names its owner); anyone
 * may count their own process tree (PM_PROCTREE), which the kernel lets them do themselves, beside
 * everyone else's, up to SYSTEM_OWNERS_MAX_PER_UID per user. Thread and group contexts live on
 * beside them: perf has no reason to forbid both at once. */
#include <errno.h>
#include <stdlib.h>

#include <glib.h>

#include "cpu-list.h"
#include "log.h"
#include "macro.h"
#include "manager.h"
#include "proc-tree.h"

/* A process-tree context costs a group of up to MAX_COUNTERS fds per thread and CPU: one uid's
 * process trees together may take a quarter of what pmapid's fd limit allows for contexts, and
 * never more than this many threads each. */
#define SYSTEM_MAX_TREE_THREADS 1024

void manager_delete_system(Manager *m, pid_t owner_pid) {
        system_owners_remove(m->systems, owner_pid);
}

/* The threads a process-tree context counts: every thread of the caller's process and of its
 * descendants that the caller may act on (others, e.g. set-id children, are left out). */
static int tree_threads(Manager *m, const Caller *caller, pid_t **ret, size_t *ret_n) {
        _cleanup_free_ ProcThread *all = NULL;
        _cleanup_free_ pid_t *tids = NULL;
        size_t n_all, n = 0;
        int r;

        r = proc_tree_threads(caller->pid, SYSTEM_MAX_TREE_THREADS, &all, &n_all);
        if (r == -E2BIG)
                return -EDQUOT;
        if (r < 0)
                return r;
        tids = calloc(n_all ? n_all : 1, sizeof(pid_t));
        if (!tids)
                return -ENOMEM;
        for (size_t i = 0; i < n_all; i++) {
                _cleanup_close_ int pidfd = -1;
                AccessVerdict v;

                if (manager_check_access(m, caller, all[i].pid, all[i].tid, &pidfd, &v) < 0)
                        continue;
                tids[n++] = all[i].tid;
        }
        *ret = TAKE_PTR(tids);
        *ret_n = n;
        return 0;
}

int manager_set_system_program(Manager *m, const Caller *caller, const Program *program) {
        _cleanup_free_ pid_t *tree = NULL;
        _cleanup_free_ bool *online = NULL;
        bool proctree = program_proctree(program);
        size_t n_cpus, n_tree = 0;
        SystemContext *s;
        int r;

        if (system_owners_get(m->systems, caller->pid))
                return -EEXIST;
        if (!proctree && caller->euid != 0)
                return -ENOTSUP;
        if (!proctree && m->systems->every_process)
                return -EBUSY;
        if (system_owners_count_uid(m->systems, caller->euid, false) >= SYSTEM_OWNERS_MAX_PER_UID)
                return -EUSERS;
        r = manager_caller_verdict(m, caller, program);
        if (r < 0)
                return r;
        r = cpu_list_n_possible(&n_cpus);
        if (r < 0)
                return r;
        r = cpu_list_read(CPU_LIST_ONLINE, n_cpus, &online);
        if (r < 0)
                return r;
        if (proctree) {
                size_t n_online = 0;

                r = tree_threads(m, caller, &tree, &n_tree);
                if (r < 0)
                        return r;
                for (size_t cpu = 0; cpu < n_cpus; cpu++)
                        n_online += online[cpu];
                /* The uid's process trees together, so that more of them buy no more fds. */
                if (system_owners_groups_uid(m->systems, caller->euid) + n_tree * n_online * program_n_sets(program) >
                    MAX(m->max_contexts / 4, 1u))
                        return -EDQUOT;
        }
        r = system_new(m->backend, m->events, program, caller->pid, caller->euid, proctree ? tree : NULL, n_tree,
                       online, n_cpus, &s);
        if (r == -EMFILE || r == -ENFILE)
                return -ENFILE;
        if (r == -EINVAL || r == -ENOENT || r == -EOPNOTSUPP)
                return -ENODEV;
        if (r < 0)
                return r;
        r = system_owners_add(m->systems, s);
        if (r < 0)
                return r;
        log_info("System-wide context set by pid %d uid %u (%s, %zu threads, mode 0x%x).", (int) caller->pid,
                 (unsigned) caller->euid, proctree ? "process tree" : "every process", n_tree,
                 (unsigned) program->mode);
        return 0;
}

int manager_get_system(Manager *m, const Caller *caller, SystemContext **ret) {
        SystemContext *s = system_owners_get(m->systems, caller->pid);

        if (!s)
                return m->systems->every_process ? -EBUSY : -ENODATA;
        system_owners_sync_cpus(m->systems);
        *ret = s;
        return 0;
}

pid_t manager_system_owner(const Manager *m) {
        return m->systems->every_process ? m->systems->every_process->owner_pid : 0;
}
