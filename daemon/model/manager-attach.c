/* manager-attach.c: a new context on a thread, within the limits (per user, in all, fds; root's
 * reserve), opened stopped, joined to its group, then switched on as its state says; a thread
 * born in the kernel takes the state it was born with. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "clock.h"
#include "exit-recheck.h"
#include "heirs.h"
#include "local-share.h"
#include "log.h"
#include "macro.h"
#include "manager-table.h"
#include "thread-pin.h"

int manager_attach(Manager *m, const AttachSpec *spec, pid_t pid, pid_t tid, int pidfd, Context **ret) {
        uint64_t attached_ns = now_monotonic_ns();
        Context *c = NULL;
        int r;

        uid_t charged = manager_charged_uid(spec->owner_uid, spec->target_uid, spec->origin);

        const CounterBackend *backend = spec->born ? &counter_backend_bpf : m->backend;
        bool born_counting = false, registered = false;

        if (charged != 0 && manager_uid_count(m, charged) >= m->max_contexts_per_uid)
                return -EDQUOT;
        /* The last contexts of the pool are root's own work's: it can always start. */
        if (manager_n_contexts(m) >= m->max_contexts ||
            (charged != 0 && manager_n_contexts(m) + manager_root_reserve(m) >= m->max_contexts) ||
            m->fds_used + (spec->born ? 0 : program_n_events(spec->program, m->events)) + (manager_keeps_pin(m) ? 1 : 0) +
            spec->local > m->fd_budget)
                return -ENFILE;
        if (spec->born) {
                HeirsBirth birth;
                if (!heirs_born(m->heirs, tid, &birth))
                        return -ESRCH;
                born_counting = birth.counting;
        }
        /* A program of hardware events that passes on: the thread counts through the kernel's
         * sources as its creations will, stopped until its state switches it on. */
        if (!spec->born && m->backend == &counter_backend_perf && manager_register_carrier(m, spec, tid)) {
                registered = true;
                backend = &counter_backend_bpf;
        }
        /* Watching exits before the thread is checked alive below: an exit after that check is seen. */
        if (manager_exits_from_watch(m))
                (void) fork_watch_set_enabled(m->fork_watch, true);

        /* Opened stopped, joined, then switched on: never counts while the group state says off. A
         * registered carrier reads itself in process as a born thread does: OpenLocal hands it its own
         * counters then. */
        r = context_new_with(backend, m->events, pid, tid, spec->owner_uid, spec->program, pidfd,
                             CONTEXT_STOPPED | (spec->local && !spec->born && !registered ? CONTEXT_PRIVATE_LEADER : 0),
                             &c);
        if (r < 0 && registered)
                heirs_drop(m->heirs, tid);
        if (r == -ENOMEM)
                return r;
        if (r == -EMFILE || r == -ENFILE)
                return -ENFILE;                 /* out of fds: a limit, not the events' fault */
        if (r == -ENOSPC)
                return r;                       /* the PMU's counters pinned for carried programs */
        if (r < 0)
                return log_debug_errno(-ENODEV, "Opening counters on thread %d failed: %s", (int) tid,
                                       strerror(-r));
        c->manager = m;
        c->target_uid = spec->target_uid;
        c->creator_pid = spec->creator_pid;
        c->origin = spec->origin;
        if (spec->group) {
                r = group_add(spec->group, c);
                if (r < 0)
                        goto fail;
        }
        /* A born thread counts as its creator did when it was born: from there, the state it
         * inherits decides (the same, unless its creator switched in process since). */
        c->enabled = born_counting;
        if (spec->counting) {
                r = context_start(c);
                if (r < 0)
                        goto fail;
        }
        r = context_apply_state(c);
        if (r < 0)
                goto fail;
        /* Born counting while the state it inherits says off: what it counted was never its to. */
        if (spec->born && !c->enabled) {
                log_debug("Thread %d, born counting, inherits a stopped state: its counts so far are dropped.",
                          (int) tid);
                (void) backend->reset(c->counters);
        }
        /* Its state is the one it was born with, not one it took now: what it created before pmapid
         * read its fork record inherits that (context_counting_at). */
        if (spec->born)
                c->n_history = 0;
        /* The tid may have changed hands while the counters were opened. */
        if (!thread_pin_alive(c->pidfd)) {
                r = -ESRCH;
                goto fail;
        }
        if (m->event && !manager_exits_from_watch(m)) {
                r = sd_event_add_io(m->event, &c->exit_source, c->pidfd, EPOLLIN, manager_on_thread_exit, c);
                if (r < 0)
                        goto fail;
        }

        /* No failure after this point. An inherited context takes its creator's name (inherit.c),
         * with no system call on the way to a new thread's first counts. */
        c->attached_ns = attached_ns;
        c->thread_ino = thread_pin_id(c->pidfd);
        if (!manager_keeps_pin(m))
                c->pidfd = safe_close(c->pidfd);        /* the inode identifies the thread from now on */
        if (spec->origin == CONTEXT_SET_PROGRAM || spec->origin == CONTEXT_SET_GROUP_PROGRAM)
                (void) context_read_comm(c);
        g_hash_table_insert(m->threads, GINT_TO_POINTER(tid), c);
        manager_uid_count_add(m, charged, +1);
        m->fds_used += manager_context_fds(c);
        manager_update_fork_watch(m);
        /* Its EXIT record may have come and gone before it was in the table (exit-recheck.h). */
        if (m->recheck && manager_exits_from_watch(m))
                (void) exit_recheck_add(m->recheck, tid, c->attached_ns);
        if (!spec->born)
                manager_carry(m, c);            /* for a registered carrier: its late heirs alone */
        if (ret)
                *ret = c;
        return 0;
fail:
        if (c->group)
                group_member_left(c->group, c);
        if (registered)
                heirs_drop(m->heirs, tid);
        c->pidfd = -1;                  /* still the caller's on failure */
        context_free(c);
        manager_update_fork_watch(m);
        return r;
}
