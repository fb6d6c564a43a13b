/* handover-save.c: writes a manager's state as a handover blob (handover.h, handover-type.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/magic.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "handover-type.h"
#include "handover.h"
#include "heirs.h"
#include "macro.h"

/* The fds a blob names, in the order of their indices. */
typedef struct FdList {
        GArray *fds;
} FdList;

static int32_t fd_index(FdList *l, int fd) {
        if (fd < 0)
                return -1;
        g_array_append_val(l->fds, fd);
        return (int32_t) l->fds->len - 1;
}

/* The process a pidfd refers to, from its fdinfo ("Pid:"); 0 if none is named. */
static pid_t fdinfo_pid(int fd) {
        char path[64], line[128];
        FILE *f;
        int pid = 0;

        (void) snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
        f = fopen(path, "re");
        while (f && fgets(line, sizeof(line), f))
                if (sscanf(line, "Pid: %d", &pid) == 1)
                        break;
        if (f)
                fclose(f);
        return pid > 0 ? (pid_t) pid : 0;
}

/* A BPF map's or link's key: its id, from fdinfo; 0 for another fd. */
static uint64_t fdinfo_bpf_key(int fd) {
        char path[64], line[128];
        unsigned id = 0;
        uint64_t key = 0;
        FILE *f;

        (void) snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
        f = fopen(path, "re");
        while (f && !key && fgets(line, sizeof(line), f))
                if (sscanf(line, "map_id: %u", &id) == 1)
                        key = HANDOVER_KEY_INODE | HANDOVER_KEY_BPF | id;
                else if (sscanf(line, "link_id: %u", &id) == 1)
                        key = HANDOVER_KEY_INODE | HANDOVER_KEY_BPF | HANDOVER_KEY_THREAD | id;
        if (f)
                fclose(f);
        return key;
}

uint64_t handover_fd_key(int fd) {
        const uint64_t flags = HANDOVER_KEY_INODE | HANDOVER_KEY_THREAD | HANDOVER_KEY_ANON_PIDFD;
        struct statfs sf;
        struct stat st;
        uint64_t id;

        if (ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0)
                return id & ~HANDOVER_KEY_INODE;
        if (fstat(fd, &st) < 0 || fstatfs(fd, &sf) < 0)
                return 0;
        /* Before Linux 6.9 every pidfd has the one anonymous inode: the process it names tells them
         * apart (a process that exited meanwhile names none, and its pidfd is not found again). */
        if (sf.f_type == ANON_INODE_FS_MAGIC) {
                pid_t pid = fdinfo_pid(fd);
                return pid > 0 ? HANDOVER_KEY_INODE | HANDOVER_KEY_ANON_PIDFD | (uint64_t) pid : fdinfo_bpf_key(fd);
        }
        /* With pidfs, a process's pidfd and its main thread's share the inode; O_EXCL (PIDFD_THREAD)
         * tells them apart. A /proc thread pin (thread-pin.h) is the thread's own inode of procfs. */
        return HANDOVER_KEY_INODE | ((fcntl(fd, F_GETFL) & O_EXCL) || sf.f_type == PROC_SUPER_MAGIC ?
                                     HANDOVER_KEY_THREAD : 0) | ((uint64_t) st.st_ino & ~flags);
}

static GVariant *keys_variant(const FdList *l) {
        GVariantBuilder b;

        g_variant_builder_init(&b, G_VARIANT_TYPE("at"));
        for (guint i = 0; i < l->fds->len; i++)
                g_variant_builder_add(&b, "t", handover_fd_key(g_array_index(l->fds, int, i)));
        return g_variant_builder_end(&b);
}

static GVariant *program_variant(const Program *p) {
        GVariantBuilder sets;

        g_variant_builder_init(&sets, G_VARIANT_TYPE("a(uai)"));
        for (size_t k = 0; k < program_n_sets(p); k++)
                g_variant_builder_add(&sets, "(u@ai)", p->sets[k].mode,
                                      g_variant_new_fixed_array(G_VARIANT_TYPE_INT32, p->sets[k].events, MAX_COUNTERS,
                                                                sizeof(int32_t)));
        return g_variant_new("(uuba(uai))", (uint32_t) program_n_sets(p), p->slice_ms, p->multi_mode, &sets);
}

static GVariant *vector_variant(const AcctVector v) {
        return g_variant_new_fixed_array(G_VARIANT_TYPE_INT64, v, ACCT_SLOTS, sizeof(int64_t));
}

/* n_sets vectors one after the other: set 0's, then more[0 .. n_sets - 2] (more may be NULL for 1). */
static GVariant *vectors_variant(const AcctVector first, const AcctVector *more, size_t n_sets) {
        int64_t all[PM_MX_MAX_SETS * ACCT_SLOTS];

        memcpy(all, first, sizeof(AcctVector));
        if (n_sets > 1)
                memcpy(all + ACCT_SLOTS, more, (n_sets - 1) * sizeof(AcctVector));
        return g_variant_new_fixed_array(G_VARIANT_TYPE_INT64, all, n_sets * ACCT_SLOTS, sizeof(int64_t));
}

static GVariant *comm_variant(const char *comm) {
        return g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, comm, strnlen(comm, CONTEXT_COMM_MAX - 1), 1);
}

/* The fds of a counter group, as indices. */
static GVariant *counters_variant(const CounterBackend *b, CounterGroup *g, FdList *l) {
        int fds[MAX_COUNTERS + 1];      /* a private leader and MAX_COUNTERS counters */
        GVariantBuilder ab;
        size_t n = b->fds(g, fds, MAX_COUNTERS + 1);

        g_variant_builder_init(&ab, G_VARIANT_TYPE("ai"));
        for (size_t i = 0; i < n && i < MAX_COUNTERS + 1; i++)
                g_variant_builder_add(&ab, "i", fd_index(l, fds[i]));
        return g_variant_builder_end(&ab);
}

static GVariant *group_variant(const Group *g) {
        GVariantBuilder records;

        g_variant_builder_init(&records, G_VARIANT_TYPE("a(iiayax)"));
        for (size_t i = 0; i < g->n_records; i++) {
                const GroupMemberRecord *r = &g->records[i];
                g_variant_builder_add(&records, "(ii@ay@ax)", r->pid, r->tid, comm_variant(r->comm),
                                      vectors_variant(r->counts, r->more_counts, group_n_sets(g)));
        }
        return g_variant_new("(uiuu@" HANDOVER_PROGRAM "bbbu@axa(iiayax)uui)", g->id, g->pid, g->owner_uid,
                             g->target_uid, program_variant(&g->program), g->counting, g->consistent, g->process,
                             g->n_members, vectors_variant(g->retained[0], &g->retained[1], group_n_sets(g)), &records, g->n_records_dropped,
                             g->n_missed, (int32_t) g->missed_error);
}

static GVariant *context_variant(Context *c, FdList *l) {
        GVariantBuilder history, counters, bases;

        context_sync_local(c);
        g_variant_builder_init(&history, G_VARIANT_TYPE("a(tb)"));
        for (size_t k = c->n_history; k > 0; k--) {
                const StateChange *h = &c->history[(c->next_history + CONTEXT_STATE_HISTORY - k) % CONTEXT_STATE_HISTORY];
                g_variant_builder_add(&history, "(tb)", h->time_ns, h->counting);
        }
        g_variant_builder_init(&counters, G_VARIANT_TYPE("aai"));
        g_variant_builder_init(&bases, G_VARIANT_TYPE("a(tt)"));
        for (size_t k = 0; k < context_n_sets(c); k++) {
                const CounterTimes *b = k == 0 ? &c->time_base : &c->more_sets[k - 1].time_base;
                g_variant_builder_add_value(&counters, counters_variant(c->backend, context_set_counters(c, k), l));
                g_variant_builder_add(&bases, "(tt)", (guint64) b->enabled_ns, (guint64) b->running_ns);
        }
        return g_variant_new("(iiuui@ayi@" HANDOVER_PROGRAM "bbba(tb)uittaaia(tt))", c->pid, c->tid, c->owner_uid,
                             c->target_uid, c->creator_pid, comm_variant(c->comm), (int32_t) c->origin,
                             program_variant(c->program), c->counting, c->enabled, c->attached_late, &history,
                             c->group ? c->group->id : 0u, fd_index(l, c->pidfd), (guint64) c->thread_ino,
                             (guint64) c->attached_ns, &counters, &bases);
}

static GVariant *system_variant(const SystemContext *s, int owner_pidfd, FdList *l) {
        GVariantBuilder cpus;

        g_variant_builder_init(&cpus, G_VARIANT_TYPE("a(ubaxaaxaai)"));
        for (size_t i = 0; i < s->n_cpus; i++) {
                const SystemCpu *c = &s->cpus[i];
                GVariantBuilder groups, bases;

                g_variant_builder_init(&groups, G_VARIANT_TYPE("aai"));
                g_variant_builder_init(&bases, G_VARIANT_TYPE("aax"));
                for (size_t k = 0; k < c->n_groups; k++) {
                        g_variant_builder_add_value(&groups, counters_variant(s->backend, c->groups[k], l));
                        g_variant_builder_add_value(&bases, vector_variant(c->bases[k]));
                }
                g_variant_builder_add(&cpus, "(ub@axaaxaai)", c->cpu, c->counted, vectors_variant(c->kept[0], &c->kept[1], s->n_sets), &bases,
                                      &groups);
        }
        return g_variant_new("(iu@" HANDOVER_PROGRAM "bb@aiia(ubaxaaxaai)t@ay)", s->owner_pid, s->owner_uid,
                             program_variant(&s->program), s->counting, s->tree != NULL,
                             g_variant_new_fixed_array(G_VARIANT_TYPE_INT32, s->tree, s->tree ? s->n_tree : 0,
                                                       sizeof(int32_t)),
                             fd_index(l, owner_pidfd), &cpus, (guint64) s->cgroup_id,
                             g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, s->cgroup_path ? s->cgroup_path : "",
                                                       s->cgroup_path ? strlen(s->cgroup_path) : 0, 1));
}

static GVariant *heirs_variant(Heirs *h, FdList *l) {
        int fds[16];
        size_t n = h ? heirs_fds(h, fds, G_N_ELEMENTS(fds)) : 0;
        GVariantBuilder b;

        g_variant_builder_init(&b, G_VARIANT_TYPE("ai"));
        for (size_t i = 0; i < n; i++)
                g_variant_builder_add(&b, "i", fd_index(l, fds[i]));
        return g_variant_builder_end(&b);
}

static GVariant *fork_watch_variant(const ForkWatch *w, FdList *l) {
        size_t n = w ? fork_watch_fds(w, NULL, NULL, 0) : 0;
        _cleanup_free_ unsigned *cpu_ids = calloc(n + 1, sizeof(unsigned));
        _cleanup_free_ int *fds = calloc(n + 1, sizeof(int));
        GVariantBuilder cpus;

        g_variant_builder_init(&cpus, G_VARIANT_TYPE("a(ui)"));
        if (n > 0 && cpu_ids && fds) {
                n = fork_watch_fds(w, cpu_ids, fds, n);
                for (size_t i = 0; i < n; i++)
                        g_variant_builder_add(&cpus, "(ui)", cpu_ids[i], fd_index(l, fds[i]));
        }
        return g_variant_new("(ba(ui))", fork_watch_enabled(w), &cpus);
}

static GVariant *manager_variant(Manager *m, const char *self_name, FdList *l) {
        GVariantBuilder predecessors, groups, contexts, systems;
        GHashTableIter it;
        gpointer value;
        size_t n_pred = g_strv_length(m->predecessors), first;
        SystemContext **list;
        size_t n_systems;
        GVariant *forks, *heirs;

        /* The newest HANDOVER_MAX_PREDECESSORS names, this image's last. */
        g_variant_builder_init(&predecessors, G_VARIANT_TYPE("as"));
        first = n_pred + (self_name ? 1 : 0) > HANDOVER_MAX_PREDECESSORS ?
                n_pred + (self_name ? 1 : 0) - HANDOVER_MAX_PREDECESSORS : 0;
        for (size_t i = first; i < n_pred; i++)
                g_variant_builder_add(&predecessors, "s", m->predecessors[i]);
        if (self_name)
                g_variant_builder_add(&predecessors, "s", self_name);

        g_variant_builder_init(&groups, G_VARIANT_TYPE("a" HANDOVER_GROUP));
        g_hash_table_iter_init(&it, m->groups);
        while (g_hash_table_iter_next(&it, NULL, &value))
                g_variant_builder_add_value(&groups, group_variant(value));

        g_variant_builder_init(&contexts, G_VARIANT_TYPE("a" HANDOVER_CONTEXT));
        g_hash_table_iter_init(&it, m->threads);
        while (g_hash_table_iter_next(&it, NULL, &value))
                g_variant_builder_add_value(&contexts, context_variant(value, l));

        g_variant_builder_init(&systems, G_VARIANT_TYPE("a" HANDOVER_SYSTEM));
        n_systems = 0;
        list = system_owners_all(m->systems, &n_systems);
        if (!list)
                g_error("Out of memory for the handover");     /* as every glib allocation here */
        for (size_t i = 0; i < n_systems; i++)
                g_variant_builder_add_value(&systems, system_variant(list[i],
                                            system_owners_pidfd(m->systems, list[i]), l));
        free(list);
        forks = fork_watch_variant(m->fork_watch, l);
        heirs = heirs_variant(m->heirs, l);

        /* The fd list last: every index above is in it by now. */
        return g_variant_new("(uasuttt@ai@ata" HANDOVER_GROUP "a" HANDOVER_CONTEXT "a" HANDOVER_SYSTEM "@"
                             HANDOVER_FORKWATCH "@ai)",
                             (uint32_t) HANDOVER_VERSION, &predecessors, m->next_group_id, m->n_attached_late,
                             m->n_missed, m->n_refused,
                             g_variant_new_fixed_array(G_VARIANT_TYPE_INT32, l->fds->data, l->fds->len, sizeof(int32_t)),
                             keys_variant(l), &groups, &contexts, &systems, forks, heirs);
}

static int write_sealed(const void *data, size_t size, int *ret) {
        _cleanup_close_ int fd = memfd_create("pmapid-handover", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        const char *p = data;

        if (fd < 0)
                return -errno;
        while (size > 0) {
                ssize_t k = write(fd, p, size);
                if (k < 0)
                        return -errno;
                p += k;
                size -= (size_t) k;
        }
        if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
                return -errno;
        *ret = TAKE_FD(fd);
        return 0;
}

int handover_save(Manager *m, const char *self_name, Handover *ret) {
        FdList l = { g_array_new(FALSE, FALSE, sizeof(int)) };
        GVariant *v = g_variant_ref_sink(manager_variant(m, self_name, &l));
        int r;

        r = write_sealed(g_variant_get_data(v), g_variant_get_size(v), &ret->memfd);
        g_variant_unref(v);
        if (r < 0) {
                g_array_free(l.fds, TRUE);
                return r;
        }
        ret->n_fds = l.fds->len;
        ret->fds = (int *) g_array_free(l.fds, FALSE);
        return 0;
}

void handover_clear(Handover *h) {
        if (h->memfd >= 0)
                close(h->memfd);
        g_free(h->fds);
        *h = (Handover) { .memfd = -1 };
}
