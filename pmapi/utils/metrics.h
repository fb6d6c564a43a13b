/* metrics.h: derived metrics (AIX hpmcount's derived metrics, perf stat's shadow metrics and -M) for
 * pmcount -m and pmstat -m. pmapid owns the table (GetMetrics: the metrics whose events this machine
 * has); a metric is numerator / denominator * scale, where numerator and denominator are events'
 * short names, or, with no denominator event (""), numerator / elapsed seconds * scale. A tool
 * shows a metric only when it counted both its events, and computes it on the counts it reports;
 * a zero denominator (or a count that was never on the PMU) makes it not computable, shown as "-"
 * in text, null in JSON and an empty field in CSV, never a division by zero. Fetching is one bus
 * call; matching and computing are pure (tests/unit/test-metrics.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "json-writer.h"

typedef struct Metric {
        char *name;                     /* "cpu_utilization" */
        char *description;
        char *numerator;                /* an event's short name */
        char *denominator;              /* an event's short name, or "" for the elapsed seconds */
        char *unit;                     /* "CPUs utilized" */
        double scale;
} Metric;

typedef struct MetricList {
        Metric *metrics;
        size_t n_metrics;
} MetricList;

int metric_list_new(MetricList **ret);
MetricList *metric_list_free(MetricList *l);
static inline void metric_list_freep(MetricList **l) {
        metric_list_free(*l);
}
/* Appends a copy of the metric; 0 or -ENOMEM. */
int metric_list_add(MetricList *l, const char *name, const char *description, const char *numerator,
                    const char *denominator, const char *unit, double scale);
/* pmapid's metrics (the Manager's GetMetrics): 0, or the PM_E* code of the failure (PM_ENOMEM when
 * out of memory, PM_EDAEMON for a reply it cannot read). */
int metric_list_fetch(MetricList **ret);

/* One counted event, as the tool reports it. */
typedef struct MetricCount {
        const char *name;               /* its short name */
        long long count;
        bool counted;                   /* false for "<not counted>": its 0 says nothing */
} MetricCount;

/* The most metrics a tool shows at once (pmapid's table has 11). */
#define METRICS_MAX 64

typedef struct MetricValue {
        const Metric *metric;           /* in the list it was computed from */
        bool computable;                /* false: a zero denominator or elapsed time, or <not counted> */
        double value;                   /* when computable */
} MetricValue;

/* Whether the metric's events are among counts (the first count of each name serves). */
bool metric_applies(const Metric *m, const MetricCount *counts, size_t n_counts);
/* The metrics of l whose events are all among counts, in l's order, each computed on the counts,
 * elapsed_s the denominator of those without a denominator event: at most max of them in ret.
 * Returns how many there are (which may exceed max). */
size_t metric_list_compute(const MetricList *l, const MetricCount *counts, size_t n_counts, double elapsed_s,
                           MetricValue *ret, size_t max);

/* Text: the value with two decimals in the locale's decimal point, or "-". */
#define METRIC_VALUE_TEXT_MAX 64
const char *metric_format_value(const MetricValue *v, char buf[static METRIC_VALUE_TEXT_MAX]);
/* Text: a line per metric, as perf stat writes its shadow metrics: the value right-aligned in width
 * columns, the units aligned, the metric's name. */
void metric_values_text(FILE *f, const MetricValue *v, size_t n, int width);
/* CSV: a plain number that reads back as the same double, or "" when not computable. */
const char *metric_format_plain(const MetricValue *v, char buf[static METRIC_VALUE_TEXT_MAX]);
/* JSON: the member "metrics" in the open object, an array of {"name","value","unit","description"},
 * value null when not computable. */
void metric_values_json(JsonWriter *w, const MetricValue *v, size_t n);
