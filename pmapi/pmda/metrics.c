/* metrics.c: see metrics.h. Counter values are PM_SEM_INSTANT, not PM_SEM_COUNTER: under AIX's
 * rules a group's value falls when a member leaves or resets, and any value falls to 0 at a reset,
 * and a PCP counter that falls reads as a wrap (pmval, pmlogger's rate conversion, Prometheus'
 * rate()) and gives a huge false rate. pmapid's own tallies only grow within one pmapid and are
 * counters. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

#define COUNT PMDA_PMUNITS(0, 0, 1, 0, 0, PM_COUNT_ONE)
#define NSEC PMDA_PMUNITS(0, 1, 0, 0, PM_TIME_NSEC, 0)
#define USEC PMDA_PMUNITS(0, 1, 0, 0, PM_TIME_USEC, 0)
#define NONE PMDA_PMUNITS(0, 0, 0, 0, 0, 0)

#define VALUE_HELP(scope) \
        "The 64-bit count of the counter since the " scope "'s program was set or last reset, as " \
        "pmapid reads it now (AIX pmapi's accumulated data). Instances are named '<id>:<counter> " \
        "<event>'. Instantaneous, not a PCP counter: by AIX's accounting rules a value falls to 0 " \
        "at a reset, and a group's value falls when a member leaves or resets its data, which a " \
        "counter would report as a wrap. Clock events (PM_TASK_CLOCK, PM_CPU_CLOCK) count ns."
#define EVENT_HELP "The short name of the event the counter counts (pmlist, pm_init's short_name)."
#define STATUS_HELP \
        "The event's status in pmapid's catalog: verified (checked against a workload of known " \
        "count on this machine), caveat (checked, with a limit its description gives) or unverified."
#define ENABLED_HELP(what) \
        "How long the counters were switched on since the program was set or last reset (perf's " \
        "time enabled, " what "); pm_get_Tdata's accu_purr. Falls to 0 at a reset."
#define RUNNING_HELP(what) \
        "Of the time enabled, how long the counters were on the PMU (perf's time running, " what \
        "); pm_get_Tdata's accu_timebase. Less than time_enabled means time-shared counters."

const MetricDef metric_defs[] = {
        { CLUSTER_DAEMON, 0, "daemon.up", PM_TYPE_U32, METRIC_NO_INDOM, PM_SEM_DISCRETE, NONE,
          "1 when pmapid answered this fetch, 0 otherwise",
          "1 when pmapid answered on the bus for this fetch, 0 when it is not running or restarting: "
          "then every other pmapi metric has no value (never the last values seen)." },
        { CLUSTER_DAEMON, 1, "daemon.version", PM_TYPE_STRING, METRIC_NO_INDOM, PM_SEM_DISCRETE, NONE,
          "pmapid's version", "The version pmapid reports (its Version property)." },
        { CLUSTER_DAEMON, 2, "daemon.contexts", PM_TYPE_U32, METRIC_NO_INDOM, PM_SEM_INSTANT, COUNT,
          "live thread contexts in pmapid", "Live thread contexts in pmapid, of every user (ContextCount)." },
        { CLUSTER_DAEMON, 3, "daemon.groups", PM_TYPE_U32, METRIC_NO_INDOM, PM_SEM_INSTANT, COUNT,
          "live counting groups in pmapid", "Live counting groups in pmapid, of every user (GroupCount)." },
        { CLUSTER_DAEMON, 4, "daemon.max_contexts", PM_TYPE_U32, METRIC_NO_INDOM, PM_SEM_DISCRETE, COUNT,
          "pmapid's limit on contexts", "pmapid's limit on thread contexts in all (pmapid.conf MaxContexts)." },
        { CLUSTER_DAEMON, 5, "daemon.calls_refused", PM_TYPE_U64, METRIC_NO_INDOM, PM_SEM_COUNTER, COUNT,
          "calls the access rule refused",
          "Calls pmapid's access rule refused since it started (CallsRefused; each is in its log)." },
        { CLUSTER_DAEMON, 6, "daemon.threads_attached_late", PM_TYPE_U64, METRIC_NO_INDOM, PM_SEM_COUNTER, COUNT,
          "new threads attached late",
          "New threads pmapid attached from perf fork records because their library never called "
          "Inherit: their first instructions went uncounted (ThreadsAttachedLate)." },
        { CLUSTER_DAEMON, 7, "daemon.threads_missed", PM_TYPE_U64, METRIC_NO_INDOM, PM_SEM_COUNTER, COUNT,
          "new threads that could not be attached",
          "Threads that should have inherited a context and could not (gone first, or a limit): they "
          "ran uncounted (ThreadsMissed)." },
        { CLUSTER_DAEMON, 8, "daemon.started_at", PM_TYPE_U64, METRIC_NO_INDOM, PM_SEM_DISCRETE, USEC,
          "when pmapid started (us since the epoch)",
          "When this pmapid process started, in microseconds since the epoch (StartedAt); it changes at "
          "a restart, which loses every context (a planned re-execution keeps them and the time)." },

        { CLUSTER_THREAD, 0, "thread.pid", PM_TYPE_32, INDOM_THREAD, PM_SEM_DISCRETE, NONE,
          "process of the thread", "The process id of the thread the context counts." },
        { CLUSTER_THREAD, 1, "thread.owner_uid", PM_TYPE_U32, INDOM_THREAD, PM_SEM_DISCRETE, NONE,
          "uid that made the context", "The uid of the caller that made the context (its limits, its grants)." },
        { CLUSTER_THREAD, 2, "thread.counting", PM_TYPE_U32, INDOM_THREAD, PM_SEM_INSTANT, NONE,
          "1 while the thread counts", "1 while the context counts: its own state and its group's, AND-ed." },
        { CLUSTER_THREAD, 3, "thread.group", PM_TYPE_U32, INDOM_THREAD, PM_SEM_DISCRETE, NONE,
          "the thread's counting group, 0 for none",
          "The id of the counting group the thread is a member of, 0 for none." },
        { CLUSTER_THREAD, 4, "thread.time_enabled", PM_TYPE_U64, INDOM_THREAD, PM_SEM_INSTANT, NSEC,
          "time the counters were enabled", ENABLED_HELP("the thread's own") },
        { CLUSTER_THREAD, 5, "thread.time_running", PM_TYPE_U64, INDOM_THREAD, PM_SEM_INSTANT, NSEC,
          "time the counters counted (the thread's CPU time while counting)",
          RUNNING_HELP("for a thread: its CPU time while counting") },
        { CLUSTER_THREAD_COUNTER, 0, "thread.counter.value", PM_TYPE_64, INDOM_THREAD_COUNTER, PM_SEM_INSTANT, COUNT,
          "count of a thread context's counter", VALUE_HELP("thread context") },
        { CLUSTER_THREAD_COUNTER, 1, "thread.counter.event", PM_TYPE_STRING, INDOM_THREAD_COUNTER, PM_SEM_DISCRETE,
          NONE, "event a thread context's counter counts", EVENT_HELP },
        { CLUSTER_THREAD_COUNTER, 2, "thread.counter.status", PM_TYPE_STRING, INDOM_THREAD_COUNTER, PM_SEM_DISCRETE,
          NONE, "status of the counter's event", STATUS_HELP },

        { CLUSTER_GROUP, 0, "group.pid", PM_TYPE_32, INDOM_GROUP, PM_SEM_DISCRETE, NONE,
          "process the group was created in", "The process the group was created in (its first member's)." },
        { CLUSTER_GROUP, 1, "group.owner_uid", PM_TYPE_U32, INDOM_GROUP, PM_SEM_DISCRETE, NONE,
          "uid that made the group", "The uid of the caller that made the group." },
        { CLUSTER_GROUP, 2, "group.members", PM_TYPE_32, INDOM_GROUP, PM_SEM_INSTANT, COUNT,
          "members, live and dead",
          "The group's members, live and dead; members that left are not counted (pm_ginfo_t.members)." },
        { CLUSTER_GROUP, 3, "group.consistent", PM_TYPE_U32, INDOM_GROUP, PM_SEM_INSTANT, NONE,
          "1 while the group's data are consistent",
          "1 while the group's data are consistent; 0 after a group reset with several members, or when "
          "a thread that should have joined could not (pm_ginfo_t.flags.b.is_consistent)." },
        { CLUSTER_GROUP, 4, "group.process", PM_TYPE_U32, INDOM_GROUP, PM_SEM_DISCRETE, NONE,
          "1 for a process group (PM_PROCESS)", "1 when the group covers the threads of one process (PM_PROCESS)." },
        { CLUSTER_GROUP, 5, "group.partial", PM_TYPE_U32, INDOM_GROUP, PM_SEM_INSTANT, NONE,
          "1 when threads that should have joined ran uncounted",
          "1 when threads that should have joined the group could not (pmapid's limits, its fds, the "
          "kernel): the group's data leave them out (ginfo flag 0x8)." },
        { CLUSTER_GROUP, 6, "group.counting", PM_TYPE_U32, INDOM_GROUP, PM_SEM_INSTANT, NONE,
          "1 while the group's state is on",
          "1 while the group's own counting state is on (members count when theirs is on too)." },
        { CLUSTER_GROUP, 7, "group.time_enabled", PM_TYPE_U64, INDOM_GROUP, PM_SEM_INSTANT, NSEC,
          "time the members' counters were enabled, summed",
          ENABLED_HELP("summed over the members, dead ones included") },
        { CLUSTER_GROUP, 8, "group.time_running", PM_TYPE_U64, INDOM_GROUP, PM_SEM_INSTANT, NSEC,
          "time the members' counters counted, summed", RUNNING_HELP("summed over the members, dead ones included") },
        { CLUSTER_GROUP_COUNTER, 0, "group.counter.value", PM_TYPE_64, INDOM_GROUP_COUNTER, PM_SEM_INSTANT, COUNT,
          "count of a group's counter", VALUE_HELP("group") },
        { CLUSTER_GROUP_COUNTER, 1, "group.counter.event", PM_TYPE_STRING, INDOM_GROUP_COUNTER, PM_SEM_DISCRETE, NONE,
          "event a group's counter counts", EVENT_HELP },
        { CLUSTER_GROUP_COUNTER, 2, "group.counter.status", PM_TYPE_STRING, INDOM_GROUP_COUNTER, PM_SEM_DISCRETE, NONE,
          "status of the counter's event", STATUS_HELP },

        { CLUSTER_CPU, 0, "cpu.online", PM_TYPE_U32, INDOM_CPU, PM_SEM_INSTANT, NONE,
          "1 while the CPU is online", "1 while the CPU is online; an offline CPU keeps its last counts." },
        { CLUSTER_CPU, 1, "cpu.counting", PM_TYPE_U32, INDOM_CPU, PM_SEM_INSTANT, NONE,
          "1 while the system context counts", "1 while the system-wide context counts." },
        { CLUSTER_CPU, 2, "cpu.owner_pid", PM_TYPE_32, INDOM_CPU, PM_SEM_DISCRETE, NONE,
          "process that owns the system-wide context", "The process that set the system-wide program (pm_set_program)." },
        { CLUSTER_CPU, 3, "cpu.time_enabled", PM_TYPE_U64, INDOM_CPU, PM_SEM_INSTANT, NSEC,
          "time the CPU's counters were enabled", ENABLED_HELP("for a CPU: wall time while counting") },
        { CLUSTER_CPU, 4, "cpu.time_running", PM_TYPE_U64, INDOM_CPU, PM_SEM_INSTANT, NSEC,
          "time the CPU's counters counted", RUNNING_HELP("for a CPU: all the time unless time-shared") },
        { CLUSTER_CPU_COUNTER, 0, "cpu.counter.value", PM_TYPE_64, INDOM_CPU_COUNTER, PM_SEM_INSTANT, COUNT,
          "count of a CPU's counter (system-wide context)", VALUE_HELP("system-wide context") },
        { CLUSTER_CPU_COUNTER, 1, "cpu.counter.event", PM_TYPE_STRING, INDOM_CPU_COUNTER, PM_SEM_DISCRETE, NONE,
          "event a CPU's counter counts", EVENT_HELP },
        { CLUSTER_CPU_COUNTER, 2, "cpu.counter.status", PM_TYPE_STRING, INDOM_CPU_COUNTER, PM_SEM_DISCRETE, NONE,
          "status of the counter's event", STATUS_HELP },

        { CLUSTER_PMDA, 0, "pmda.bus_calls", PM_TYPE_U64, METRIC_NO_INDOM, PM_SEM_COUNTER, COUNT,
          "bus calls pmdapmapi made",
          "Calls pmdapmapi made to pmapid since it started: a fetch costs one for pmapid's state, one "
          "per page of 1,024 thread contexts or groups, and one per CPU." },
        { CLUSTER_PMDA, 1, "pmda.read_time", PM_TYPE_U64, METRIC_NO_INDOM, PM_SEM_INSTANT, USEC,
          "time the last read of pmapid took", "How long pmdapmapi's last read of pmapid took, in microseconds." },
        { CLUSTER_PMDA, 2, "pmda.failures", PM_TYPE_U64, METRIC_NO_INDOM, PM_SEM_COUNTER, COUNT,
          "reads of pmapid that failed", "Reads of pmapid that failed (pmapid absent or restarting, a time-out)." },
};
const size_t n_metric_defs = sizeof(metric_defs) / sizeof(metric_defs[0]);

static const char *const indom_text[_INDOM_MAX][2] = {
        [INDOM_THREAD] = { "thread contexts, by thread id",
                           "The live thread contexts pmapid shows this PMDA's uid (root: all), named by tid." },
        [INDOM_THREAD_COUNTER] = { "counters of thread contexts",
                                   "Each counting counter of each thread context: '<tid>:<counter> <event>', "
                                   "instance number tid * 8 + counter." },
        [INDOM_GROUP] = { "counting groups, by group id", "The live counting groups pmapid shows this PMDA's uid." },
        [INDOM_GROUP_COUNTER] = { "counters of groups",
                                  "Each counting counter of each group: '<group>:<counter> <event>', instance "
                                  "number group * 8 + counter." },
        [INDOM_CPU] = { "CPUs the system-wide context counts",
                        "The CPUs of the system-wide context (pm_set_program)." },
        [INDOM_CPU_COUNTER] = { "counters of the system-wide context's CPUs",
                                "'<cpu>:<counter> <event>', instance number cpu * 8 + counter." },
};

pmdaMetric *metrics_table_new(void) {
        pmdaMetric *t = calloc(n_metric_defs, sizeof(*t));

        if (!t)
                return NULL;
        for (size_t i = 0; i < n_metric_defs; i++) {
                const MetricDef *d = &metric_defs[i];
                t[i] = (pmdaMetric) {
                        .m_user = (void *) d,
                        .m_desc = { .pmid = PMDA_PMID(d->cluster, d->item), .type = d->type,
                                    .indom = d->indom == METRIC_NO_INDOM ? PM_INDOM_NULL : (pmInDom) d->indom,
                                    .sem = d->sem, .units = d->units },
                };
        }
        return t;
}

SnapshotParts metrics_parts_of(const MetricDef *d) {
        switch (d->cluster) {
        case CLUSTER_THREAD:
        case CLUSTER_THREAD_COUNTER:
                return SNAPSHOT_THREADS;
        case CLUSTER_GROUP:
        case CLUSTER_GROUP_COUNTER:
                return SNAPSHOT_GROUPS;
        case CLUSTER_CPU:
        case CLUSTER_CPU_COUNTER:
                return SNAPSHOT_CPUS;
        default:
                return 0;
        }
}

const char *metrics_text(const MetricDef *d, int type) {
        return (type & PM_TEXT_ONELINE) ? d->oneline : d->help;
}

const char *metrics_indom_text(MetricIndom indom, int type) {
        if (indom < 0 || indom >= _INDOM_MAX)
                return NULL;
        return indom_text[indom][(type & PM_TEXT_ONELINE) ? 0 : 1];
}

/* Rows by instance: threads come sorted by tid, groups by id (snapshot.c), CPUs by number. */
static const SnapshotThread *find_thread(const Snapshot *s, unsigned tid) {
        size_t lo = 0, hi = s->n_threads;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if ((unsigned) s->threads[mid].tid == tid)
                        return &s->threads[mid];
                if ((unsigned) s->threads[mid].tid < tid)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return NULL;
}

static const SnapshotGroup *find_group(const Snapshot *s, unsigned id) {
        size_t lo = 0, hi = s->n_groups;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (s->groups[mid].id == id)
                        return &s->groups[mid];
                if (s->groups[mid].id < id)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return NULL;
}

static const SnapshotCpu *find_cpu(const Snapshot *s, unsigned cpu) {
        return cpu < s->n_cpus && s->cpus[cpu].read ? &s->cpus[cpu] : NULL;
}

static const char *event_name(const SnapshotCatalog *c, int32_t id) {
        const SnapshotEvent *e = snapshot_catalog_find(c, id);
        return e ? e->name : "unknown";
}

void metrics_indom_names_clear(IndomNames *names) {
        for (size_t i = 0; i < names->n_names; i++)
                free(names->names[i]);
        free(names->names);
        *names = (IndomNames) {};
}

static char *add_name(IndomNames *names, char *name) {
        char **l;

        if (!name)
                return NULL;
        l = reallocarray(names->names, names->n_names + 1, sizeof(*l));
        if (!l) {
                free(name);
                return NULL;
        }
        names->names = l;
        return l[names->n_names++] = name;
}

/* Appends one instance to d; -ENOMEM when out of memory. */
static int add_instance(pmdaIndom *d, IndomNames *names, int inst, char *name) {
        pmdaInstid *l;

        if (!add_name(names, name))
                return -ENOMEM;
        l = reallocarray(d->it_set, (size_t) d->it_numinst + 1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        d->it_set = l;
        l[d->it_numinst++] = (pmdaInstid) { .i_inst = inst, .i_name = name };
        return 0;
}

static char *name_of(unsigned id) {
        char *n;
        return asprintf(&n, "%u", id) < 0 ? NULL : n;
}

/* One context's instance and its counters' instances. */
static int add_context(pmdaIndom *ctx, pmdaIndom *counters, IndomNames *names, const SnapshotCatalog *c,
                       unsigned id, const SnapshotCounters *k) {
        int r = add_instance(ctx, names, (int) id, name_of(id));

        for (int i = 0; r >= 0 && i < SNAPSHOT_COUNTERS; i++) {
                char *n;
                if (k->events[i] < 0)
                        continue;
                if (asprintf(&n, "%u:%d %s", id, i, event_name(c, k->events[i])) < 0)
                        return -ENOMEM;
                r = add_instance(counters, names, (int) (id * SNAPSHOT_COUNTERS + (unsigned) i), n);
        }
        return r;
}

int metrics_build_indoms(const Snapshot *s, const SnapshotCatalog *c, pmdaIndom *indoms, IndomNames *names) {
        int r = 0;

        for (int i = 0; i < _INDOM_MAX; i++) {
                free(indoms[i].it_set);
                indoms[i].it_set = NULL;
                indoms[i].it_numinst = 0;
        }
        metrics_indom_names_clear(names);
        if (!s)
                return 0;
        /* Instance numbers are id * 8 + counter in an int: ids past that are left out. */
        for (size_t i = 0; r >= 0 && i < s->n_threads; i++)
                if ((unsigned) s->threads[i].tid < (1u << 27))
                        r = add_context(&indoms[INDOM_THREAD], &indoms[INDOM_THREAD_COUNTER], names, c,
                                        (unsigned) s->threads[i].tid, &s->threads[i].c);
        for (size_t i = 0; r >= 0 && i < s->n_groups; i++)
                if (s->groups[i].id < (1u << 27))
                        r = add_context(&indoms[INDOM_GROUP], &indoms[INDOM_GROUP_COUNTER], names, c,
                                        s->groups[i].id, &s->groups[i].c);
        for (size_t i = 0; r >= 0 && i < s->n_cpus; i++)
                if (s->cpus[i].read)
                        r = add_context(&indoms[INDOM_CPU], &indoms[INDOM_CPU_COUNTER], names, c, s->cpus[i].cpu,
                                        &s->cpus[i].c);
        return r;
}

/* A counter instance's counters and index, or NULL. */
static const SnapshotCounters *counter_of(const MetricDef *d, unsigned inst, const Snapshot *s, int *ret_k) {
        unsigned id = inst / SNAPSHOT_COUNTERS;
        const SnapshotCounters *k = NULL;

        if (d->cluster == CLUSTER_THREAD_COUNTER) {
                const SnapshotThread *t = find_thread(s, id);
                k = t ? &t->c : NULL;
        } else if (d->cluster == CLUSTER_GROUP_COUNTER) {
                const SnapshotGroup *g = find_group(s, id);
                k = g ? &g->c : NULL;
        } else {
                const SnapshotCpu *c = find_cpu(s, id);
                k = c ? &c->c : NULL;
        }
        *ret_k = (int) (inst % SNAPSHOT_COUNTERS);
        return k && k->events[*ret_k] >= 0 ? k : NULL;
}

static int counter_value(const MetricDef *d, unsigned inst, const Snapshot *s, const SnapshotCatalog *c,
                         pmAtomValue *atom) {
        const SnapshotEvent *e;
        const SnapshotCounters *k;
        int i;

        k = counter_of(d, inst, s, &i);
        if (!k)
                return PM_ERR_INST;
        switch (d->item) {
        case 0:
                atom->ll = k->data[i];
                break;
        case 1:
                atom->cp = (char *) event_name(c, k->events[i]);
                break;
        default:
                e = snapshot_catalog_find(c, k->events[i]);
                atom->cp = (char *) snapshot_status_name(e ? e->status : 0);
                break;
        }
        return PMDA_FETCH_STATIC;
}

static int thread_value(unsigned item, const SnapshotThread *t, pmAtomValue *atom) {
        switch (item) {
        case 0: atom->l = t->pid; break;
        case 1: atom->ul = t->owner_uid; break;
        case 2: atom->ul = t->counting; break;
        case 3: atom->ul = t->group; break;
        case 4: atom->ull = t->c.enabled_ns; break;
        default: atom->ull = t->c.running_ns; break;
        }
        return PMDA_FETCH_STATIC;
}

static int group_value(unsigned item, const SnapshotGroup *g, pmAtomValue *atom) {
        switch (item) {
        case 0: atom->l = g->pid; break;
        case 1: atom->ul = g->owner_uid; break;
        case 2: atom->l = g->members; break;
        case 3: atom->ul = (g->flags & 0x1) != 0; break;
        case 4: atom->ul = (g->flags & 0x2) != 0; break;
        case 5: atom->ul = (g->flags & 0x8) != 0; break;
        case 6: atom->ul = g->counting; break;
        case 7: atom->ull = g->c.enabled_ns; break;
        default: atom->ull = g->c.running_ns; break;
        }
        return PMDA_FETCH_STATIC;
}

static int cpu_value(unsigned item, const SnapshotCpu *c, pmAtomValue *atom) {
        switch (item) {
        case 0: atom->ul = c->online; break;
        case 1: atom->ul = c->counting; break;
        case 2: atom->l = c->owner_pid; break;
        case 3: atom->ull = c->c.enabled_ns; break;
        default: atom->ull = c->c.running_ns; break;
        }
        return PMDA_FETCH_STATIC;
}

static int daemon_value(unsigned item, const Snapshot *s, pmAtomValue *atom) {
        const SnapshotHealth *h = &s->health;

        switch (item) {
        case 1: atom->cp = h->version ? h->version : (char *) ""; break;
        case 2: atom->ul = h->contexts; break;
        case 3: atom->ul = h->groups; break;
        case 4: atom->ul = h->max_contexts; break;
        case 5: atom->ull = h->refused; break;
        case 6: atom->ull = h->attached_late; break;
        case 7: atom->ull = h->missed; break;
        default: atom->ull = h->started_at; break;
        }
        return PMDA_FETCH_STATIC;
}

static int pmda_value(unsigned item, const PmdaStats *stats, pmAtomValue *atom) {
        switch (item) {
        case 0: atom->ull = stats->bus_calls; break;
        case 1: atom->ull = stats->last_read_usec; break;
        default: atom->ull = stats->failures; break;
        }
        return PMDA_FETCH_STATIC;
}

int metrics_value(const MetricDef *d, unsigned inst, const Snapshot *s, const SnapshotCatalog *c,
                  const PmdaStats *stats, pmAtomValue *atom) {
        if (d->cluster == CLUSTER_PMDA)
                return pmda_value(d->item, stats, atom);
        if (d->cluster == CLUSTER_DAEMON && d->item == 0) {
                atom->ul = s != NULL;
                return PMDA_FETCH_STATIC;
        }
        if (!s)
                return d->indom == METRIC_NO_INDOM ? PM_ERR_AGAIN : PM_ERR_INST;
        switch (d->cluster) {
        case CLUSTER_DAEMON:
                return daemon_value(d->item, s, atom);
        case CLUSTER_THREAD: {
                const SnapshotThread *t = find_thread(s, inst);
                return t ? thread_value(d->item, t, atom) : PM_ERR_INST;
        }
        case CLUSTER_GROUP: {
                const SnapshotGroup *g = find_group(s, inst);
                return g ? group_value(d->item, g, atom) : PM_ERR_INST;
        }
        case CLUSTER_CPU: {
                const SnapshotCpu *k = find_cpu(s, inst);
                return k ? cpu_value(d->item, k, atom) : PM_ERR_INST;
        }
        default:
                return counter_value(d, inst, s, c, atom);
        }
}

/* The PMNS: one non-leaf per name prefix, in the order the table first names it. */
static bool prefix_seen(const char *name, size_t len, size_t before) {
        for (size_t i = 0; i < before; i++)
                if (strncmp(metric_defs[i].name, name, len) == 0 && metric_defs[i].name[len] == '.')
                        return true;
        return false;
}

static void write_node(FILE *f, const char *domain, const char *prefix, size_t len) {
        fprintf(f, "%s%.*s {\n", len ? "pmapi." : "pmapi", (int) len, prefix);
        for (size_t i = 0; i < n_metric_defs; i++) {
                const char *n = metric_defs[i].name, *rest, *dot;
                if (len && (strncmp(n, prefix, len) != 0 || n[len] != '.'))
                        continue;
                rest = len ? n + len + 1 : n;
                dot = strchr(rest, '.');
                if (!dot)
                        fprintf(f, "    %s\t%s:%u:%u\n", rest, domain, metric_defs[i].cluster, metric_defs[i].item);
                else if (!prefix_seen(n, (size_t) (dot - n), i))
                        fprintf(f, "    %.*s\n", (int) (dot - rest), rest);
        }
        fprintf(f, "}\n\n");
}

void metrics_write_pmns(FILE *f, const char *domain) {
        fprintf(f, "/* pmdapmapi's metrics, written by pmdapmapi --pmns: do not edit. */\n\n");
        write_node(f, domain, "", 0);
        for (size_t i = 0; i < n_metric_defs; i++) {
                const char *n = metric_defs[i].name;
                for (const char *dot = strchr(n, '.'); dot; dot = strchr(dot + 1, '.'))
                        if (!prefix_seen(n, (size_t) (dot - n), i))
                                write_node(f, domain, n, (size_t) (dot - n));
        }
}
