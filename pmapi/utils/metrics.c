/* metrics.c: see metrics.h. One GetMetrics call (tool-bus.c), copied out of the reply so that the
 * list outlives the connection; the rest is pure: which metrics a tool's counted events allow, their
 * values, and how each form writes them. */
#include <errno.h>
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "macro.h"
#include "metrics.h"
#include "pmapi.h"
#include "tool-bus.h"

int metric_list_new(MetricList **ret) {
        MetricList *l = calloc(1, sizeof(MetricList));

        if (!l)
                return -ENOMEM;
        *ret = l;
        return 0;
}

static void metric_done(Metric *m) {
        free(m->name);
        free(m->description);
        free(m->numerator);
        free(m->denominator);
        free(m->unit);
}

MetricList *metric_list_free(MetricList *l) {
        if (!l)
                return NULL;
        for (size_t i = 0; i < l->n_metrics; i++)
                metric_done(&l->metrics[i]);
        free(l->metrics);
        free(l);
        return NULL;
}

int metric_list_add(MetricList *l, const char *name, const char *description, const char *numerator,
                    const char *denominator, const char *unit, double scale) {
        Metric m = {
                .name = strdup(name),
                .description = strdup(description),
                .numerator = strdup(numerator),
                .denominator = strdup(denominator),
                .unit = strdup(unit),
                .scale = scale,
        };
        Metric *p;

        if (!m.name || !m.description || !m.numerator || !m.denominator || !m.unit) {
                metric_done(&m);
                return -ENOMEM;
        }
        p = realloc(l->metrics, (l->n_metrics + 1) * sizeof(Metric));
        if (!p) {
                metric_done(&m);
                return -ENOMEM;
        }
        l->metrics = p;
        l->metrics[l->n_metrics++] = m;
        return 0;
}

static int read_reply(sd_bus_message *reply, MetricList *l) {
        const char *name, *description, *numerator, *denominator, *unit;
        double scale;
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "(sssssd)");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(reply, "(sssssd)", &name, &description, &numerator, &denominator,
                                        &unit, &scale)) > 0) {
                r = metric_list_add(l, name, description, numerator, denominator, unit, scale);
                if (r < 0)
                        return r;
        }
        return r;
}

int metric_list_fetch(MetricList **ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(metric_list_freep) MetricList *l = NULL;
        int r;

        r = tool_bus_call("GetMetrics", &reply, NULL);
        if (r != 0)
                return r;
        if (metric_list_new(&l) < 0)
                return PM_ENOMEM;
        r = read_reply(reply, l);
        if (r < 0)
                return r == -ENOMEM ? PM_ENOMEM : PM_EDAEMON;
        *ret = TAKE_PTR(l);
        return 0;
}

static const MetricCount *find_count(const MetricCount *counts, size_t n_counts, const char *name) {
        for (size_t i = 0; i < n_counts; i++)
                if (counts[i].name && strcmp(counts[i].name, name) == 0)
                        return &counts[i];
        return NULL;
}

bool metric_applies(const Metric *m, const MetricCount *counts, size_t n_counts) {
        return find_count(counts, n_counts, m->numerator) &&
               (!*m->denominator || find_count(counts, n_counts, m->denominator));
}

static MetricValue compute(const Metric *m, const MetricCount *counts, size_t n_counts, double elapsed_s) {
        const MetricCount *num = find_count(counts, n_counts, m->numerator);
        const MetricCount *den = *m->denominator ? find_count(counts, n_counts, m->denominator) : NULL;
        double denominator = den ? (double) den->count : elapsed_s;
        MetricValue v = { .metric = m };

        if (!num->counted || (den && !den->counted) || denominator == 0 || !isfinite(denominator))
                return v;
        v.value = (double) num->count / denominator * m->scale;
        v.computable = isfinite(v.value);
        return v;
}

size_t metric_list_compute(const MetricList *l, const MetricCount *counts, size_t n_counts, double elapsed_s,
                           MetricValue *ret, size_t max) {
        size_t n = 0;

        if (!l)
                return 0;
        for (size_t i = 0; i < l->n_metrics; i++) {
                if (!metric_applies(&l->metrics[i], counts, n_counts))
                        continue;
                if (n < max)
                        ret[n] = compute(&l->metrics[i], counts, n_counts, elapsed_s);
                n++;
        }
        return n;
}

const char *metric_format_value(const MetricValue *v, char buf[static METRIC_VALUE_TEXT_MAX]) {
        if (!v->computable)
                return strcpy(buf, "-");
        snprintf(buf, METRIC_VALUE_TEXT_MAX, "%.2f", v->value);
        return buf;
}

void metric_values_text(FILE *f, const MetricValue *v, size_t n, int width) {
        char value[METRIC_VALUE_TEXT_MAX];
        int unit = 0;

        for (size_t i = 0; i < n; i++)
                if ((int) strlen(v[i].metric->unit) > unit)
                        unit = (int) strlen(v[i].metric->unit);
        for (size_t i = 0; i < n; i++)
                fprintf(f, "%*s  %-*s  %s\n", width, metric_format_value(&v[i], value), unit, v[i].metric->unit,
                        v[i].metric->name);
}

const char *metric_format_plain(const MetricValue *v, char buf[static METRIC_VALUE_TEXT_MAX]) {
        if (!v->computable) {
                buf[0] = '\0';
                return buf;
        }
        return g_ascii_dtostr(buf, METRIC_VALUE_TEXT_MAX, v->value);
}

void metric_values_json(JsonWriter *w, const MetricValue *v, size_t n) {
        json_open_array(w, "metrics");
        for (size_t i = 0; i < n; i++) {
                json_open_object(w, NULL);
                json_string(w, "name", v[i].metric->name);
                if (v[i].computable)
                        json_double(w, "value", v[i].value);
                else
                        json_null(w, "value");
                json_string(w, "unit", v[i].metric->unit);
                json_string(w, "description", v[i].metric->description);
                json_close_object(w);
        }
        json_close_array(w);
}
