/* manager-system.c: the system scope's rules (AIX §4.11, DESIGN §8 A6). One process at a time owns
 * the system-wide context, from SetSystemProgram until DeleteSystemProgram or its exit; every call
 * but set from another process is refused. Counting every process needs root; anyone may count
 * their own process tree (PM_PROCTREE), which the kernel lets them do themselves. Thread and group
 * contexts live on beside it: perf has no reason to forbid both at once. CPUs that go on- or
 * offline are followed from uevents, and checked again at every call in case one was missed. */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/syscall.h>

#include <glib.h>

#include "cpu-list.h"
#include "log.h"
#include "macro.h"
#include "manager.h"
#include "proc-tree.h"

/* A process-tree context costs a group of up to MAX_COUNTERS fds per thread and CPU: it may take a
 * quarter of what pmapid's fd limit allows for contexts, and never more than this many threads. */
#define SYSTEM_MAX_TREE_THREADS 1024

void manager_delete_system(Manager *m) {
        if (!m->system)
                return;
        log_info("System-wide context of pid %d released.", (int) m->system->owner_pid);
        m->system_exit = sd_event_source_disable_unref(m->system_exit);
        if (m->system_pidfd >= 0)
                close(m->system_pidfd);
        m->system_pidfd = -1;
        m->cpu_watch = cpu_watch_free(m->cpu_watch);
        m->system = system_free(m->system);
}

static int on_owner_exit(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Manager *m = userdata;

        (void) s, (void) fd, (void) revents;
        log_info("Owner of the system-wide context (pid %d) exited.", m->system ? (int) m->system->owner_pid : 0);
        manager_delete_system(m);
        return 0;
}

static void apply_cpu(Manager *m, unsigned cpu, bool online) {
        int r;

        if (!m->system)
                return;
        r = online ? system_cpu_online(m->system, cpu) : system_cpu_offline(m->system, cpu);
        if (r < 0 && r != -ENXIO && r != -ENODEV)
                log_warning_errno(r, "Following CPU %u %s for the system-wide context failed: %m", cpu,
                                  online ? "online" : "offline");
}

static void on_cpu_change(unsigned cpu, bool online, void *userdata) {
        apply_cpu(userdata, cpu, online);
}

void manager_sync_cpus(Manager *m) {
        _cleanup_free_ bool *online = NULL;

        if (!m->system || cpu_list_read(CPU_LIST_ONLINE, m->system->n_cpus, &online) < 0)
                return;
        for (size_t cpu = 0; cpu < m->system->n_cpus; cpu++)
                if (online[cpu] != system_cpu_open(m->system, (unsigned) cpu))
                        apply_cpu(m, (unsigned) cpu, online[cpu]);
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

static int watch_owner(Manager *m, pid_t pid) {
        int r;

        m->system_pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        if (m->system_pidfd < 0)
                return -errno == -EINVAL ? -ESRCH : -errno;
        if (!m->event)
                return 0;
        r = sd_event_add_io(m->event, &m->system_exit, m->system_pidfd, EPOLLIN, on_owner_exit, m);
        if (r < 0)
                return r;
        r = cpu_watch_new(m->event, on_cpu_change, m, &m->cpu_watch);
        if (r < 0)                      /* not fatal: every call checks the online CPUs anyway */
                log_warning_errno(r, "Cannot follow CPU hotplug events: %m");
        return 0;
}

int manager_set_system_program(Manager *m, const Caller *caller, const Program *program) {
        _cleanup_free_ pid_t *tree = NULL;
        _cleanup_free_ bool *online = NULL;
        bool proctree = program_proctree(program);
        size_t n_cpus, n_tree = 0;
        int r;

        if (m->system)
                return m->system->owner_pid == caller->pid ? -EEXIST : -EBUSY;
        if (!proctree && caller->euid != 0)
                return -ENOTSUP;
        r = manager_counting_verdict(m, caller->euid, program);
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
                if (n_tree * n_online > MAX(m->max_contexts / 4, 1u))
                        return -EDQUOT;
        }
        r = system_new(m->backend, m->events, program, caller->pid, caller->euid, proctree ? tree : NULL, n_tree,
                       online, n_cpus, &m->system);
        if (r == -EMFILE || r == -ENFILE)
                return -ENFILE;
        if (r == -EINVAL || r == -ENOENT || r == -EOPNOTSUPP)
                return -ENODEV;
        if (r < 0)
                return r;
        r = watch_owner(m, caller->pid);
        if (r < 0) {
                manager_delete_system(m);
                return r;
        }
        log_info("System-wide context set by pid %d uid %u (%s, %zu threads, mode 0x%x).", (int) caller->pid,
                 (unsigned) caller->euid, proctree ? "process tree" : "every process", n_tree,
                 (unsigned) program->mode);
        return 0;
}

int manager_get_system(Manager *m, const Caller *caller, SystemContext **ret) {
        if (!m->system)
                return -ENODATA;
        if (m->system->owner_pid != caller->pid)
                return -EBUSY;
        manager_sync_cpus(m);
        *ret = m->system;
        return 0;
}

pid_t manager_system_owner(const Manager *m) {
        return m->system ? m->system->owner_pid : 0;
}
