/* system-owners.c: see system-owners.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "cpu-list.h"
#include "log.h"
#include "macro.h"
#include "perf-syscall.h"
#include "system-owners.h"

/* A context's key: its owner process and, for a cgroup context, the cgroup (0 otherwise). */
typedef struct OwnerKey {
        pid_t pid;
        uint64_t cgroup_id;
} OwnerKey;

static guint key_hash(gconstpointer p) {
        const OwnerKey *k = p;
        return (guint) k->pid ^ (guint) (k->cgroup_id * 2654435761u) ^ (guint) (k->cgroup_id >> 32);
}

static gboolean key_equal(gconstpointer a, gconstpointer b) {
        const OwnerKey *x = a, *y = b;
        return x->pid == y->pid && x->cgroup_id == y->cgroup_id;
}

typedef struct SystemOwner {
        OwnerKey key;
        SystemOwners *set;
        SystemContext *context;
        int pidfd;                      /* the owner process: readable at its exit */
        sd_event_source *exit;
} SystemOwner;

static void owner_free(gpointer p) {
        SystemOwner *w = p;

        if (w->set->every_process == w->context)
                w->set->every_process = NULL;
        if (w->context->cgroup_id)
                log_info("Cgroup context of pid %d on cgroup %" PRIu64 " released.", (int) w->context->owner_pid,
                         w->context->cgroup_id);
        else
                log_info("System-wide context of pid %d released.", (int) w->context->owner_pid);
        sd_event_source_disable_unref(w->exit);
        if (w->pidfd >= 0)
                close(w->pidfd);
        system_free(w->context);
        free(w);
}

int system_owners_new(sd_event *event, SystemOwners **ret) {
        SystemOwners *o = calloc(1, sizeof(*o));

        if (!o)
                return -ENOMEM;
        o->event = event;
        o->by_pid = g_hash_table_new_full(key_hash, key_equal, NULL, owner_free);
        *ret = o;
        return 0;
}

SystemOwners *system_owners_free(SystemOwners *o) {
        if (!o)
                return NULL;
        g_hash_table_destroy(o->by_pid);
        cpu_watch_free(o->cpu_watch);
        free(o);
        return NULL;
}

static void apply_cpu(SystemContext *s, unsigned cpu, bool online) {
        int r = online ? system_cpu_online(s, cpu) : system_cpu_offline(s, cpu);

        if (r < 0 && r != -ENXIO && r != -ENODEV)
                log_warning_errno(r, "Following CPU %u %s for the system-wide context of pid %d failed: %m", cpu,
                                  online ? "online" : "offline", (int) s->owner_pid);
}

static void on_cpu_change(unsigned cpu, bool online, void *userdata) {
        SystemOwners *o = userdata;
        GHashTableIter it;
        gpointer value;

        g_hash_table_iter_init(&it, o->by_pid);
        while (g_hash_table_iter_next(&it, NULL, &value))
                apply_cpu(((SystemOwner *) value)->context, cpu, online);
}

static int on_owner_exit(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        SystemOwner *w = userdata;
        SystemOwners *o = w->set;

        (void) s, (void) fd, (void) revents;
        log_info("Owner of a %s context (pid %d) exited.", w->context->cgroup_id ? "cgroup" : "system-wide",
                 (int) w->context->owner_pid);
        system_owners_remove_context(o, w->context);
        return 0;
}

int system_owners_add(SystemOwners *o, SystemContext *s) {
        int pidfd = pidfd_open_process(s->owner_pid);

        if (pidfd < 0) {
                system_free(s);
                return -ESRCH;
        }
        return system_owners_add_pinned(o, s, pidfd);
}

static SystemOwner *lookup(const SystemOwners *o, pid_t pid, uint64_t cgroup_id) {
        OwnerKey k = { .pid = pid, .cgroup_id = cgroup_id };
        return g_hash_table_lookup(o->by_pid, &k);
}

int system_owners_pidfd(const SystemOwners *o, const SystemContext *s) {
        SystemOwner *w = lookup(o, s->owner_pid, s->cgroup_id);
        return w ? w->pidfd : -1;
}

int system_owners_add_pinned(SystemOwners *o, SystemContext *s, int pidfd) {
        SystemOwner *w = calloc(1, sizeof(*w));
        int r;

        if (!w) {
                close(pidfd);
                system_free(s);
                return -ENOMEM;
        }
        *w = (SystemOwner) { .key = { .pid = s->owner_pid, .cgroup_id = s->cgroup_id }, .set = o, .context = s,
                             .pidfd = pidfd };
        g_hash_table_replace(o->by_pid, &w->key, w);      /* the key lives in the value */
        if (!s->tree && !s->cgroup_id)
                o->every_process = s;
        if (!o->event)
                return 0;
        r = sd_event_add_io(o->event, &w->exit, w->pidfd, EPOLLIN, on_owner_exit, w);
        if (r < 0) {
                system_owners_remove_context(o, s);
                return r;
        }
        if (!o->cpu_watch) {
                r = cpu_watch_new(o->event, on_cpu_change, o, &o->cpu_watch);
                if (r < 0)              /* not fatal: every call checks the online CPUs anyway */
                        log_warning_errno(r, "Cannot follow CPU hotplug events: %m");
        }
        return 0;
}

SystemContext *system_owners_get(const SystemOwners *o, pid_t pid) {
        SystemOwner *w = lookup(o, pid, 0);
        return w ? w->context : NULL;
}

SystemContext *system_owners_get_cgroup(const SystemOwners *o, pid_t pid, uint64_t cgroup_id) {
        SystemOwner *w = cgroup_id ? lookup(o, pid, cgroup_id) : NULL;
        return w ? w->context : NULL;
}

static void remove_key(SystemOwners *o, pid_t pid, uint64_t cgroup_id) {
        OwnerKey k = { .pid = pid, .cgroup_id = cgroup_id };

        g_hash_table_remove(o->by_pid, &k);
        if (g_hash_table_size(o->by_pid) == 0)
                o->cpu_watch = cpu_watch_free(o->cpu_watch);
}

void system_owners_remove(SystemOwners *o, pid_t pid) {
        remove_key(o, pid, 0);
}

void system_owners_remove_context(SystemOwners *o, SystemContext *s) {
        remove_key(o, s->owner_pid, s->cgroup_id);
}

size_t system_owners_count(const SystemOwners *o) {
        return g_hash_table_size(o->by_pid);
}

size_t system_owners_count_uid(const SystemOwners *o, uid_t uid, bool cgroups) {
        GHashTableIter it;
        gpointer value;
        size_t n = 0;

        g_hash_table_iter_init(&it, o->by_pid);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                const SystemContext *s = ((SystemOwner *) value)->context;
                n += s->owner_uid == uid && (s->cgroup_id != 0) == cgroups;
        }
        return n;
}

size_t system_owners_groups_uid(const SystemOwners *o, uid_t uid) {
        GHashTableIter it;
        gpointer value;
        size_t n = 0;

        g_hash_table_iter_init(&it, o->by_pid);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                const SystemContext *s = ((SystemOwner *) value)->context;

                for (size_t cpu = 0; s->owner_uid == uid && cpu < s->n_cpus; cpu++)
                        n += s->cpus[cpu].n_groups;
        }
        return n;
}

void system_owners_sync_cpus(SystemOwners *o) {
        _cleanup_free_ bool *online = NULL;
        size_t n_cpus;
        GHashTableIter it;
        gpointer value;

        /* One read of the online CPUs for every context: all have every possible CPU number. */
        if (g_hash_table_size(o->by_pid) == 0 || cpu_list_n_possible(&n_cpus) < 0 ||
            cpu_list_read(CPU_LIST_ONLINE, n_cpus, &online) < 0)
                return;
        g_hash_table_iter_init(&it, o->by_pid);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                SystemContext *s = ((SystemOwner *) value)->context;

                for (size_t cpu = 0; cpu < MIN(s->n_cpus, n_cpus); cpu++)
                        if (online[cpu] != system_cpu_open(s, (unsigned) cpu))
                                apply_cpu(s, (unsigned) cpu, online[cpu]);
        }
}

SystemContext **system_owners_all(const SystemOwners *o, size_t *ret_n) {
        SystemContext **all = calloc(g_hash_table_size(o->by_pid) + 1, sizeof(SystemContext *));
        GHashTableIter it;
        gpointer value;
        size_t n = 0;

        if (!all)
                return NULL;
        g_hash_table_iter_init(&it, o->by_pid);
        while (g_hash_table_iter_next(&it, NULL, &value))
                all[n++] = ((SystemOwner *) value)->context;
        *ret_n = n;
        return all;
}
