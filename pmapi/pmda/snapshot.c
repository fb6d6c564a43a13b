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

/* The group id at the end of a group object path, 0 for "/" or anything else. */
static uint32_t group_id_of_path(const char *path) {
        const char *p = path + strlen(PMAPI_GROUP_PREFIX "/");
        char *end;
        unsigned long v;

        if (strncmp(path, PMAPI_GROUP_PREFIX "/", strlen(PMAPI_GROUP_PREFIX "/")) != 0)
                return 0;
        v = strtoul(p, &end, 10);
        return *end == '\0' && v <= UINT32_MAX ? (uint32_t) v : 0;
}

static SnapshotGroup *group_of(Snapshot *s, uint32_t id) {
        for (size_t i = 0; i < s->n_groups; i++)
                if (s->groups[i].id == id)
                        return &s->groups[i];
        return NULL;
}

static int compare_threads(const void *a, const void *b) {
        const SnapshotThread *x = a, *y = b;
        return (x->tid > y->tid) - (x->tid < y->tid);
}

static int compare_groups(const void *a, const void *b) {
        const SnapshotGroup *x = a, *y = b;
        return (x->id > y->id) - (x->id < y->id);
}

/* ListContexts: the thread rows, and a group row for each group seen, read through its first
 * member listed. */
static int read_listing(sd_bus *bus, uint64_t timeout, Snapshot *s) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *origin, *group;
        int32_t pid, tid, creator;
        uint32_t owner, target;
        int counting, r;

        s->calls++;
        r = call_sync(bus, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE, "ListContexts", timeout, &reply, NULL);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(reply, 'a', "(iiuuisbo)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(iiuuisbo)", &pid, &tid, &owner, &target, &creator,
                                                  &origin, &counting, &group)) > 0) {
                SnapshotThread *l = reallocarray(s->threads, s->n_threads + 1, sizeof(*l));
                uint32_t id = group_id_of_path(group);

                if (!l)
                        return -ENOMEM;
                s->threads = l;
                l[s->n_threads++] = (SnapshotThread) { .pid = pid, .tid = tid, .owner_uid = owner,
                                                       .counting = counting, .group = id };
                if (id != 0 && !group_of(s, id)) {
                        SnapshotGroup *g = reallocarray(s->groups, s->n_groups + 1, sizeof(*g));
                        if (!g)
                                return -ENOMEM;
                        s->groups = g;
                        g[s->n_groups++] = (SnapshotGroup) { .id = id, .pid = pid, .tid = tid };
                }
        }
        if (r < 0)
                return r;
        /* Sorted, for the PMDA's look-ups by instance (pmapid lists threads by tid already). */
        qsort(s->threads, s->n_threads, sizeof(*s->threads), compare_threads);
        qsort(s->groups, s->n_groups, sizeof(*s->groups), compare_groups);
        return 0;
}

/* The pipelined part. Each request is one call and one reply into one row. */
typedef enum RequestKind {
        REQUEST_THREAD_DATA,
        REQUEST_THREAD_EVENTS,
        REQUEST_GROUP_DATA,
        REQUEST_GROUP_PROPERTIES,
        REQUEST_CPU_PROPERTIES,
} RequestKind;

typedef struct Pipeline Pipeline;
typedef struct Request {
        Pipeline *pipeline;
        RequestKind kind;
        size_t row;
} Request;

struct Pipeline {
        Snapshot *snapshot;
        uint8_t *got;                   /* per thread, group and CPU: which of its replies came back */
        size_t outstanding;
        int error;                      /* the first failure that is not one context's */
};

static uint8_t *got_of(Pipeline *p, RequestKind kind, size_t row) {
        Snapshot *s = p->snapshot;

        switch (kind) {
        case REQUEST_THREAD_DATA:
        case REQUEST_THREAD_EVENTS:
                return &p->got[row];
        case REQUEST_GROUP_DATA:
        case REQUEST_GROUP_PROPERTIES:
                return &p->got[s->n_threads + row];
        default:
                return &p->got[s->n_threads + s->n_groups + row];
        }
}

static int read_group_property(sd_bus_message *m, const char *name, void *row) {
        SnapshotGroup *g = row;
        int b, r;

        if (streq(name, "OwnerUid"))
                return sd_bus_message_read(m, "u", &g->owner_uid);
        if (streq(name, "Events"))
                return read_events(m, g->c.events) < 0 ? -EBADMSG : 1;
        if (streq(name, "Counting")) {
                r = sd_bus_message_read(m, "b", &b);
                g->counting = b;
                return r;
        }
        return 0;
}

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

/* A reply's contents into its row; < 0 when it does not read as the contract says. */
static int read_reply(sd_bus_message *m, Snapshot *s, RequestKind kind, size_t row) {
        uint64_t timestamp;
        int local, r;

        switch (kind) {
        case REQUEST_THREAD_DATA: {
                SnapshotThread *t = &s->threads[row];
                r = read_data(m, t->c.data);
                if (r >= 0)
                        r = sd_bus_message_read(m, "tbtt", &timestamp, &local, &t->c.enabled_ns, &t->c.running_ns);
                return r;
        }
        case REQUEST_THREAD_EVENTS:
                r = sd_bus_message_enter_container(m, 'v', "ai");
                if (r >= 0)
                        r = read_events(m, s->threads[row].c.events);
                return r;
        case REQUEST_GROUP_DATA: {
                SnapshotGroup *g = &s->groups[row];
                r = read_data(m, g->c.data);
                if (r >= 0)
                        r = sd_bus_message_read(m, "tiutt", &timestamp, &g->members, &g->flags, &g->c.enabled_ns,
                                                &g->c.running_ns);
                return r;
        }
        case REQUEST_GROUP_PROPERTIES:
                return read_properties(m, read_group_property, &s->groups[row]);
        default:
                return read_properties(m, read_cpu_property, &s->cpus[row]);
        }
}

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        Request *q = userdata;
        Pipeline *p = q->pipeline;
        const sd_bus_error *e = sd_bus_message_get_error(m);

        (void) ret_error;
        p->outstanding--;
        if (e) {
                /* The context went between the listing and this read (or a CPU is not counted):
                 * its row stays unread. pmapid itself gone fails the whole snapshot. */
                int r = error_to_errno(e, -EIO);
                if (r == -EHOSTDOWN && p->error == 0)
                        p->error = r;
                return 0;
        }
        if (read_reply(m, p->snapshot, q->kind, q->row) < 0) {
                if (p->error == 0)
                        p->error = -EBADMSG;
                return 0;
        }
        *got_of(p, q->kind, q->row) |= q->kind == REQUEST_THREAD_EVENTS || q->kind == REQUEST_GROUP_PROPERTIES ? 2 : 1;
        return 0;
}

static int send_request(sd_bus *bus, Request *q) {
        Snapshot *s = q->pipeline->snapshot;
        char path[64];
        int r;

        switch (q->kind) {
        case REQUEST_THREAD_DATA:
                r = sd_bus_call_method_async(bus, NULL, PMAPI_SERVICE, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE,
                                             "GetData", on_reply, q, "ii", s->threads[q->row].pid,
                                             s->threads[q->row].tid);
                break;
        case REQUEST_THREAD_EVENTS:
                (void) snprintf(path, sizeof(path), PMAPI_THREAD_PREFIX "/%d", (int) s->threads[q->row].tid);
                r = sd_bus_call_method_async(bus, NULL, PMAPI_SERVICE, path, PROPERTIES_INTERFACE, "Get", on_reply,
                                             q, "ss", PMAPI_THREAD_INTERFACE, "Events");
                break;
        case REQUEST_GROUP_DATA:
                r = sd_bus_call_method_async(bus, NULL, PMAPI_SERVICE, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE,
                                             "GetGroupData", on_reply, q, "ii", s->groups[q->row].pid,
                                             s->groups[q->row].tid);
                break;
        case REQUEST_GROUP_PROPERTIES:
                (void) snprintf(path, sizeof(path), PMAPI_GROUP_PREFIX "/%u", s->groups[q->row].id);
                r = sd_bus_call_method_async(bus, NULL, PMAPI_SERVICE, path, PROPERTIES_INTERFACE, "GetAll",
                                             on_reply, q, "s", PMAPI_GROUP_INTERFACE);
                break;
        default:
                (void) snprintf(path, sizeof(path), PMAPI_CPU_PREFIX "/%u", s->cpus[q->row].cpu);
                r = sd_bus_call_method_async(bus, NULL, PMAPI_SERVICE, path, PROPERTIES_INTERFACE, "GetAll",
                                             on_reply, q, "s", PMAPI_CPU_INTERFACE);
                break;
        }
        if (r >= 0)
                q->pipeline->outstanding++;
        return r;
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

static int run_pipeline(sd_bus *bus, Snapshot *s, uint64_t deadline) {
        size_t n = s->n_threads * 2 + s->n_groups * 2 + s->n_cpus, next = 0;
        _cleanup_free_ Request *requests = calloc(n + 1, sizeof(Request));
        _cleanup_free_ uint8_t *got = calloc(s->n_threads + s->n_groups + s->n_cpus + 1, 1);
        Pipeline p = { .snapshot = s, .got = got };
        int r = 0;

        if (!requests || !got)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_threads; i++) {
                requests[next++] = (Request) { &p, REQUEST_THREAD_DATA, i };
                requests[next++] = (Request) { &p, REQUEST_THREAD_EVENTS, i };
        }
        for (size_t i = 0; i < s->n_groups; i++) {
                requests[next++] = (Request) { &p, REQUEST_GROUP_DATA, i };
                requests[next++] = (Request) { &p, REQUEST_GROUP_PROPERTIES, i };
        }
        for (size_t i = 0; i < s->n_cpus; i++)
                requests[next++] = (Request) { &p, REQUEST_CPU_PROPERTIES, i };

        next = 0;
        while (r >= 0 && p.error == 0 && (next < n || p.outstanding > 0)) {
                while (r >= 0 && next < n && p.outstanding < SNAPSHOT_WINDOW)
                        r = send_request(bus, &requests[next++]);
                if (r >= 0 && p.outstanding > 0)
                        r = pump(bus, deadline);
        }
        s->calls += next;
        if (r < 0 || p.error < 0) {
                /* Replies still on their way must not land in freed requests. */
                sd_bus_close(bus);
                return r < 0 ? error_to_errno(&SD_BUS_ERROR_NULL, r) : p.error;
        }
        for (size_t i = 0; i < s->n_threads; i++)
                if (!(s->threads[i].read = got[i] == 3))
                        s->vanished++;
        for (size_t i = 0; i < s->n_groups; i++)
                if (!(s->groups[i].read = got[s->n_threads + i] == 3))
                        s->vanished++;
        for (size_t i = 0; i < s->n_cpus; i++)
                s->cpus[i].read = got[s->n_threads + s->n_groups + i] == 1;
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
        if (r >= 0 && (catalog->started_at != s->health.started_at || !catalog->events))
                r = read_catalog(bus, timeout_usec, catalog, s->health.started_at, &s->calls);
        if (r >= 0 && (parts & (SNAPSHOT_THREADS | SNAPSHOT_GROUPS)))
                r = read_listing(bus, timeout_usec, s);
        if (r >= 0 && !(parts & SNAPSHOT_THREADS)) {
                s->n_threads = 0;       /* listed only to find the groups */
        }
        if (r >= 0 && !(parts & SNAPSHOT_GROUPS))
                s->n_groups = 0;
        if (r >= 0 && (parts & SNAPSHOT_CPUS)) {
                long n = sysconf(_SC_NPROCESSORS_CONF);
                s->n_cpus = n > 0 ? (size_t) n : 1;
                s->cpus = calloc(s->n_cpus, sizeof(*s->cpus));
                if (!s->cpus)
                        r = -ENOMEM;
                for (size_t i = 0; r >= 0 && i < s->n_cpus; i++)
                        s->cpus[i].cpu = (uint32_t) i;
        }
        if (r >= 0)
                r = run_pipeline(bus, s, deadline);
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
