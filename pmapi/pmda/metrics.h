/* metrics.h: pmdapmapi's metrics as data (names, PMIDs, types, semantics, help), its instance
 * domains, and how each value comes out of a snapshot. The PMNS file is written from the same
 * table (pmdapmapi --pmns), so the two cannot drift. */
#pragma once

#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include <stdio.h>

#include "snapshot.h"

typedef enum MetricCluster {
        CLUSTER_DAEMON,
        CLUSTER_THREAD,
        CLUSTER_THREAD_COUNTER,
        CLUSTER_GROUP,
        CLUSTER_GROUP_COUNTER,
        CLUSTER_CPU,
        CLUSTER_CPU_COUNTER,
        CLUSTER_PMDA,
        _CLUSTER_MAX,
} MetricCluster;

/* Instance domain serials. Counter instances are (context, counter): context * 8 + counter. */
typedef enum MetricIndom {
        INDOM_THREAD,
        INDOM_THREAD_COUNTER,
        INDOM_GROUP,
        INDOM_GROUP_COUNTER,
        INDOM_CPU,
        INDOM_CPU_COUNTER,
        _INDOM_MAX,
} MetricIndom;

#define METRIC_NO_INDOM (-1)

typedef struct MetricDef {
        MetricCluster cluster;
        unsigned item;
        const char *name;               /* below "pmapi." */
        int type;                       /* PM_TYPE_* */
        int indom;                      /* MetricIndom or METRIC_NO_INDOM */
        int sem;                        /* PM_SEM_* */
        pmUnits units;
        const char *oneline, *help;
} MetricDef;

/* What the PMDA itself did, for the pmapi.pmda metrics. */
typedef struct PmdaStats {
        uint64_t bus_calls, failures;
        uint64_t last_read_usec;
} PmdaStats;

extern const MetricDef metric_defs[];
extern const size_t n_metric_defs;

/* The PCP metric table (pmdaMetric with m_user pointing to its MetricDef), allocated. */
pmdaMetric *metrics_table_new(void);
/* Which snapshot parts a metric's value needs. */
SnapshotParts metrics_parts_of(const MetricDef *d);
/* The help of a metric (PM_TEXT_ONELINE or PM_TEXT_HELP) or of an instance domain, or NULL. */
const char *metrics_text(const MetricDef *d, int type);
const char *metrics_indom_text(MetricIndom indom, int type);

/* The instance domains of a snapshot into indoms[_INDOM_MAX] (it_indom left as it is). The names
 * live in the strings of *names until the next call; s NULL (pmapid down) gives empty domains. */
typedef struct IndomNames {
        char **names;
        size_t n_names;
} IndomNames;
int metrics_build_indoms(const Snapshot *s, const SnapshotCatalog *c, pmdaIndom *indoms, IndomNames *names);
void metrics_indom_names_clear(IndomNames *names);

/* A metric's value for instance inst: PMDA_FETCH_STATIC, PMDA_FETCH_NOVALUES or a PM_ERR_* code. */
int metrics_value(const MetricDef *d, unsigned inst, const Snapshot *s, const SnapshotCatalog *c,
                  const PmdaStats *stats, pmAtomValue *atom);

/* The PMNS, with domain as the numeric domain (or a symbol such as "PMAPI"). */
void metrics_write_pmns(FILE *f, const char *domain);
