/* system-owners.c: see system-owners.h. */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "cpu-list.h"
#include "log.h"
#include "macro.h"
#include "perf-syscall.h"
#include "system-owners.h"

typedef struct SystemOwner {
        SystemOwners *set;
        SystemContext *context;
        int pidfd;                      /* the owner process: readable at its exit */
        sd_event_source *exit;
} SystemOwner;

static void owner_free(gpointer p) {
        SystemOwner *w = p;

        if (w->set->every_process == w->context)
                w->set->every_process = NULL;
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
        o->by_pid = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, owner_free);
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
        pid_t pid = w->context->owner_pid;

        (void) s, (void) fd, (void) revents;
        log_info("Owner of a system-wide context (pid %d) exited.", (int) pid);
        system_owners_remove(o, pid);
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

int system_owners_pidfd(const SystemOwners *o, pid_t pid) {
        SystemOwner *w = g_hash_table_lookup(o->by_pid, GINT_TO_POINTER(pid));
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
        *w = (SystemOwner) { .set = o, .context = s, .pidfd = pidfd };
        g_hash_table_insert(o->by_pid, GINT_TO_POINTER(s->owner_pid), w);
        if (!s->tree)
                o->every_process = s;
        if (!o->event)
                return 0;
        r = sd_event_add_io(o->event, &w->exit, w->pidfd, EPOLLIN, on_owner_exit, w);
        if (r < 0) {
                system_owners_remove(o, s->owner_pid);
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
        SystemOwner *w = g_hash_table_lookup(o->by_pid, GINT_TO_POINTER(pid));
        return w ? w->context : NULL;
}

void system_owners_remove(SystemOwners *o, pid_t pid) {
        g_hash_table_remove(o->by_pid, GINT_TO_POINTER(pid));
        if (g_hash_table_size(o->by_pid) == 0)
                o->cpu_watch = cpu_watch_free(o->cpu_watch);
}

size_t system_owners_count(const SystemOwners *o) {
        return g_hash_table_size(o->by_pid);
}

size_t system_owners_count_uid(const SystemOwners *o, uid_t uid) {
        GHashTableIter it;
        gpointer value;
        size_t n = 0;

        g_hash_table_iter_init(&it, o->by_pid);
        while (g_hash_table_iter_next(&it, NULL, &value))
                n += ((SystemOwner *) value)->context->owner_uid == uid;
        return n;
}

size_t system_owners_groups_uid(const SystemOwners *o, uid_t uid) {
        GHashTableIter it;
        gpointer value;
        size_t n = 0;

        g_hash_table_iter_init(&it, o->by_pid);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                const SystemContext *s = ((SystemOwner *) value)->context;
                if (s->owner_uid == uid)
                        n += (s->tree ? s->n_tree : 1) * s->n_cpus;
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

size_t system_owners_list(const SystemOwners *o, SystemContext **ret, size_t max) {
        GHashTableIter it;
        gpointer value;
        size_t n = 0;

        g_hash_table_iter_init(&it, o->by_pid);
        while (n < max && g_hash_table_iter_next(&it, NULL, &value))
                ret[n++] = ((SystemOwner *) value)->context;
        return n;
}
