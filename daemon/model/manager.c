/* manager.c: the Manager's life and its first rule: made with its limits, the inheritance engine
 * started (and the threads born while pmapid was away found), lost exit records swept, freed; and
 * SetProgram, a context only on a thread the caller may trace. The table of live contexts and its
 * limits are manager-table.c's, a new context manager-attach.c's. A member that exits leaves its
 * final counts in its group; a member whose context is deleted takes its data out. */
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
#include "manager-table.h"
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
        m->swept_births = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
        m->predecessors = g_new0(char *, 1);
        m->missed = missed_new();
        m->handed = handed_ledger_new();
        if (!m->handed || system_owners_new(event, &m->systems) < 0 ||
            (event && exit_recheck_new(event, manager_recheck_exit, m, &m->recheck) < 0))
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
        g_hash_table_destroy(m->swept_births);
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

void manager_start_heirs(Manager *m, unsigned max_threads) {
        const char *forced = getenv("PMAPID_KERNEL_INHERITANCE");
        GHashTableIter it;
        gpointer value;
        size_t n;
        int r;

        if (!m->heirs && forced && strcmp(forced, "no") == 0) {
                log_info("Inheritance inside the kernel is off (PMAPID_KERNEL_INHERITANCE=no): new threads "
                         "are attached after the fact.");
                return;
        }
        if (!m->heirs) {
                r = heirs_new(max_threads, m->max_contexts_per_uid, &m->heirs);
                if (r < 0) {
                        log_warning("Inheritance inside the kernel is not available (%s: %s): new threads not "
                                    "created through libpmapi are attached after the fact, their first "
                                    "microseconds uncounted.", heirs_unavailable_reason(r), strerror(-r));
                        return;
                }
                log_info("Inheritance inside the kernel: new threads and processes of counted threads are "
                         "counted from their first instruction (BPF).");
        }
        counter_bpf_set_engine(m->heirs);
        /* Contexts restored from an image without the engine: their creations are born from now. */
        g_hash_table_iter_init(&it, m->threads);
        while (g_hash_table_iter_next(&it, NULL, &value))
                manager_carry(m, value);
        /* Threads born while no image read the fork records (a re-exec, a restart through the fd
         * store): the records the rings kept first, then their controls say what the others are. */
        if (m->fork_watch)
                fork_watch_flush(m->fork_watch);
        n = manager_sweep_births(m);
        if (n > 0)
                log_info("%zu threads born while pmapid was away attached from their controls.", n);
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
