/* event-catalog.h: the event catalog pmapid offers, as data: the curated rows (core/events/, with
 * AIX-style short names and a testing status), the catalog built from them and libpfm4
 * (kernel/event-table.h builds it), and lookups in it. No I/O here: the catalog does no D-Bus,
 * keeps no per-client state and opens nothing. */
#pragma once

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmapi.h"

/* One row of a curated table (daemon/core/events/). */
typedef struct EventDef {
        int id;                         /* stable id; the tables keep ids unique and increasing */
        const char *short_name;         /* AIX style: PM_PAGE_FLT */
        const char *pfm_name;           /* libpfm4 name to encode: perf::PAGE-FAULTS */
        const char *description;        /* ours: libpfm4 gives only the constant's name */
        int status;                     /* PM_VERIFIED, PM_CAVEAT or PM_UNVERIFIED */
        const char *checked_by;         /* the test that checks the count (verified, caveat) */
        bool owner_may_count_kernel;    /* the kernel shows this count to the thread's owner anyway
                                           (getrusage, /proc), so kernel mode is not a secret */
        /* A CPU family's row: other libpfm4 names for the same count on other families, tried in
         * order after pfm_name; the first that encodes (and opens) on the present PMUs is used.
         * Family names are not qualified by a PMU: libpfm4 looks them up on the PMUs present. */
        const char *alternatives[4];
} EventDef;

typedef struct EventTableSource {
        const char *family;             /* PMU family the rows belong to */
        const char *source;             /* where the rows' knowledge comes from */
        const EventDef *rows;
        size_t n_rows;
} EventTableSource;

extern const EventTableSource event_source_perf_software;
extern const EventTableSource event_source_perf_generic_hw;
extern const EventTableSource event_source_cpu_families;

/* The curated tables, in id order. */
extern const EventTableSource *const event_sources[];
extern const size_t n_event_sources;

/* Catalog ids. AIX's event ids are indices into a POWER processor's per-counter tables, numbers
 * below a thousand, and AIX programs hard-code them (IPM's POWER3 table asks for 5, 3, 2, 1...).
 * Ours start far above any of them, so that such a program gets PM_EEVENT instead of counting one
 * of our events under a POWER name. A curated row's id is EVENT_ID(n), n < 1000, stable across
 * machines and releases. */
#define EVENT_ID_BASE 100000
#define EVENT_ID(n) (EVENT_ID_BASE + (n))
/* Ids given to libpfm4 events that no curated row names, in libpfm4's order; status unverified. */
#define EVENT_ID_EXTRA_BASE EVENT_ID(1000)

typedef struct Event {
        int id;
        char *short_name;
        char *long_name;                /* libpfm4's canonical name, pmu::NAME */
        char *description;
        int status;
        bool owner_may_count_kernel;
        struct perf_event_attr attr;    /* type and config only; mode bits are set per program */
} Event;

/* One predefined event group (daemon/core/events/groups.c): AIX's groups for mode.b.is_group. */
typedef struct EventGroupDef {
        const char *short_name;         /* pm_faults: unique, the same on every machine */
        const char *long_name;
        const char *description;
        const char *events[MAX_COUNTERS];       /* curated short names in counter order, then NULL */
} EventGroupDef;

extern const EventGroupDef event_group_defs[];
extern const size_t n_event_group_defs;

/* One derived metric (daemon/core/events/metrics.c): numerator / denominator * scale, the denominator
 * an event, or the elapsed time in seconds when NULL. */
typedef struct MetricDef {
        const char *name;               /* ipc */
        const char *description;
        const char *numerator;          /* curated short names */
        const char *denominator;        /* NULL: seconds of elapsed time */
        double scale;
        const char *unit;               /* "insn per cycle", "%", "faults/s" */
} MetricDef;

extern const MetricDef metric_defs[];
extern const size_t n_metric_defs;


/* A group the catalog offers: every event in it, and (when probed) all open as one perf group. */
typedef struct EventGroup {
        int id;                         /* its index in EventTable.groups: dense from 0, per machine */
        const EventGroupDef *def;
        int32_t events[MAX_COUNTERS];   /* catalog ids in counter order, COUNT_NOTHING after */
} EventGroup;

typedef struct EventTable {
        Event *events;                  /* ordered by id */
        size_t n_events;
        char *pmu_name;                 /* processor name reported by pm_init */
        unsigned n_counters;            /* pm_init's maxpmcs: the CPU PMU's general and fixed
                                         * counters (libpfm4), at most MAX_COUNTERS; MAX_COUNTERS
                                         * where no CPU PMU is reachable (software events) */
        unsigned pmu_counters;          /* the same, 0 where no CPU PMU is reachable */
        EventGroup *groups;             /* groups[i].id == i */
        size_t n_groups;
} EventTable;

/* An event's strings freed (the catalog's rows own them). */
void event_clear(Event *e);
EventTable *event_table_free(EventTable *t);
const Event *event_table_find(const EventTable *t, int id);
const Event *event_table_find_name(const EventTable *t, const char *short_name);
const EventGroup *event_table_find_group(const EventTable *t, int id);
/* Whether every event m names is in t. */
bool event_table_has_metric(const EventTable *t, const MetricDef *m);
