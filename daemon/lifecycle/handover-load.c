/* handover-load.c: restores a manager from a handover blob (handover.h, handover-type.h). Every fd
 * the blob names is this image's from the start: each is either taken by what it is restored into
 * or closed at the end, so nothing leaks whatever the blob says. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpu-list.h"
#include "handover-type.h"
#include "handover.h"
#include "handover-read.h"
#include "heirs.h"
#include "log.h"
#include "macro.h"

typedef struct FdTable {
        int *fds;                       /* fd numbers; -1 once taken */
        size_t n;
} FdTable;

/* Takes the fd at index i: -1 if the index is -1, out of range or taken already. */
static int take_fd(FdTable *t, int32_t i) {
        int fd;

        if (i < 0 || (size_t) i >= t->n)
                return -1;
        fd = t->fds[i];
        t->fds[i] = -1;
        if (fd >= 0)
                (void) fcntl(fd, F_SETFD, FD_CLOEXEC);  /* cleared for the exec that brought it */
        return fd;
}

static void close_untaken(FdTable *t) {
        for (size_t i = 0; i < t->n; i++)
                if (t->fds[i] >= 0) {
                        close(t->fds[i]);
                        t->fds[i] = -1;
                }
}

/* The counter fds v names, taken from t into fds (a private leader and MAX_COUNTERS counters at
 * most): their number, or -EBADF when one is missing (those taken are closed). */
static int take_counter_fds(GVariant *v, FdTable *t, int fds[static MAX_COUNTERS + 1]) {
        gsize n;
        const int32_t *idx = g_variant_get_fixed_array(v, &n, sizeof(int32_t));
        size_t k = 0;

        for (size_t i = 0; i < n; i++) {
                int fd = take_fd(t, idx[i]);
                if (fd >= 0 && k < MAX_COUNTERS + 1)
                        fds[k++] = fd;
                else if (fd >= 0)
                        close(fd);
        }
        if (k == n)
                return (int) k;
        for (size_t i = 0; i < k; i++)
                close(fds[i]);
        return -EBADF;
}

static void close_fds(const int *fds, int n) {
        for (int i = 0; i < n; i++)
                close(fds[i]);
}

/* A counter group of n_events counters from the fd indices in v: the fds are taken either way. A
 * program whose encoding changed with the catalog (-EINVAL) would have its slots lie. */
static int adopt_counters(const CounterBackend *b, GVariant *v, const ProgramEncoding *encoding, FdTable *t,
                          CounterGroup **ret) {
        int fds[MAX_COUNTERS + 1], n = take_counter_fds(v, t, fds), r;

        if (n < 0)
                return n;
        r = b->adopt(fds, (size_t) n, encoding->attrs, encoding->n_events, ret);
        if (r < 0)
                close_fds(fds, n);
        return r;
}

static void restore_group(Manager *m, GVariant *v) {
        g_autoptr(GVariant) program = NULL, retained = NULL, records = NULL;
        uint32_t id, owner, target, n_members, dropped, missed;
        int32_t missed_error;
        gboolean counting, consistent, process;
        GVariantIter it;
        GVariant *rec;
        int32_t pid;
        Program p;
        Group *g;

        g_variant_get(v, "(uiuu@" HANDOVER_PROGRAM "bbbu@ax@a(iiayax)uui)", &id, &pid, &owner, &target, &program,
                      &counting, &consistent, &process, &n_members, &retained, &records, &dropped, &missed,
                      &missed_error);
        if (!handover_read_known_program(program, m->events, &p, "Group", (int) id))
                return;
        if (id == 0 || manager_find_group(m, id) || group_new(id, pid, owner, &p, process, &g) < 0) {
                log_warning("Group %u of the previous image not restored.", id);
                return;
        }
        g->target_uid = target;
        g->counting = counting;
        g->consistent = consistent;
        g->n_members = n_members;
        g->n_records_dropped = dropped;
        g->n_missed = missed;
        g->missed_error = missed_error;
        handover_read_vectors(retained, g->retained, group_n_sets(g));
        g_variant_iter_init(&it, records);
        while ((rec = g_variant_iter_next_value(&it))) {
                g_autoptr(GVariant) comm = NULL, counts = NULL;
                AcctVector all[PM_MX_MAX_SETS];
                GroupMemberRecord r = {};
                size_t n_sets = group_n_sets(g);

                g_variant_get(rec, "(ii@ay@ax)", &r.pid, &r.tid, &comm, &counts);
                handover_read_comm(comm, r.comm);
                handover_read_vectors(counts, all, n_sets);
                memcpy(r.counts, all[0], sizeof(AcctVector));
                if (n_sets > 1)
                        r.more_counts = g_memdup2(all[1], (n_sets - 1) * sizeof(AcctVector));
                group_adopt_record(g, &r);
                g_variant_unref(rec);
        }
        g_hash_table_insert(m->groups, GUINT_TO_POINTER(id), g);
}

static void restore_history(Context *c, GVariant *v) {
        GVariantIter it;
        guint64 time_ns;
        gboolean counting;

        g_variant_iter_init(&it, v);
        while (g_variant_iter_next(&it, "(tb)", &time_ns, &counting)) {
                c->history[c->next_history] = (StateChange) { time_ns, counting };
                c->next_history = (c->next_history + 1) % CONTEXT_STATE_HISTORY;
                if (c->n_history < CONTEXT_STATE_HISTORY)
                        c->n_history++;
        }
}

/* A context's counter groups, one a set, each of its set's size: all or nothing. A thread born in
 * the kernel has no fds: its one set is its counts in heirs' maps, which came across, with its own
 * perf counters where it read itself in process. */
static int adopt_sets(const Manager *m, pid_t tid, const Program *p, GVariant *counters, FdTable *t, CounterGroup **ret,
                      const CounterBackend **ret_backend) {
        size_t n_sets = program_n_sets(p), k = 0;
        int r = 0;

        *ret_backend = m->backend;
        if (g_variant_n_children(counters) != n_sets)
                return -EINVAL;         /* the fds are closed at the end */
        if (n_sets == 1) {
                g_autoptr(GVariant) fds = g_variant_get_child_value(counters, 0);
                ProgramEncoding encoding;

                if (g_variant_n_children(fds) == 0 ||
                    (counter_bpf_engine() && heirs_born(counter_bpf_engine(), tid, NULL))) {
                        int own[MAX_COUNTERS + 1], n = take_counter_fds(fds, t, own);

                        if (n < 0)
                                return n;
                        program_encode(p, m->events, &encoding);
                        *ret_backend = &counter_backend_bpf;
                        r = counter_bpf_adopt_born(tid, encoding.attrs, encoding.n_events, own, (size_t) n, &ret[0]);
                        if (r < 0)
                                close_fds(own, n);
                        return r;
                }
        }
        for (; k < n_sets && r >= 0; k++) {
                g_autoptr(GVariant) fds = g_variant_get_child_value(counters, k);
                Program one = program_set(p, k);
                ProgramEncoding encoding;

                program_encode(&one, m->events, &encoding);
                r = adopt_counters(m->backend, fds, &encoding, t, &ret[k]);
        }
        if (r < 0)
                for (size_t i = 0; i + 1 < k; i++)
                        m->backend->close(ret[i]);
        return r;
}

static void restore_context(Manager *m, GVariant *v, FdTable *t) {
        g_autoptr(GVariant) comm = NULL, program = NULL, history = NULL, counters = NULL, bases = NULL;
        int32_t pid, tid, creator, origin, pidfd_index;
        uint32_t owner, target, group_id;
        guint64 thread_ino, attached_ns;
        gboolean counting, enabled, late;
        _cleanup_close_ int pidfd = -1;
        CounterGroup *g[PM_MX_MAX_SETS] = {};
        const CounterBackend *backend;
        Context *c = NULL;
        Program p;
        int r;

        g_variant_get(v, "(iiuui@ayi@" HANDOVER_PROGRAM "bbb@a(tb)uitt@aai@a(tt))", &pid, &tid, &owner, &target,
                      &creator, &comm, &origin, &program, &counting, &enabled, &late, &history, &group_id,
                      &pidfd_index, &thread_ino, &attached_ns, &counters, &bases);
        pidfd = take_fd(t, pidfd_index);
        if (!handover_read_known_program(program, m->events, &p, "Context of thread", (int) tid))
                return;                 /* its counters' fds are closed at the end */
        r = adopt_sets(m, tid, &p, counters, t, g, &backend);
        if (r >= 0) {
                r = context_adopt(backend, m->events, pid, tid, owner, &p, g, pidfd, &c);
                if (r < 0)
                        for (size_t k = 0; k < program_n_sets(&p); k++)
                                backend->close(g[k]);
        }
        if (r >= 0 && (g_hash_table_contains(m->threads, GINT_TO_POINTER(tid)) ||
                       (m->event && pidfd < 0 && thread_ino == 0)))
                r = -EEXIST;    /* a tid twice, or a thread we could not tell from another */
        if (r < 0) {
                if (c) {
                        c->pidfd = -1;          /* still ours: closed below */
                        context_free(c);
                }
                log_warning_errno(r, "Context of thread %d (pid %d) of the previous image not restored: %m",
                                  (int) tid, (int) pid);
                return;
        }
        TAKE_FD(pidfd);
        c->private_leader = backend->sibling_fd(c->counters) >= 0;
        c->thread_ino = thread_ino;
        c->attached_ns = attached_ns;
        c->target_uid = target;
        c->creator_pid = creator;
        handover_read_comm(comm, c->comm);
        c->origin = origin >= 0 && origin < _CONTEXT_ORIGIN_MAX ? (ContextOrigin) origin : CONTEXT_SET_PROGRAM;
        c->counting = counting;
        c->enabled = enabled;
        c->attached_late = late;
        for (size_t k = 0; k < context_n_sets(c) && k < g_variant_n_children(bases); k++) {
                guint64 base_enabled, base_running;

                g_variant_get_child(bases, k, "(tt)", &base_enabled, &base_running);
                *(k == 0 ? &c->time_base : &c->more_sets[k - 1].time_base) =
                        (CounterTimes) { .enabled_ns = base_enabled, .running_ns = base_running };
        }
        restore_history(c, history);
        if (group_id != 0) {
                Group *grp = manager_find_group(m, group_id);
                /* A member counts the group's sets: one that does not would fail every group read. */
                if (!grp || context_n_sets(c) != group_n_sets(grp) || group_adopt_member(grp, c) < 0) {
                        log_warning("Context of thread %d lost its group %u in the handover.", (int) tid, group_id);
                        context_free(c);
                        return;
                }
        }
        r = manager_adopt(m, c);
        if (r < 0) {
                log_warning_errno(r, "Context of thread %d of the previous image not restored: %m", (int) tid);
                if (c->group) {
                        Group *grp = c->group;
                        group_member_left(grp, c);
                        grp->n_members++;       /* adopted members were counted in the blob, not here */
                }
                context_free(c);
        }
}

static int restore_cpu(SystemContext *s, GVariant *v, FdTable *t) {
        g_autoptr(GVariant) kept = NULL, bases = NULL, groups = NULL;
        gboolean counted;
        GVariantIter it;
        GVariant *fds;
        uint32_t cpu;
        SystemCpu *c;
        size_t n;

        g_variant_get(v, "(ub@ax@aax@aai)", &cpu, &counted, &kept, &bases, &groups);
        if (cpu >= s->n_cpus)
                return -ENXIO;
        c = &s->cpus[cpu];
        if (c->groups)
                return -EEXIST;         /* a CPU twice in the blob: its first groups stand */
        c->counted = counted;
        handover_read_vectors(kept, c->kept, s->n_sets);
        n = g_variant_n_children(groups);
        if (n == 0)
                return 0;
        if (g_variant_n_children(bases) != n || n % s->n_sets != 0)
                return -EINVAL;         /* every target has every set */
        c->groups = calloc(n, sizeof(CounterGroup *));
        c->bases = calloc(n, sizeof(AcctVector));
        if (!c->groups || !c->bases)
                return -ENOMEM;
        for (size_t k = 0; k < n; k++) {
                g_autoptr(GVariant) b = g_variant_get_child_value(bases, k);
                handover_read_vector(b, c->bases[k]);
        }
        g_variant_iter_init(&it, groups);
        while ((fds = g_variant_iter_next_value(&it))) {
                int r = adopt_counters(s->backend, fds, &s->encoding[c->n_groups % s->n_sets], t,
                                       &c->groups[c->n_groups]);

                g_variant_unref(fds);
                if (r < 0)
                        return r;
                c->n_groups++;
        }
        return 0;
}

/* A cgroup context's cgroup, found again by id: its fd, or -1 when it was removed meanwhile (the
 * context keeps its counts). path is the one saved, as bytes. */
static char *restore_cgroup(uint64_t id, GVariant *path, int *ret_fd) {
        gsize n;
        const char *p = g_variant_get_fixed_array(path, &n, 1);
        char *copy = g_strndup(p, n);

        if (cgroup_fs_open_id(id, ret_fd, NULL) < 0)
                *ret_fd = -1;
        return copy;
}

static void restore_system(Manager *m, GVariant *v, FdTable *t, size_t n_cpus) {
        g_autoptr(GVariant) program = NULL, tree = NULL, cpus = NULL, cgroup_path = NULL;
        g_autofree char *path = NULL;
        guint64 cgroup_id;
        int cgroup_fd = -1;
        _cleanup_free_ bool *offline = calloc(n_cpus ? n_cpus : 1, sizeof(bool));
        int32_t owner_pid, pidfd_index;
        gboolean counting, proctree;
        SystemContext *s = NULL;
        const int32_t *tids;
        uint32_t owner_uid;
        GVariantIter it;
        GVariant *cpu;
        gsize n_tree;
        int pidfd, r;
        Program p;

        g_variant_get(v, "(iu@" HANDOVER_PROGRAM "bb@aii@a(ubaxaaxaai)t@ay)", &owner_pid, &owner_uid, &program,
                      &counting, &proctree, &tree, &pidfd_index, &cpus, &cgroup_id, &cgroup_path);
        pidfd = take_fd(t, pidfd_index);
        tids = g_variant_get_fixed_array(tree, &n_tree, sizeof(int32_t));
        if (!handover_read_known_program(program, m->events, &p, "System-wide context of pid", (int) owner_pid)) {
                if (pidfd >= 0)
                        close(pidfd);
                return;
        }
        if (cgroup_id)
                path = restore_cgroup(cgroup_id, cgroup_path, &cgroup_fd);
        /* Opened on no CPU: each CPU gets the groups the previous image had there. */
        if (!offline) {
                r = -ENOMEM;
                cgroup_fd = safe_close(cgroup_fd);
        } else if (cgroup_id)
                r = system_new_cgroup(m->backend, m->events, &p, owner_pid, owner_uid, cgroup_fd, cgroup_id, path,
                                      offline, n_cpus, &s);
        else
                r = system_new(m->backend, m->events, &p, owner_pid, owner_uid,
                               proctree ? (const pid_t *) tids : NULL, n_tree, offline, n_cpus, &s);
        if (r >= 0 && cgroup_fd < 0 && cgroup_id)
                s->cgroup_removed = true;
        if (r >= 0 && (cgroup_id ? system_owners_get_cgroup(m->systems, owner_pid, cgroup_id)
                                 : system_owners_get(m->systems, owner_pid)))
                r = -EEXIST;
        g_variant_iter_init(&it, cpus);
        while (r >= 0 && (cpu = g_variant_iter_next_value(&it))) {
                r = restore_cpu(s, cpu, t);
                g_variant_unref(cpu);
        }
        if (r < 0 || pidfd < 0) {
                log_warning_errno(r < 0 ? r : -EBADF, "System-wide context of pid %d of the previous image not "
                                  "restored: %m", (int) owner_pid);
                system_free(s);
                if (pidfd >= 0)
                        close(pidfd);
                return;
        }
        s->counting = counting;
        r = system_owners_add_pinned(m->systems, s, pidfd);     /* takes both */
        if (r < 0)
                log_warning_errno(r, "System-wide context of pid %d of the previous image not restored: %m",
                                  (int) owner_pid);
}

/* Inheritance inside the kernel, on the maps and attached programs of the image before: they never
 * stopped, so a thread created meanwhile was born counting. Before the contexts, whose born threads
 * read its maps. */
static void restore_heirs(Manager *m, GVariant *v, FdTable *t) {
        gsize n;
        const int32_t *idx = g_variant_get_fixed_array(v, &n, sizeof(int32_t));
        int fds[16];
        size_t k = 0;
        int r;

        for (size_t i = 0; i < n; i++) {
                int fd = take_fd(t, idx[i]);
                if (fd >= 0 && k < G_N_ELEMENTS(fds))
                        fds[k++] = fd;
                else if (fd >= 0)
                        close(fd);
        }
        if (n == 0)
                return;
        r = k == n ? heirs_adopt(fds, k, &m->heirs) : -EBADF;
        if (r < 0) {
                for (size_t i = 0; i < k; i++)
                        close(fds[i]);
                log_warning_errno(r, "Inheritance inside the kernel of the previous image not restored (%m): "
                                  "its born threads' contexts are lost.");
                return;
        }
        counter_bpf_set_engine(m->heirs);
}

static void restore_fork_watch(Manager *m, GVariant *v, FdTable *t) {
        g_autoptr(GVariant) cpus = NULL;
        gboolean enabled;
        size_t n, k = 0;
        GVariantIter it;
        uint32_t cpu;
        int32_t idx;
        int r;

        g_variant_get(v, "(b@a(ui))", &enabled, &cpus);
        n = g_variant_n_children(cpus);
        if (!m->event || n == 0)
                return;                 /* the caller opens a new watch */
        _cleanup_free_ unsigned *ids = calloc(n, sizeof(unsigned));
        _cleanup_free_ int *fds = calloc(n, sizeof(int));
        if (!ids || !fds)
                return;
        g_variant_iter_init(&it, cpus);
        while (g_variant_iter_next(&it, "(ui)", &cpu, &idx)) {
                int fd = take_fd(t, idx);
                if (fd < 0)
                        continue;
                ids[k] = cpu;
                fds[k++] = fd;
        }
        r = manager_adopt_fork_watch(m, ids, fds, k, enabled);
        if (r < 0)
                log_warning_errno(r, "The fork watch of the previous image not restored: %m");
}

/* The blob, checked: a sealed memfd of the right type and version. */
static int read_blob(int memfd, GVariant **ret) {
        GBytes *bytes;
        struct stat st;
        void *p;
        int seals;
        GVariant *v;
        uint32_t version;

        seals = fcntl(memfd, F_GET_SEALS);
        if (seals < 0 || !(seals & F_SEAL_WRITE) || fstat(memfd, &st) < 0 || st.st_size <= 0)
                return -EBADF;
        p = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, memfd, 0);
        if (p == MAP_FAILED)
                return -errno;
        bytes = g_bytes_new(p, (gsize) st.st_size);    /* a copy: the map goes now */
        munmap(p, (size_t) st.st_size);
        v = g_variant_ref_sink(g_variant_new_from_bytes(G_VARIANT_TYPE(HANDOVER_TYPE), bytes, FALSE));
        g_bytes_unref(bytes);
        g_variant_get_child(v, 0, "u", &version);
        if (version != HANDOVER_VERSION) {
                g_variant_unref(v);
                return -EPROTO;
        }
        *ret = v;
        return 0;
}

/* The blob's fds found among fds[0..n-1] by their keys; the others are closed. */
static void find_by_key(FdTable *t, GVariant *keys, const int *fds, size_t n) {
        GHashTable *by_key = g_hash_table_new(g_int64_hash, g_int64_equal);
        _cleanup_free_ uint64_t *k = calloc(n + 1, sizeof(uint64_t));
        const uint64_t *want;
        gsize n_keys;

        want = g_variant_get_fixed_array(keys, &n_keys, sizeof(uint64_t));
        for (size_t i = 0; i < n && k; i++) {
                k[i] = handover_fd_key(fds[i]);
                if (k[i] != 0)
                        g_hash_table_insert(by_key, &k[i], GINT_TO_POINTER(fds[i] + 1));
        }
        for (size_t i = 0; i < t->n; i++) {
                gpointer fd = i < n_keys ? g_hash_table_lookup(by_key, &want[i]) : NULL;

                t->fds[i] = fd ? GPOINTER_TO_INT(fd) - 1 : -1;
                if (fd)
                        g_hash_table_remove(by_key, &want[i]);
        }
        for (size_t i = 0; i < n; i++)          /* what the blob does not name */
                if (!k || k[i] == 0 || g_hash_table_contains(by_key, &k[i]))
                        close(fds[i]);
        g_hash_table_destroy(by_key);
}

int handover_restore(Manager *m, int memfd) {
        return handover_restore_fds(m, memfd, NULL, 0);
}

int handover_restore_fds(Manager *m, int memfd, const int *given, size_t n_given) {
        g_autoptr(GVariant) heirs = NULL;
        g_autoptr(GVariant) v = NULL, fds = NULL, keys = NULL, groups = NULL, contexts = NULL, systems = NULL,
                            forks = NULL;
        char **predecessors = NULL;
        _cleanup_close_ int fd = memfd;
        GHashTableIter hit;
        gpointer value;
        GVariantIter it;
        GVariant *child;
        const int32_t *fd_numbers;
        FdTable t = {};
        gsize n_fds;
        size_t n_cpus = 0, n_dead;
        uint32_t version;
        int r;

        r = read_blob(fd, &v);
        if (r < 0) {
                for (size_t i = 0; i < n_given; i++)
                        close(given[i]);
                return r;
        }
        g_variant_get(v, "(u^asuttt@ai@at@a" HANDOVER_GROUP "@a" HANDOVER_CONTEXT "@a" HANDOVER_SYSTEM "@"
                      HANDOVER_FORKWATCH "@ai)", &version, &predecessors, &m->next_group_id, &m->n_attached_late,
                      &m->n_missed, &m->n_refused, &fds, &keys, &groups, &contexts, &systems, &forks, &heirs);
        if (m->next_group_id == 0)
                m->next_group_id = 1;
        fd_numbers = g_variant_get_fixed_array(fds, &n_fds, sizeof(int32_t));
        t.fds = g_memdup2(fd_numbers, n_fds * sizeof(int));
        t.n = n_fds;
        if (given)
                find_by_key(&t, keys, given, n_given);
        g_strfreev(m->predecessors);
        m->predecessors = TAKE_PTR(predecessors);

        restore_heirs(m, heirs, &t);
        g_variant_iter_init(&it, groups);
        while ((child = g_variant_iter_next_value(&it))) {
                restore_group(m, child);
                g_variant_unref(child);
        }
        g_variant_iter_init(&it, contexts);
        while ((child = g_variant_iter_next_value(&it))) {
                restore_context(m, child, &t);
                g_variant_unref(child);
        }
        /* A group none of whose live members came across is out of reach: gone, as in the old image. */
        g_hash_table_iter_init(&hit, m->groups);
        while (g_hash_table_iter_next(&hit, NULL, &value))
                if (((Group *) value)->n_live == 0)
                        g_hash_table_iter_remove(&hit);
        if (g_variant_n_children(systems) > 0 && cpu_list_n_possible(&n_cpus) < 0)
                n_cpus = 0;
        g_variant_iter_init(&it, systems);
        while ((child = g_variant_iter_next_value(&it))) {
                restore_system(m, child, &t, n_cpus);
                g_variant_unref(child);
        }
        system_owners_sync_cpus(m->systems);    /* CPUs that came or went meanwhile */
        restore_fork_watch(m, forks, &t);
        close_untaken(&t);
        g_free(t.fds);
        /* A thread that exited while its exit record was read by neither image, or read and dropped
         * before its context was made (exit-recheck.h), is gone now: its context goes too. */
        n_dead = manager_sweep_dead(m);
        log_info("Restored from the previous image: %zu contexts, %u groups, %zu system-wide contexts "
                 "(%zu of exited threads released).",
                 manager_n_contexts(m), g_hash_table_size(m->groups), system_owners_count(m->systems), n_dead);
        return 0;
}
