/* manager-cgroup.c: the rules of cgroup contexts (AIX's _wp calls on Linux: a cgroup v2 is the
 * unit admins and container runtimes count, as AIX counts a WPAR). A cgroup context counts, on
 * every CPU, what the tasks of one cgroup and of its descendants do (perf's PERF_FLAG_PID_CGROUP),
 * from when they enter it. It belongs to the process that set it, until it deletes it or exits;
 * a process may count several cgroups, each once. Who may: root; and the owner of a delegated
 * cgroup (its directory and cgroup.procs are the caller's, cgroups(7) "Delegation"), in the modes
 * the access policy grants it, while every process in the subtree is one it may trace. The kernel
 * asks CPU-wide rights for cgroup counters (paranoid 0 or CAP_PERFMON): a delegated owner gets
 * them through pmapid only for a subtree that holds nothing but processes it could count one by
 * one. A cgroup that is removed while counted keeps its last counts (its counters outlive it). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup-fs.h"
#include "comm-text.h"
#include "cpu-list.h"
#include "log.h"
#include "macro.h"
#include "manager.h"

static const char *strnull(const char *s) {
        return s ? s : "?";
}

/* A delegated owner's subtree is checked process by process: larger ones are refused. */
#define CGROUP_MAX_CHECKED_PIDS 4096

/* Every process in the cgroup of fd may be traced by caller: 0, or MANAGER_CGROUP_FOREIGN. */
static int check_processes(Manager *m, const Caller *caller, int fd) {
        _cleanup_free_ pid_t *pids = NULL;
        size_t n;
        int r;

        r = cgroup_fs_pids(fd, CGROUP_MAX_CHECKED_PIDS, &pids, &n);
        if (r == -E2BIG)
                return -EDQUOT;
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                _cleanup_close_ int pidfd = -1;
                AccessVerdict v;

                r = manager_check_access(m, caller, pids[i], pids[i], &pidfd, &v);
                if (r == -ESRCH)
                        continue;               /* exited meanwhile */
                if (r < 0)
                        return MANAGER_CGROUP_FOREIGN;
        }
        return 0;
}

/* May caller count the cgroup of fd at all? */
static int check_cgroup(Manager *m, const Caller *caller, int fd) {
        if (caller->euid == 0)
                return 0;
        if (cgroup_fs_owned_by(fd, caller->euid) < 0)
                return MANAGER_CGROUP_NOT_DELEGATED;
        return check_processes(m, caller, fd);
}

int manager_set_cgroup_program(Manager *m, const Caller *caller, uint64_t cgroup_id, const Program *program) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        _cleanup_free_ bool *online = NULL;
        _cleanup_close_ int fd = -1;
        size_t n_cpus, n_online = 0;
        SystemContext *s;
        int r;

        if (program_proctree(program))
                return -EINVAL;
        r = cgroup_fs_open_id(cgroup_id, &fd, &path);
        if (r == -EPERM || r == -EACCES)
                return MANAGER_CGROUP_NO_HANDLE;
        if (r < 0)
                return r;
        if (system_owners_get_cgroup(m->systems, caller->pid, cgroup_id))
                return -EEXIST;
        r = check_cgroup(m, caller, fd);
        if (r < 0)
                return r;
        r = manager_caller_verdict(m, caller, program);
        if (r < 0)
                return r;
        if (system_owners_count_uid(m->systems, caller->euid, true) >= SYSTEM_OWNERS_MAX_CGROUPS_PER_UID)
                return -EUSERS;
        r = cpu_list_n_possible(&n_cpus);
        if (r < 0)
                return r;
        r = cpu_list_read(CPU_LIST_ONLINE, n_cpus, &online);
        if (r < 0)
                return r;
        for (size_t cpu = 0; cpu < n_cpus; cpu++)
                n_online += online[cpu];
        /* With the uid's process trees, within the quarter of MaxContexts they share. */
        if (system_owners_groups_uid(m->systems, caller->euid) + n_online * program_n_sets(program) >
            MAX(m->max_contexts / 4, 1u))
                return -EDQUOT;
        r = system_new_cgroup(m->backend, m->events, program, caller->pid, caller->euid, TAKE_FD(fd), cgroup_id,
                              path, online, n_cpus, &s);
        if (r == -EMFILE || r == -ENFILE)
                return -ENFILE;
        if (r == -EINVAL || r == -EOPNOTSUPP)
                return -ENODEV;
        if (r == -ENOENT)               /* the cgroup is there (fd holds it): perf is not */
                return MANAGER_CGROUP_NO_PERF;
        if (r < 0)
                return r;
        r = system_owners_add(m->systems, s);
        if (r < 0)
                return r;
        text = text_to_utf8_dup(path, /* escape_controls= */ true);
        log_info("Cgroup context set by pid %d uid %u on cgroup %" PRIu64 " (%s), mode 0x%x.", (int) caller->pid,
                 (unsigned) caller->euid, cgroup_id, strnull(text), (unsigned) program->mode);
        return 0;
}

int manager_get_cgroup(Manager *m, const Caller *caller, uint64_t cgroup_id, SystemContext **ret) {
        SystemContext *s = system_owners_get_cgroup(m->systems, caller->pid, cgroup_id);

        if (!s)
                return -ENODATA;
        if (!s->cgroup_removed && system_cgroup_removed(s)) {
                _cleanup_free_ char *text = text_to_utf8_dup(s->cgroup_path, /* escape_controls= */ true);

                log_info("Cgroup %" PRIu64 " (%s) counted by pid %d was removed; its last counts stay.", cgroup_id,
                         strnull(text), (int) s->owner_pid);
        }
        system_owners_sync_cpus(m->systems);
        *ret = s;
        return 0;
}

int manager_start_cgroup(Manager *m, const Caller *caller, SystemContext *s) {
        int r;

        if (system_cgroup_removed(s))
                return -ENOENT;
        /* What may have entered the cgroup since the program was set is checked again. */
        r = check_cgroup(m, caller, s->cgroup_fd);
        if (r < 0)
                return r;
        return system_start(s);
}

/* The caller's removed cgroups whose path is path (NULL: all of them), appended to list. */
static int add_removed(Manager *m, const Caller *caller, const char *path, CgroupListing *l) {
        size_t n = 0;
        _cleanup_free_ SystemContext **all = system_owners_all(m->systems, &n);

        if (!all)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                SystemContext *s = all[i];
                CgroupEntry *e;

                if (s->owner_pid != caller->pid || !s->cgroup_id || !system_cgroup_removed(s) ||
                    (path && strcmp(path, s->cgroup_path) != 0))
                        continue;
                bool *removed = realloc(l->removed, (l->n + 1) * sizeof(bool));
                char *path = strdup(s->cgroup_path);

                if (removed)
                        l->removed = removed;
                e = path && removed ? realloc(l->entries, (l->n + 1) * sizeof(CgroupEntry)) : NULL;
                if (!e) {
                        free(path);
                        return -ENOMEM;
                }
                l->entries = e;
                e[l->n] = (CgroupEntry) { .id = s->cgroup_id, .path = path };
                l->removed[l->n++] = true;
        }
        return 0;
}

void cgroup_listing_done(CgroupListing *l) {
        cgroup_entries_free(l->entries, l->n);
        free(l->removed);
        *l = (CgroupListing) {};
}

int manager_list_cgroups(Manager *m, const Caller *caller, const char *path, bool subtree, CgroupListing *ret) {
        _cleanup_free_ char *canonical = NULL;
        CgroupListing l = {};
        int r;

        r = cgroup_fs_normalize(path, &canonical);
        if (r < 0)
                return r;
        if (subtree)
                r = cgroup_fs_list(canonical, MANAGER_CGROUP_LIST_MAX, &l.entries, &l.n);
        else {
                _cleanup_close_ int fd = -1;

                l.entries = calloc(1, sizeof(CgroupEntry));
                r = l.entries ? cgroup_fs_open_path(canonical, &fd, &l.entries[0].id, &l.entries[0].path) : -ENOMEM;
                l.n = r >= 0;
        }
        if (r == -ENOENT && !subtree)
                r = 0;                          /* one the caller counted may be gone: below */
        if (r >= 0)
                l.removed = calloc(l.n + 1, sizeof(bool));
        if (r >= 0 && !l.removed)
                r = -ENOMEM;
        /* The caller's own removed cgroups: under the path it names, or that path itself. */
        if (r >= 0 && (!subtree || strcmp(canonical, "/") == 0))
                r = add_removed(m, caller, subtree ? NULL : canonical, &l);
        if (r >= 0 && l.n == 0 && !subtree)
                r = -ENOENT;
        if (r < 0) {
                cgroup_listing_done(&l);
                return r == -E2BIG ? -EDQUOT : r;
        }
        *ret = l;
        return 0;
}
