/* manager.c: the table of live contexts and the rules that span contexts: one context per thread,
 * contexts only on the caller's own threads, per-user limits, and release at thread exit. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "log.h"
#include "macro.h"
#include "manager.h"

static void context_destroy(gpointer p) {
        context_free(p);
}

int manager_new(sd_event *event, const CounterBackend *backend, EventTable *events, Manager **ret) {
        Manager *m = calloc(1, sizeof(*m));

        if (!m)
                return -ENOMEM;
        m->event = sd_event_ref(event);
        m->backend = backend;
        m->events = events;
        m->max_contexts_per_uid = MANAGER_DEFAULT_MAX_CONTEXTS_PER_UID;
        m->threads = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
                                           context_destroy);
        m->contexts_per_uid = g_hash_table_new(g_direct_hash, g_direct_equal);
        *ret = m;
        return 0;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        g_hash_table_destroy(m->threads);
        g_hash_table_destroy(m->contexts_per_uid);
        caller_cache_free(m->callers);
        event_table_free(m->events);
        sd_event_unref(m->event);
        free(m);
        return NULL;
}

size_t manager_n_contexts(Manager *m) {
        return g_hash_table_size(m->threads);
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

void manager_delete_context(Manager *m, Context *c) {
        log_debug("Context of thread %d (pid %d, uid %u) deleted.", (int) c->tid, (int) c->pid,
                  (unsigned) c->owner_uid);
        uid_count_add(m, c->owner_uid, -1);
        g_hash_table_remove(m->threads, GINT_TO_POINTER(c->tid));
}

/* The thread is gone: its counters would keep their final values, but a plain thread context has
 * nobody left to report them to. */
static int on_thread_exit(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Context *c = userdata;

        (void) s;
        (void) fd;
        (void) revents;
        log_info("Thread %d of pid %d exited, context released.", (int) c->tid, (int) c->pid);
        manager_delete_context(c->manager, c);
        return 0;
}

/* A context whose thread has exited but whose exit event is not yet handled must not be found by a
 * new thread that got the same tid. */
static Context *lookup_live(Manager *m, pid_t tid) {
        Context *c = g_hash_table_lookup(m->threads, GINT_TO_POINTER(tid));

        if (c && c->pidfd >= 0 && !thread_pin_alive(c->pidfd)) {
                manager_delete_context(m, c);
                return NULL;
        }
        return c;
}

int manager_get_thread(Manager *m, const Caller *caller, pid_t pid, pid_t tid, Context **ret) {
        _cleanup_close_ int pidfd = -1;
        Context *c;
        int r;

        if (pid != caller->pid)
                return -ESRCH;          /* first party only: another process's threads are not found */
        c = lookup_live(m, tid);
        if (c && c->pid == pid) {
                *ret = c;
                return 0;
        }
        r = thread_pin(pid, tid, &pidfd);
        return r < 0 ? r : -ENODATA;
}

static int open_counting_verdict(const Manager *m, const Caller *caller, const Program *program) {
        bool kernel = program_counts_kernel(program);
        bool owner_ok = program_owner_may_count_kernel(program, m->events);

        switch (caller_may_count(caller->euid, perf_event_paranoid(), kernel, owner_ok)) {
        case COUNT_ALLOWED:
                return 0;
        case COUNT_KERNEL_DENIED:
                return -EACCES;
        default:
                return -EPERM;
        }
}

int manager_set_program(Manager *m, const Caller *caller, pid_t pid, pid_t tid, const Program *program) {
        _cleanup_close_ int pidfd = -1;
        Context *c = NULL;
        int r;

        if (pid != caller->pid)
                return -ESRCH;
        r = thread_pin(pid, tid, &pidfd);
        if (r < 0)
                return r;
        if (lookup_live(m, tid))
                return -EEXIST;
        r = open_counting_verdict(m, caller, program);
        if (r < 0)
                return r;
        if (uid_count(m, caller->euid) >= m->max_contexts_per_uid)
                return -EDQUOT;

        r = context_new(m->backend, m->events, pid, tid, caller->euid, program, pidfd, &c);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return log_debug_errno(-ENODEV, "Opening counters on thread %d failed: %s", (int) tid,
                                       strerror(-r));
        TAKE_FD(pidfd);
        c->manager = m;

        /* The tid may have changed hands while the counters were opened. */
        if (!thread_pin_alive(c->pidfd)) {
                context_free(c);
                return -ESRCH;
        }
        if (m->event) {
                r = sd_event_add_io(m->event, &c->exit_source, c->pidfd, EPOLLIN, on_thread_exit, c);
                if (r < 0) {
                        context_free(c);
                        return r;
                }
        }

        /* No failure after this point. */
        g_hash_table_insert(m->threads, GINT_TO_POINTER(tid), c);
        uid_count_add(m, caller->euid, +1);
        log_info("Context created on thread %d of pid %d for uid %u (%zu events, mode 0x%x).", (int) tid,
                 (int) pid, (unsigned) caller->euid, c->encoding.n_events, (unsigned) program->mode);
        return 0;
}
