/* snapshot.c: see snapshot.h. Three calls in turn (the Manager's properties, GetEvents when pmapid
 * is new, ListContexts), then every per-context call pipelined: a thread is GetData and its
 * object's Events, a group GetGroupData through one of its members and its object's properties, a
 * CPU its object's properties. A context that goes between the listing and its read is left out
 * of this snapshot, never given stale numbers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bus-names.h"
#include "macro.h"
#include "snapshot.h"

#define PROPERTIES_INTERFACE "org.freedesktop.DBus.Properties"
#define streq(a, b) (strcmp((a), (b)) == 0)

static size_t min_size(size_t a, size_t b) {
        return a < b ? a : b;
}

static uint64_t now_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

/* pmapid absent (not started, restarting): the bus says so by name. */
static int error_to_errno(const sd_bus_error *e, int r) {
        if (sd_bus_error_has_name(e, SD_BUS_ERROR_SERVICE_UNKNOWN) ||
            sd_bus_error_has_name(e, SD_BUS_ERROR_NAME_HAS_NO_OWNER) ||
            sd_bus_error_has_name(e, SD_BUS_ERROR_NO_REPLY) || r == -ECONNRESET || r == -ENOTCONN)
                return -EHOSTDOWN;
        return r < 0 ? r : -EIO;
}

static int call_sync(sd_bus *bus, const char *path, const char *interface, const char *method, uint64_t timeout,
                     sd_bus_message **ret, const char *types, ...) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        va_list ap;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, PMAPI_SERVICE, path, interface, method);
        if (r >= 0 && types) {
                va_start(ap, types);
                r = sd_bus_message_appendv(m, types, ap);
                va_end(ap);
        }
        if (r >= 0)
                r = sd_bus_call(bus, m, timeout, &error, ret);
        return r < 0 ? error_to_errno(&error, r) : 0;
}

/* Reads an "ax" of at most SNAPSHOT_COUNTERS values into data (the rest 0). */
static int read_data(sd_bus_message *m, int64_t *data) {
        const void *p;
        size_t size;
        int r;

        r = sd_bus_message_read_array(m, 'x', &p, &size);
        if (r < 0)
                return r;
        memset(data, 0, sizeof(int64_t) * SNAPSHOT_COUNTERS);
        memcpy(data, p, min_size(size, sizeof(int64_t) * SNAPSHOT_COUNTERS));
        return 0;
}

static int read_events(sd_bus_message *m, int32_t *events) {
        const void *p;
        size_t size;
        int r;

        r = sd_bus_message_read_array(m, 'i', &p, &size);
        if (r < 0)
                return r;
        for (size_t k = 0; k < SNAPSHOT_COUNTERS; k++)
                events[k] = -1;
        memcpy(events, p, min_size(size, sizeof(int32_t) * SNAPSHOT_COUNTERS));
        return 0;
}

/* One property of an a{sv} that names it; the others are skipped. */
typedef int (*PropertyReader)(sd_bus_message *m, const char *name, void *row);

static int read_properties(sd_bus_message *m, PropertyReader read, void *row) {
        int r;

        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                const char *name, *contents;
                char type;

                r = sd_bus_message_read(m, "s", &name);
                if (r >= 0)
                        r = sd_bus_message_peek_type(m, &type, &contents);
                if (r >= 0)
                        r = sd_bus_message_enter_container(m, 'v', contents);
                if (r >= 0)
                        r = read(m, name, row);
                if (r == 0)
                        r = sd_bus_message_skip(m, contents);
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

static int read_health_property(sd_bus_message *m, const char *name, void *row) {
        SnapshotHealth *h = row;
        const char *s;
        int r;

        if (streq(name, "Version")) {
                r = sd_bus_message_read(m, "s", &s);
                if (r >= 0 && !(h->version = strdup(s)))
                        r = -ENOMEM;
                return r < 0 ? r : 1;
        }
        if (streq(name, "ContextCount"))
                return sd_bus_message_read(m, "u", &h->contexts);
        if (streq(name, "GroupCount"))
                return sd_bus_message_read(m, "u", &h->groups);
        if (streq(name, "MaxContexts"))
                return sd_bus_message_read(m, "u", &h->max_contexts);
        if (streq(name, "ThreadsAttachedLate"))
                return sd_bus_message_read(m, "t", &h->attached_late);
        if (streq(name, "ThreadsMissed"))
                return sd_bus_message_read(m, "t", &h->missed);
        if (streq(name, "CallsRefused"))
                return sd_bus_message_read(m, "t", &h->refused);
        if (streq(name, "StartedAt"))
                return sd_bus_message_read(m, "t", &h->started_at);
        return 0;
}

static int read_catalog(sd_bus *bus, uint64_t timeout, SnapshotCatalog *c, uint64_t started_at, size_t *calls) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *processor, *name, *long_name, *description;
        uint32_t counters, status;
        int32_t id;
        int r;

        snapshot_catalog_clear(c);
        (*calls)++;
        r = call_sync(bus, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE, "GetEvents", timeout, &reply, NULL);
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "su", &processor, &counters);
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "(iusss)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(iusss)", &id, &status, &name, &long_name,
                                                  &description)) > 0) {
                SnapshotEvent *l = reallocarray(c->events, c->n_events + 1, sizeof(*l));
                if (!l)
                        return -ENOMEM;
                c->events = l;
                l[c->n_events] = (SnapshotEvent) { .id = id, .status = status, .name = strdup(name) };
                if (!l[c->n_events++].name)
                        return -ENOMEM;
        }
        if (r < 0) {
                snapshot_catalog_clear(c);
                return r;
        }
        c->started_at = started_at;
        return 0;
}

static int compare_threads(const void *a, const void *b) {
        const SnapshotThread *x = a, *y = b;
        return (x->tid > y->tid) - (x->tid < y->tid);
}

static int compare_groups(const void *a, const void *b) {
        const SnapshotGroup *x = a, *y = b;
        return (x->id > y->id) - (x->id < y->id);
}

/* The rest of a row after its ids: events, data, enabled, running. */
static int read_counters(sd_bus_message *m, SnapshotCounters *c) {
        int r = read_events(m, c->events);

        if (r >= 0)
                r = read_data(m, c->data);
        if (r >= 0)
                r = sd_bus_message_read(m, "tt", &c->enabled_ns, &c->running_ns);
        return r;
}

static int read_thread_row(sd_bus_message *m, Snapshot *s) {
        SnapshotThread t = {};
        int counting, r;

        r = sd_bus_message_enter_container(m, 'r', "iiubuaiaxtt");
        if (r <= 0)
                return r;
        r = sd_bus_message_read(m, "iiubu", &t.pid, &t.tid, &t.owner_uid, &counting, &t.group);
        if (r >= 0)
                r = read_counters(m, &t.c);
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        t.counting = counting;
        SnapshotThread *l = reallocarray(s->threads, s->n_threads + 1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        s->threads = l;
        l[s->n_threads++] = t;
        return 1;
}

static int read_group_row(sd_bus_message *m, Snapshot *s) {
        SnapshotGroup g = {};
        int counting, r;

        r = sd_bus_message_enter_container(m, 'r', "uiuiubaiaxtt");
        if (r <= 0)
                return r;
        r = sd_bus_message_read(m, "uiuiub", &g.id, &g.pid, &g.owner_uid, &g.members, &g.flags, &counting);
        if (r >= 0)
                r = read_counters(m, &g.c);
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        g.counting = counting;
        SnapshotGroup *l = reallocarray(s->groups, s->n_groups + 1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        s->groups = l;
        l[s->n_groups++] = g;
        return 1;
}

/* Every page of ReadContexts or ReadGroups: rows come in id order, each page after the last. */
static int read_pages(sd_bus *bus, uint64_t deadline, Snapshot *s, bool groups) {
        uint32_t after = 0, next;
        int more = 1, r;

        while (more) {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
                uint64_t now = now_usec();

                if (now >= deadline)
                        return -ETIMEDOUT;
                s->calls++;
                r = call_sync(bus, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE, groups ? "ReadGroups" : "ReadContexts",
                              deadline - now, &reply, "uu", after, (uint32_t) SNAPSHOT_PAGE);
                if (r < 0)
                        return r;
                r = sd_bus_message_enter_container(reply, 'a', groups ? "(uiuiubaiaxtt)" : "(iiubuaiaxtt)");
                while (r >= 0 && (r = groups ? read_group_row(reply, s) : read_thread_row(reply, s)) > 0)
                        ;
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                if (r >= 0)
                        r = sd_bus_message_read(reply, "bu", &more, &next);
                if (r < 0)
                        return r;
                if (more && next <= after)
                        return -EBADMSG;        /* no progress: a pmapid that does not page */
                after = next;
        }
        /* Sorted, for the PMDA's look-ups by instance (pages come in order already). */
        if (groups)
                qsort(s->groups, s->n_groups, sizeof(*s->groups), compare_groups);
        else
                qsort(s->threads, s->n_threads, sizeof(*s->threads), compare_threads);
        return 0;
}

/* The CPUs' objects, their GetAll calls pipelined. */
typedef struct Pipeline {
        Snapshot *snapshot;
        size_t outstanding;
        int error;                      /* pmapid itself gone, or a reply that does not parse */
} Pipeline;

typedef struct Request {
        Pipeline *pipeline;
        size_t row;
} Request;

static int read_cpu_property(sd_bus_message *m, const char *name, void *row) {
        SnapshotCpu *c = row;
        int b, r;

        if (streq(name, "Online") || streq(name, "Counting")) {
                r = sd_bus_message_read(m, "b", &b);
                *(streq(name, "Online") ? &c->online : &c->counting) = b;
                return r;
        }
        if (streq(name, "OwnerPid"))
                return sd_bus_message_read(m, "i", &c->owner_pid);
        if (streq(name, "Events"))
                return read_events(m, c->c.events) < 0 ? -EBADMSG : 1;
        if (streq(name, "Data"))
                return read_data(m, c->c.data) < 0 ? -EBADMSG : 1;
        if (streq(name, "TimeEnabled"))
                return sd_bus_message_read(m, "t", &c->c.enabled_ns);
        if (streq(name, "TimeRunning"))
                return sd_bus_message_read(m, "t", &c->c.running_ns);
        return 0;
}

static int on_cpu_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        Request *q = userdata;
        Pipeline *p = q->pipeline;
        const sd_bus_error *e = sd_bus_message_get_error(m);

        (void) ret_error;
        p->outstanding--;
        if (e) {
                /* A CPU the system context does not count (or no system context): no row. */
                if (error_to_errno(e, -EIO) == -EHOSTDOWN && p->error == 0)
                        p->error = -EHOSTDOWN;
                return 0;
        }
        if (read_properties(m, read_cpu_property, &p->snapshot->cpus[q->row]) < 0) {
                if (p->error == 0)
                        p->error = -EBADMSG;
                return 0;
        }
        p->snapshot->cpus[q->row].read = true;
        return 0;
}

/* Waits for one reply or the deadline. */
static int pump(sd_bus *bus, uint64_t deadline) {
        int r;

        for (;;) {
                uint64_t now;

                r = sd_bus_process(bus, NULL);
                if (r != 0)
                        return r;
                now = now_usec();
                if (now >= deadline)
                        return -ETIMEDOUT;
                r = sd_bus_wait(bus, deadline - now);
                if (r < 0)
                        return r;
        }
}

static int read_cpus(sd_bus *bus, uint64_t deadline, Snapshot *s) {
        long n_conf = sysconf(_SC_NPROCESSORS_CONF);
        _cleanup_free_ Request *requests = NULL;
        Pipeline p = { .snapshot = s };
        size_t next = 0;
        int r = 0;

        s->n_cpus = n_conf > 0 ? (size_t) n_conf : 1;
        s->cpus = calloc(s->n_cpus, sizeof(*s->cpus));
        requests = calloc(s->n_cpus, sizeof(*requests));
        if (!s->cpus || !requests)
                return -ENOMEM;
        while (r >= 0 && p.error == 0 && (next < s->n_cpus || p.outstanding > 0)) {
                while (r >= 0 && next < s->n_cpus && p.outstanding < SNAPSHOT_WINDOW) {
                        char path[64];
                        requests[next] = (Request) { &p, next };
                        s->cpus[next].cpu = (uint32_t) next;
                        (void) snprintf(path, sizeof(path), PMAPI_CPU_PREFIX "/%zu", next);
                        r = sd_bus_call_method_async(bus, NULL, PMAPI_SERVICE, path, PROPERTIES_INTERFACE, "GetAll",
                                                     on_cpu_reply, &requests[next], "s", PMAPI_CPU_INTERFACE);
                        next++;
                        if (r >= 0)
                                p.outstanding++;
                }
                if (r >= 0 && p.outstanding > 0)
                        r = pump(bus, deadline);
        }
        s->calls += next;
        if (r < 0 || p.error < 0) {
                /* Replies still on their way must not land in freed requests: the caller drops the
                 * connection (snapshot.h). */
                sd_bus_close(bus);
                return r < 0 ? error_to_errno(&SD_BUS_ERROR_NULL, r) : p.error;
        }
        return 0;
}

int snapshot_read(sd_bus *bus, SnapshotParts parts, uint64_t timeout_usec, SnapshotCatalog *catalog,
                  Snapshot **ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        uint64_t deadline = now_usec() + timeout_usec;
        Snapshot *s;
        int r;

        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->calls++;
        r = call_sync(bus, PMAPI_MANAGER_PATH, PROPERTIES_INTERFACE, "GetAll", timeout_usec, &reply, "s",
                      PMAPI_MANAGER_INTERFACE);
        if (r >= 0)
                r = read_properties(reply, read_health_property, &s->health);
        if (r >= 0 && (catalog->started_at != s->health.started_at || !catalog->events)) {
                uint64_t now = now_usec();      /* the catalog gets what is left, not a time-out of its own */
                r = now < deadline ? read_catalog(bus, deadline - now, catalog, s->health.started_at, &s->calls) :
                                     -ETIMEDOUT;
        }
        if (r >= 0 && (parts & SNAPSHOT_THREADS))
                r = read_pages(bus, deadline, s, /* groups= */ false);
        if (r >= 0 && (parts & SNAPSHOT_GROUPS))
                r = read_pages(bus, deadline, s, /* groups= */ true);
        if (r >= 0 && (parts & SNAPSHOT_CPUS))
                r = read_cpus(bus, deadline, s);
        if (r < 0) {
                snapshot_free(s);
                return r;
        }
        *ret = s;
        return 0;
}

Snapshot *snapshot_free(Snapshot *s) {
        if (!s)
                return NULL;
        free(s->health.version);
        free(s->threads);
        free(s->groups);
        free(s->cpus);
        free(s);
        return NULL;
}

void snapshot_catalog_clear(SnapshotCatalog *c) {
        for (size_t i = 0; i < c->n_events; i++)
                free(c->events[i].name);
        free(c->events);
        *c = (SnapshotCatalog) {};
}

const SnapshotEvent *snapshot_catalog_find(const SnapshotCatalog *c, int32_t id) {
        for (size_t i = 0; i < c->n_events; i++)
                if (c->events[i].id == id)
                        return &c->events[i];
        return NULL;
}

const char *snapshot_status_name(uint32_t status) {
        switch (status) {
        case 1:
                return "verified";
        case 2:
                return "unverified";
        case 4:
                return "caveat";
        default:
                return "unknown";
        }
}
