/* manager.c: the table of live contexts and the rules that span contexts: one context per thread,
 * contexts only on threads the caller may trace, per-user and total limits, and release at thread
 * exit. A member that exits leaves its final counts in its group; a member whose context is deleted
 * takes its data out. A group lives while it has live members or until it is deleted. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include "clock.h"
#include "config.h"
#include "log.h"
#include "macro.h"
#include "heirs.h"
#include "manager.h"
#include "exit-recheck.h"
#include "local-share.h"
#include "manager-comm.h"
#include "thread-pin.h"

unsigned manager_fd_budget(void) {
        struct rlimit rl;

        if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
                return 1000;
        if (rl.rlim_cur <= MANAGER_FDS_RESERVED + 1)
                return 1;
        return (unsigned) MIN(rl.rlim_cur - MANAGER_FDS_RESERVED, (rlim_t) CONFIG_MAX_LIMIT);
}

unsigned manager_default_max_contexts(void) {
        return manager_fd_budget();
}

unsigned manager_default_max_contexts_per_uid(void) {
        return MAX(manager_fd_budget() / 2, (unsigned) MANAGER_MIN_CONTEXTS_PER_UID);
}

static void context_destroy(gpointer p) {
        context_free(p);
}

static void group_destroy(gpointer p) {
        group_free(p);
}

static bool recheck_exit(pid_t tid, uint64_t attached_ns, void *userdata);

int manager_new(sd_event *event, const CounterBackend *backend, EventTable *events, Manager **ret) {
        Manager *m = calloc(1, sizeof(*m));

        if (!m)
                return -ENOMEM;
        m->event = sd_event_ref(event);
        m->backend = backend;
        m->events = events;
        m->max_contexts_per_uid = manager_default_max_contexts_per_uid();
        m->max_contexts = manager_default_max_contexts();
        m->max_sets = CONFIG_DEFAULT_MAX_SETS;
        m->fd_budget = manager_fd_budget();
        m->self_pid = getpid();
        m->next_group_id = 1;
        m->started_at_usec = now_realtime_usec();
        m->threads = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, context_destroy);
        m->groups = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, group_destroy);
        m->contexts_per_uid = g_hash_table_new(g_direct_hash, g_direct_equal);
        m->uid_grants = g_hash_table_new(g_direct_hash, g_direct_equal);
        m->predecessors = g_new0(char *, 1);
        m->missed = missed_new();
        m->handed = handed_ledger_new();
        if (!m->handed || system_owners_new(event, &m->systems) < 0 ||
            (event && exit_recheck_new(event, recheck_exit, m, &m->recheck) < 0))
                return manager_free(m), -ENOMEM;
        *ret = m;
        return 0;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        system_owners_free(m->systems);
        fork_watch_free(m->fork_watch);
        g_hash_table_destroy(m->groups);        /* groups first: they point at live contexts */
        g_hash_table_destroy(m->threads);
        g_hash_table_destroy(m->contexts_per_uid);
        g_hash_table_destroy(m->uid_grants);
        caller_lookup_free(m->lookup);  /* before the cache it fills */
        caller_cache_free(m->callers);
        log_budget_free(m->log_budget);
        log_budget_free(m->creation_log_budget);
        g_strfreev(m->predecessors);
        missed_free(m->missed);
        handed_ledger_free(m->handed);
        exit_recheck_free(m->recheck);
        counter_bpf_set_engine(NULL);
        if (m->heirs)
                heirs_log_stats(m->heirs);
        heirs_free(m->heirs);
        event_table_free(m->events);
        sd_event_unref(m->event);
        free(m);
        return NULL;
}

size_t manager_n_contexts(Manager *m) {
        return g_hash_table_size(m->threads);
}

/* Fork records cost the daemon a wakeup per new task on the machine: only while anyone counts. */
static void update_fork_watch(Manager *m) {
        if (!m->fork_watch)
                return;
        (void) fork_watch_set_enabled(m->fork_watch, manager_n_contexts(m) > 0);
        /* Where every creation that inherits is born counting, a late record costs nothing. */
        fork_watch_set_lazy(m->fork_watch, m->heirs && m->n_late_heirs == 0);
}

void manager_set_late_heir(Manager *m, Context *c, bool late) {
        if (c->late_heir == late)
                return;
        c->late_heir = late;
        if (late)
                m->n_late_heirs++;
        else
                m->n_late_heirs -= MIN(m->n_late_heirs, 1);
        update_fork_watch(m);
}

void manager_update_fork_watch(Manager *m) {
        update_fork_watch(m);
}

uid_t manager_charged_uid(uid_t owner_uid, uid_t target_uid, ContextOrigin origin) {
        if (owner_uid != 0)
                return owner_uid;
        return origin == CONTEXT_INHERIT || origin == CONTEXT_FORK_RECORD ? target_uid : 0;
}

unsigned manager_root_reserve(const Manager *m) {
        return m->max_contexts / MANAGER_ROOT_RESERVE_DIVISOR;
}

static unsigned uid_count(Manager *m, uid_t uid) {
        return GPOINTER_TO_UINT(g_hash_table_lookup(m->contexts_per_uid, GUINT_TO_POINTER(uid)));
}

static void uid_count_add(Manager *m, uid_t uid, int delta) {
        unsigned n = uid_count(m, uid) + delta;

        if (n == 0)
                g_hash_table_remove(m->contexts_per_uid, GUINT_TO_POINTER(uid));
        else
                g_hash_table_insert(m->contexts_per_uid, GUINT_TO_POINTER(uid), GUINT_TO_POINTER(n));
}

Group *manager_find_group(Manager *m, unsigned id) {
        return g_hash_table_lookup(m->groups, GUINT_TO_POINTER(id));
}

/* A group nobody can reach any more (no live member) is gone. */
static void release_group_if_empty(Manager *m, Group *g) {
        if (g && g->n_live == 0) {
                log_debug("Group %u released: no live member left.", g->id);
                manager_group_released(m, g);
                g_hash_table_remove(m->groups, GUINT_TO_POINTER(g->id));
        }
}

/* The fds a context holds: one per counter, its pidfd if it keeps one, the private leader and the
 * local page of a thread that reads in process. */
static unsigned context_fds(const Context *c) {
        bool born_only = c->backend == &counter_backend_bpf && !c->private_leader;

        return (born_only ? 0u : (unsigned) context_n_events(c)) + (c->pidfd >= 0) + c->private_leader;
}

int manager_open_own_counters(Manager *m, Context *c) {
        unsigned before = context_fds(c);
        int r;

        if (c->private_leader)
                return 0;
        if (m->fds_used + (unsigned) c->encoding->n_events + 1 > m->fd_budget)
                return -ENFILE;
        r = context_open_own_counters(c);
        if (r < 0)
                return r;
        m->fds_used += context_fds(c) - before;
        return 0;
}

void manager_close_local(Manager *m) {
        GHashTableIter it;
        gpointer value;

        g_hash_table_iter_init(&it, m->threads);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                context_sync_local(value);      /* the threads' last switches stand */
                local_share_close(value);
        }
}

/* A context's end (deleted, or its thread gone), never a shutdown that hands its counters on (fd
 * store, re-exec). Its counters are switched off first: a copy of the fd its thread was handed
 * (OpenLocal, handed.h) then reads nothing new once the group comes apart. */
static void remove_context(Manager *m, Context *c) {
        if (c->private_leader && c->counters)
                (void) c->backend->disable(c->counters);
        uid_count_add(m, manager_charged_uid(c->owner_uid, c->target_uid, c->origin), -1);
        m->fds_used -= MIN(m->fds_used, context_fds(c));
        if (m->heirs)
                heirs_drop(m->heirs, c->tid);
        if (c->late_heir)
                m->n_late_heirs -= MIN(m->n_late_heirs, 1);
        g_hash_table_remove(m->threads, GINT_TO_POINTER(c->tid));
        update_fork_watch(m);
}

void manager_delete_context(Manager *m, Context *c) {
        Group *g = c->group;

        log_debug("Context of thread %d (pid %d, uid %u) deleted.", (int) c->tid, (int) c->pid,
                  (unsigned) c->owner_uid);
        if (g)
                group_member_left(g, c);
        remove_context(m, c);
        release_group_if_empty(m, g);
}

/* The thread is gone; its counters keep their final values, which its group keeps. */
static void context_died(Manager *m, Context *c) {
        Group *g = c->group;

        if (c->backend == &counter_backend_bpf)
                counter_bpf_settle(c->counters);        /* its last slice, after its exit record */
        if (g) {
                int r = group_member_died(g, c);
                if (r < 0) {
                        log_warning_errno(r, "Final counts of thread %d lost from group %u: %m",
                                          (int) c->tid, g->id);
                        group_member_left(g, c);
                }
        }
        remove_context(m, c);
        release_group_if_empty(m, g);
}

static int on_thread_exit(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Context *c = userdata;

        (void) s, (void) fd, (void) revents;
        log_debug("Thread %d of pid %d exited, context released.", (int) c->tid, (int) c->pid);
        if (c->group)
                manager_flush_comm(c->manager); /* its last name, for its group's record */
        context_died(c->manager, c);
        return 0;
}

/* A context whose thread has exited but whose exit event is not yet handled must not be found by a
 * new thread that got the same tid. */
Context *manager_lookup(Manager *m, pid_t tid) {
        Context *c = g_hash_table_lookup(m->threads, GINT_TO_POINTER(tid));

        if (c && !context_thread_alive(c)) {
                context_died(m, c);
                return NULL;
        }
        return c;
}

/* Thread exits come from the fork watch's EXIT records: contexts keep no fd for their thread. */
static bool exits_from_watch(const Manager *m) {
        return m->event && m->fork_watch;
}

/* Whether a context keeps its thread's pin: where exits do not come from the watch, the pin tells
 * them; and a /proc pin is kept even then, since its identity without the pin (a start time in
 * 10 ms ticks, thread-pin.h) would not tell a thread from one given the same tid in the same tick. */
static bool keeps_pin(const Manager *m) {
        return !exits_from_watch(m) || !thread_pins_poll();
}

const char *manager_miss_reason(int error) {
        switch (error) {
        case -EDQUOT:
                return "the user it counts against is at its limit of contexts (MaxContextsPerUser)";
        case -ENFILE:
                return "pmapid is at its limit of contexts (MaxContexts, less root's reserve) or out of file "
                       "descriptors";
        case -ENODEV:
                return "the kernel refused its counters";
        case -ESRCH:
                return "it exited before it could be attached";
        case -EPERM:
        case -EACCES:
                return "its owner may no longer count it (perf_event_paranoid)";
        default:
                return strerror(-error);
        }
}

void manager_group_missed(Manager *m, Group *g, pid_t pid, pid_t tid, int pidfd, int error) {
        if (!missed_add(m->missed, pid, tid, pidfd, g->id, error))
                return;                 /* the same thread, tried again */
        if (group_missed(g, error))
                log_warning("Group %u (pid %d, uid %u): thread %d could not join it: %s. The group no longer "
                            "counts all its threads, and says so (further misses are counted, not logged).",
                            g->id, (int) g->pid, (unsigned) g->owner_uid, (int) tid, manager_miss_reason(error));
}

void manager_group_released(Manager *m, Group *g) {
        missed_forget_group(m->missed, g->id);
        if (g->n_missed > 0)
                log_info("Group %u (pid %d, uid %u) released: %u threads that should have joined it were not "
                         "counted (the first: %s).", g->id, (int) g->pid, (unsigned) g->owner_uid, g->n_missed,
                         manager_miss_reason(g->missed_error));
}

void manager_thread_exited(pid_t pid, pid_t tid, uint64_t time_ns, void *userdata) {
        Manager *m = userdata;
        Context *c = g_hash_table_lookup(m->threads, GINT_TO_POINTER(tid));

        missed_forget_tid(m->missed, pid, tid);
        handed_ledger_thread_exited(m->handed, tid);
        /* A context whose pin polls hears of the exit from it (a /proc pin does not: thread-pin.h). */
        if (!c || c->pid != pid || (c->pidfd >= 0 && thread_pins_poll()))
                return;
        /* An exit older than the context is that of an earlier thread with this tid, or of this
         * one, written as it began to exit while it was being attached: its pin tells which. */
        if (time_ns < c->attached_ns) {
                (void) manager_lookup(m, tid);
                return;
        }
        log_debug("Thread %d of pid %d exited, context released.", (int) tid, (int) pid);
        context_died(m, c);
}

size_t manager_sweep_dead(Manager *m) {
        GHashTableIter it;
        gpointer value;
        GPtrArray *dead = g_ptr_array_new();
        size_t n;

        uint64_t now = now_monotonic_ns();

        g_hash_table_iter_init(&it, m->threads);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                Context *c = value;
                if (!context_thread_alive(c))
                        g_ptr_array_add(dead, c);
                /* One attached a moment ago may still be in its exit: a second look later. */
                else if (m->recheck && now - c->attached_ns < 1000000000ull && thread_exiting(c->pid, c->tid))
                        (void) exit_recheck_add(m->recheck, c->tid, c->attached_ns);
        }
        for (guint i = 0; i < dead->len; i++)
                context_died(m, g_ptr_array_index(dead, i));
        n = dead->len;
        g_ptr_array_free(dead, TRUE);
        return n;
}

void manager_exits_lost(uint64_t n_lost, void *userdata) {
        Manager *m = userdata;
        size_t n = manager_sweep_dead(m);

        size_t born = manager_sweep_births(m);  /* births among the records lost */

        if (n_lost > 0)
                log_info("%" PRIu64 " thread records lost: %zu contexts of exited threads and %zu born threads "
                         "found by a sweep.", n_lost, n, born);
        else if (n + born > 0)
                log_info("A full fork-watch ring went quiet: %zu contexts of exited threads and %zu born threads "
                         "found by a sweep.", n, born);
}

static bool recheck_exit(pid_t tid, uint64_t attached_ns, void *userdata) {
        Manager *m = userdata;
        Context *c = g_hash_table_lookup(m->threads, GINT_TO_POINTER(tid));

        if (!c || c->attached_ns != attached_ns)
                return false;           /* gone already, or another thread's context now */
        if (context_thread_alive(c))
                return thread_exiting(c->pid, tid);     /* its exit record may be read already */
        log_debug("Thread %d of pid %d exited as it was attached, context released.", (int) tid, (int) c->pid);
        context_died(m, c);
        return false;
}

int manager_attach(Manager *m, const AttachSpec *spec, pid_t pid, pid_t tid, int pidfd, Context **ret) {
        uint64_t attached_ns = now_monotonic_ns();
        Context *c = NULL;
        int r;

        uid_t charged = manager_charged_uid(spec->owner_uid, spec->target_uid, spec->origin);

        const CounterBackend *backend = spec->born ? &counter_backend_bpf : m->backend;
        bool born_counting = false;

        if (charged != 0 && uid_count(m, charged) >= m->max_contexts_per_uid)
                return -EDQUOT;
        /* The last contexts of the pool are root's own work's: it can always start. */
        if (manager_n_contexts(m) >= m->max_contexts ||
            (charged != 0 && manager_n_contexts(m) + manager_root_reserve(m) >= m->max_contexts) ||
            m->fds_used + (spec->born ? 0 : program_n_events(spec->program, m->events)) + (keeps_pin(m) ? 1 : 0) +
            spec->local > m->fd_budget)
                return -ENFILE;
        if (spec->born) {
                HeirsBirth birth;
                if (!heirs_born(m->heirs, tid, &birth))
                        return -ESRCH;
                born_counting = birth.counting;
        }
        /* Watching exits before the thread is checked alive below: an exit after that check is seen. */
        if (exits_from_watch(m))
                (void) fork_watch_set_enabled(m->fork_watch, true);

        /* Opened stopped, joined, then switched on: never counts while the group state says off. */
        r = context_new_with(backend, m->events, pid, tid, spec->owner_uid, spec->program, pidfd,
                             CONTEXT_STOPPED | (spec->local && !spec->born ? CONTEXT_PRIVATE_LEADER : 0), &c);
        if (r == -ENOMEM)
                return r;
        if (r == -EMFILE || r == -ENFILE)
                return -ENFILE;                 /* out of fds: a limit, not the events' fault */
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
        if (m->event && !exits_from_watch(m)) {
                r = sd_event_add_io(m->event, &c->exit_source, c->pidfd, EPOLLIN, on_thread_exit, c);
                if (r < 0)
                        goto fail;
        }

        /* No failure after this point. An inherited context takes its creator's name (inherit.c),
         * with no system call on the way to a new thread's first counts. */
        c->attached_ns = attached_ns;
        c->thread_ino = thread_pin_id(c->pidfd);
        if (!keeps_pin(m))
                c->pidfd = safe_close(c->pidfd);        /* the inode identifies the thread from now on */
        if (spec->origin == CONTEXT_SET_PROGRAM || spec->origin == CONTEXT_SET_GROUP_PROGRAM)
                (void) context_read_comm(c);
        g_hash_table_insert(m->threads, GINT_TO_POINTER(tid), c);
        uid_count_add(m, charged, +1);
        m->fds_used += context_fds(c);
        update_fork_watch(m);
        /* Its EXIT record may have come and gone before it was in the table (exit-recheck.h). */
        if (m->recheck && exits_from_watch(m))
                (void) exit_recheck_add(m->recheck, tid, c->attached_ns);
        if (!spec->born)
                manager_carry(m, c);
        if (ret)
                *ret = c;
        return 0;
fail:
        if (c->group)
                group_member_left(c->group, c);
        c->pidfd = -1;                  /* still the caller's on failure */
        context_free(c);
        update_fork_watch(m);
        return r;
}

int manager_adopt(Manager *m, Context *c) {
        int r;

        /* A /proc pin does not poll (thread-pin.h): then the fork watch, which such a kernel needs,
         * tells the exit. */
        if (m->event && c->pidfd >= 0 && thread_pins_poll()) {
                r = sd_event_add_io(m->event, &c->exit_source, c->pidfd, EPOLLIN, on_thread_exit, c);
                if (r < 0)
                        return r;
        }
        c->manager = m;
        g_hash_table_insert(m->threads, GINT_TO_POINTER(c->tid), c);
        uid_count_add(m, manager_charged_uid(c->owner_uid, c->target_uid, c->origin), +1);
        m->fds_used += context_fds(c);
        update_fork_watch(m);
        return 0;
}

/* The thread's euid for the admin's view: the caller's own for a first-party call. */
uid_t manager_target_uid(const Caller *caller, pid_t pid, pid_t tid) {
        TargetCreds t;

        if (pid == caller->pid || target_creds_read(pid, tid, caller->pid, &t) < 0)
                return caller->euid;
        return t.uid[1];
}

int manager_set_program(Manager *m, const Caller *caller, pid_t pid, pid_t tid, const Program *program,
                        AccessVerdict *ret_refusal) {
        _cleanup_close_ int pidfd = -1;
        uint64_t suppressed;
        AttachSpec spec;
        int r;

        r = manager_check_access(m, caller, pid, tid, &pidfd, ret_refusal);
        if (r < 0)
                return r;
        if (manager_lookup_fresh(m, tid))
                return -EEXIST;         /* born counting: a new thread's inherited context is its own */
        r = manager_caller_verdict(m, caller, program);
        if (r < 0)
                return r;
        spec = (AttachSpec) {
                .owner_uid = caller->euid,
                .target_uid = manager_target_uid(caller, pid, tid),
                .creator_pid = caller->pid,
                .origin = CONTEXT_SET_PROGRAM,
                .program = program,
                .counting = program_counts_on_start(program),
                /* Its own process: the thread may read it in process (one set: a multi-set context is
                 * read through pmapid). */
                .local = pid == caller->pid && !program_multi_set(program),
        };
        r = manager_attach(m, &spec, pid, tid, pidfd, NULL);
        if (r < 0)
                return r;
        TAKE_FD(pidfd);
        /* A user that creates contexts in a loop writes LOG_BUDGET_LINES of these a second. */
        if (log_budget_allow(m->creation_log_budget, caller->euid, now_monotonic_ns() / 1000, &suppressed))
                log_info("Context created on thread %d of pid %d for pid %d uid %u (mode 0x%x)%s%.0" PRIu64 "%s.",
                         (int) tid, (int) pid, (int) caller->pid, (unsigned) caller->euid,
                         (unsigned) program->mode, suppressed > 0 ? " (" : "", suppressed,
                         suppressed > 0 ? " more of this user's not logged)" : "");
        return 0;
}
