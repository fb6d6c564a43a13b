/* manager-group.c: the group scope. A descendant group starts with the calling thread alone and
 * grows by inheritance; a process group (PM_PROCESS) takes every thread of the process at once and
 * every later one, and is refused while any of them has a context (docs/design.md, R1, T7). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"
#include "macro.h"
#include "manager.h"

DEFINE_FREEP(DIR, closedir);

static int new_group(Manager *m, pid_t pid, uid_t owner_uid, const Program *program, bool process,
                     Group **ret) {
        Group *g;
        int r;

        r = group_new(m->next_group_id, pid, owner_uid, program, process, &g);
        if (r < 0)
                return r;
        m->next_group_id++;
        g_hash_table_insert(m->groups, GUINT_TO_POINTER(g->id), g);
        *ret = g;
        return 0;
}

static bool process_has_context(Manager *m, pid_t pid, pid_t *ret_tid) {
        GHashTableIter it;
        gpointer value;

        g_hash_table_iter_init(&it, m->threads);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                Context *c = value;
                /* Not manager_lookup(): it may remove a dead context from the table we walk. */
                if (c->pid == pid && (c->pidfd < 0 || thread_pin_alive(c->pidfd))) {
                        *ret_tid = c->tid;
                        return true;
                }
        }
        return false;
}

/* Attaches every thread of pid not yet in g; *ret_n_new counts them. Threads that exit meanwhile
 * are skipped. Each thread is checked for the caller: a thread may have credentials of its own. */
static int attach_process_threads(Manager *m, const Caller *caller, Group *g, const AttachSpec *spec,
                                  unsigned *ret_n_new, AccessVerdict *ret_refusal) {
        _cleanup_(closedirp) DIR *d = NULL;
        char path[64];
        struct dirent *de;
        unsigned n = 0;
        int r;

        (void) snprintf(path, sizeof(path), "/proc/%d/task", (int) g->pid);
        d = opendir(path);
        if (!d)
                return -ESRCH;
        while ((de = readdir(d))) {
                _cleanup_close_ int pidfd = -1;
                pid_t tid = (pid_t) atoi(de->d_name);

                if (tid <= 0 || manager_lookup(m, tid))
                        continue;
                r = manager_check_access(m, caller, g->pid, tid, &pidfd, ret_refusal);
                if (r == -ESRCH)
                        continue;
                if (r < 0)
                        return r;
                r = manager_attach(m, spec, g->pid, tid, pidfd, NULL);
                if (r == -ESRCH)
                        continue;
                if (r < 0)
                        return r;
                TAKE_FD(pidfd);
                n++;
        }
        *ret_n_new = n;
        return 0;
}

static int create_process_group(Manager *m, const Caller *caller, pid_t pid, AttachSpec *spec, Group **ret,
                                AccessVerdict *ret_refusal) {
        unsigned n_new;
        pid_t busy;
        Group *g;
        int r;

        if (process_has_context(m, pid, &busy)) {
                log_info("Process group on pid %d refused: thread %d has a context.", (int) pid, (int) busy);
                return -EBUSY;
        }
        r = new_group(m, pid, caller->euid, spec->program, /* process= */ true, &g);
        if (r < 0)
                return r;
        g->target_uid = spec->target_uid;
        spec->group = g;
        /* Threads the process creates meanwhile are found by the next pass. */
        for (int pass = 0; pass < 16; pass++) {
                r = attach_process_threads(m, caller, g, spec, &n_new, ret_refusal);
                if (r < 0 || n_new == 0)
                        break;
        }
        if (r < 0) {
                manager_delete_group(m, g);
                return r;
        }
        *ret = g;
        return 0;
}

int manager_set_group_program(Manager *m, const Caller *caller, pid_t pid, pid_t tid, const Program *program,
                              AccessVerdict *ret_refusal) {
        _cleanup_close_ int pidfd = -1;
        AttachSpec spec;
        Group *g;
        int r;

        r = manager_check_access(m, caller, pid, tid, &pidfd, ret_refusal);
        if (r < 0)
                return r;
        if (manager_lookup_fresh(m, tid))
                return -EEXIST;
        r = manager_caller_verdict(m, caller, program);
        if (r < 0)
                return r;

        spec = (AttachSpec) {
                .owner_uid = caller->euid,
                .target_uid = manager_target_uid(caller, pid, tid),
                .creator_pid = caller->pid,
                .origin = CONTEXT_SET_GROUP_PROGRAM,
                .program = program,
                .counting = program_counts_on_start(program),
        };
        if (program->mode & PM_PROCESS)
                r = create_process_group(m, caller, pid, &spec, &g, ret_refusal);
        else {
                r = new_group(m, pid, caller->euid, program, /* process= */ false, &g);
                if (r < 0)
                        return r;
                g->target_uid = spec.target_uid;
                spec.group = g;
                r = manager_attach(m, &spec, pid, tid, pidfd, NULL);
                if (r < 0)
                        g_hash_table_remove(m->groups, GUINT_TO_POINTER(g->id));
                else
                        TAKE_FD(pidfd);
        }
        if (r < 0)
                return r;
        log_info("Group %u created on thread %d of pid %d for pid %d uid %u (%s, %u members, mode 0x%x).", g->id,
                 (int) tid, (int) pid, (int) caller->pid, (unsigned) caller->euid,
                 g->process ? "process" : "descendants", g->n_members, (unsigned) program->mode);
        return 0;
}

int manager_get_group(Manager *m, const Caller *caller, pid_t pid, pid_t tid, Context **ret_context,
                      Group **ret_group, AccessVerdict *ret_refusal) {
        Context *c;
        int r;

        r = manager_get_thread(m, caller, pid, tid, &c, ret_refusal);
        if (r < 0)
                return r;
        if (!c->group)
                return -ENOLINK;
        *ret_context = c;
        *ret_group = c->group;
        return 0;
}

void manager_delete_group(Manager *m, Group *g) {
        size_t n = g->n_live;

        log_debug("Group %u deleted.", g->id);
        if (n == 0) {
                manager_group_released(m, g);
                g_hash_table_remove(m->groups, GUINT_TO_POINTER(g->id));
                return;
        }
        /* From the end, so no member moves; deleting the last one releases the group itself. */
        while (n-- > 0)
                manager_delete_context(m, g->live[n]);
}
