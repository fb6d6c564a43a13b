/* pmcount-report-data.c: pmcount's report for programs: CSV with one value a row (and the header
 * row that -I's lines share, pmcount-series.c), or one JSON document. Numbers are plain, whatever
 * the locale. A partial count says so in each; with --cgroup, the cgroup's rows and members
 * (pmcount-cgroup.c) take the place of the counting group's; with -g, the event group is named
 * (CSV's event_group rows, JSON's "group"); with -m, the derived metrics (CSV's metric rows, JSON's
 * "metrics"). */
#include <errno.h>
#include <glib.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "csv-writer.h"
#include "json-writer.h"
#include "macro.h"
#include "pmcount-report.h"
#include "text-table.h"

/* CSV: record,pid,tid,comm,state,name,status,value, time_ns with -I, then enabled_ns,running_ns,
 * percent_running (count-time.h), filled in the rows of a count; one value a row. */

void report_csv_header(Report *r) {
        CsvWriter w;

        csv_writer_init_sep(&w, r->f, r->options->separator);
        for (const char *const *h = (const char *const[]) { "record", "pid", "tid", "comm", "state", "name",
                                                            "status", "value", NULL }; *h; h++)
                csv_field(&w, *h);
        if (r->options->interval_ms > 0)
                csv_field(&w, "time_ns");
        count_time_csv_header(&w);
        csv_end_row(&w);
        r->csv_header_written = true;
}

/* With -I every row has the time_ns column, empty but in the interval rows. */
static bool csv_time_column;

/* A row; time: how long its count was counted, or NULL (the row holds no count, or one that
 * carries no times: a thread's). */
static void csv_row_fields(CsvWriter *w, const char *record, const MemberRow *m, const char *name,
                           const char *status, const char *value, const CountTime *time) {
        _cleanup_free_ char *comm = NULL;

        csv_field(w, record);
        if (m) {
                csv_fieldf(w, "%d", (int) m->pid);
                csv_fieldf(w, "%d", (int) m->tid);
                /* A name the workload chose: escaped as the table escapes it, for a CSV read on a
                 * terminal (out of memory, the field stays empty and the writer fails). */
                comm = text_escape_controls(m->comm);
                if (!comm)
                        w->error = -ENOMEM;
                csv_field(w, comm);
                csv_field(w, m->alive ? "alive" : "exited");
        } else {
                for (int i = 0; i < 4; i++)
                        csv_field(w, NULL);
        }
        csv_field(w, name);
        csv_field(w, status);
        csv_field(w, value);
        if (csv_time_column)
                csv_field(w, NULL);
        count_time_csv_fields(w, time);
        csv_end_row(w);
}

static void csv_row(CsvWriter *w, const char *record, const MemberRow *m, const char *name, const char *status,
                    const char *format, ...) __attribute__((format(printf, 6, 7)));

static void csv_row(CsvWriter *w, const char *record, const MemberRow *m, const char *name, const char *status,
                    const char *format, ...) {
        _cleanup_free_ char *value = NULL;
        va_list ap;

        va_start(ap, format);
        if (vasprintf(&value, format, ap) < 0) {
                value = NULL;
                w->error = -ENOMEM;
        }
        va_end(ap);
        csv_row_fields(w, record, m, name, status, value, NULL);
}

void report_csv_value(CsvWriter *w, const char *record, const char *name, const char *value) {
        csv_row(w, record, NULL, name, NULL, "%s", value);
}

/* -C: the cgroup counted. */
static void cgroup_report_csv(const Report *r, CsvWriter *w) {
        char id[24];

        snprintf(id, sizeof(id), "%llu", (unsigned long long) r->cgroup.id);
        report_csv_value(w, "cgroup", "path", r->cgroup.path);
        report_csv_value(w, "cgroup", "id", id);
        report_csv_value(w, "cgroup", "removed", r->cgroup_removed ? "1" : "0");
}

static void cgroup_report_json(const Report *r, JsonWriter *w) {
        json_open_object(w, "cgroup");
        json_string(w, "path", r->cgroup.path);
        json_uint(w, "id", r->cgroup.id);
        json_bool(w, "removed", r->cgroup_removed);
        json_close_object(w);
}

/* -m: a metric row, its unit in the status column, its value empty when not computable. */
static void csv_metrics(const Report *r, CsvWriter *w) {
        MetricValue v[METRICS_MAX];
        char value[METRIC_VALUE_TEXT_MAX];
        size_t n = report_total_metrics(r, v);

        for (size_t i = 0; i < n; i++)
                csv_row_fields(w, "metric", NULL, v[i].metric->name, v[i].metric->unit,
                               metric_format_plain(&v[i], value), NULL);
}

int report_write_csv(Report *r, FILE *f) {
        char id[16], number[G_ASCII_DTOSTR_BUF_SIZE];   /* CSV numbers are plain, whatever the locale */
        char value[24];
        CountTime time = report_time(r);
        int s = r->wait_status;
        CsvWriter w;
        Usage u[REPORT_N_USAGE];
        size_t n = report_usage_list(r, u);

        if (!r->csv_header_written)
                report_csv_header(r);
        csv_writer_init_sep(&w, f, r->options->separator);
        csv_time_column = r->options->interval_ms > 0;
        if (report_attached(r)) {
                csv_row(&w, "target", NULL, "pid", NULL, "%d", (int) r->options->attach_pid);
                csv_row(&w, "target", NULL, "tid", NULL, "%d", (int) r->options->attach_tid);
                csv_row(&w, "target", NULL, "process", NULL, "%d", r->options->attach_process);
                csv_row(&w, "target", NULL, "exited", NULL, "%d", r->target_gone);
        } else {
                csv_row(&w, "command", NULL, "pid", NULL, "%d", (int) r->pid);
                csv_row(&w, "command", NULL, "exit_code", NULL, "%d", report_exit_code(r));
                if (WIFSIGNALED(s))
                        csv_row(&w, "command", NULL, "signal", NULL, "%d", WTERMSIG(s));
                csv_row(&w, "command", NULL, "runs", NULL, "%u", r->n_runs);
        }
        csv_row(&w, "command", NULL, "elapsed_ns", NULL, "%lld",
                r->n_runs > 1 ? llround(r->elapsed.mean) : (long long) r->elapsed_ns);
        csv_row(&w, "command", NULL, "kernel_mode", NULL, "%d", !!(r->options->mode & PM_KERNEL));
        csv_row(&w, "command", NULL, "user_mode", NULL, "%d", !!(r->options->mode & PM_USER));
        if (r->group) {
                csv_row(&w, "event_group", NULL, "id", NULL, "%d", r->group->group_id);
                report_csv_value(&w, "event_group", "name", r->group->short_name);
        }
        if (r->options->cgroup)
                cgroup_report_csv(r, &w);
        else {
                csv_row(&w, "group", NULL, "threads", NULL, "%d", report_n_threads(r));
                csv_row(&w, "group", NULL, "consistent", NULL, "%d", r->total.ginfo.flags.b.consistent);
                csv_row(&w, "group", NULL, "partial", NULL, "%d", r->partial);
                csv_row(&w, "group", NULL, "threads_missed", NULL, "%u", r->threads_missed);
                csv_row(&w, "group", NULL, "born_counting", NULL, "%d", r->kernel_inherits);
        }
        for (int c = 0; c < MAX_COUNTERS; c++) {
                if (!report_counter_used(r, c))
                        continue;
                /* A count <not counted> stays a number, 0: the times say why. */
                snprintf(value, sizeof(value), "%lld", report_count(r, c));
                csv_row_fields(&w, "event", NULL, report_event_name(r, c, id), report_event_status(r, c), value,
                               &time);
                if (r->n_runs > 1)
                        csv_row(&w, "event_stddev", NULL, report_event_name(r, c, id), report_event_status(r, c),
                                "%s", g_ascii_formatd(number, sizeof(number), "%.3f",
                                                      run_stat_stddev(&r->counts[c])));
        }
        if (r->options->metrics)
                csv_metrics(r, &w);
        if (!report_attached(r))
                for (size_t i = 0; i < n; i++)
                        csv_row(&w, "rusage", NULL, u[i].json_name, NULL, "%lld", u[i].value);
        if (r->have_rows) {
                csv_row(&w, "group", NULL, "rows_dropped", NULL, "%u", r->rows.n_dropped);
                for (size_t i = 0; i < r->rows.n_rows; i++)
                        for (int c = 0; c < MAX_COUNTERS; c++)
                                if (report_counter_used(r, c))
                                        csv_row(&w, "thread", &r->rows.rows[i], report_event_name(r, c, id),
                                                report_event_status(r, c), "%lld",
                                                (long long) r->rows.rows[i].counts[c]);
        }
        return csv_writer_finish(&w);
}

static void json_counts(JsonWriter *w, const Report *r, const int64_t counts[MAX_COUNTERS]) {
        json_open_array(w, "counts");
        for (int c = 0; c < MAX_COUNTERS; c++)
                if (report_counter_used(r, c))
                        json_int(w, NULL, counts[c]);
        json_close_array(w);
}

static void json_command(JsonWriter *w, const Report *r) {
        int s = r->wait_status;

        if (report_attached(r)) {
                json_null(w, "command");
                json_open_object(w, "target");
                json_int(w, "pid", r->options->attach_pid);
                json_int(w, "tid", r->options->attach_tid);
                json_bool(w, "process", r->options->attach_process);
                json_bool(w, "exited", r->target_gone);
                json_close_object(w);
                return;
        }
        json_open_array(w, "command");
        for (char **a = r->options->command; *a; a++)
                json_string(w, NULL, *a);
        json_close_array(w);
        json_int(w, "pid", r->pid);
        json_int(w, "exit_code", report_exit_code(r));
        if (WIFEXITED(s))
                json_int(w, "exit_status", WEXITSTATUS(s));
        else
                json_null(w, "exit_status");
        if (WIFSIGNALED(s))
                json_int(w, "signal", WTERMSIG(s));
        else
                json_null(w, "signal");
        json_int(w, "runs", r->n_runs);
}

int report_write_json(const Report *r, FILE *f) {
        JsonWriter w;
        char id[16];
        Usage u[REPORT_N_USAGE];
        size_t n = report_usage_list(r, u);

        json_writer_init(&w, f);
        json_open_object(&w, NULL);
        json_command(&w, r);
        json_open_object(&w, "mode");
        json_bool(&w, "user", r->options->mode & PM_USER);
        json_bool(&w, "kernel", r->options->mode & PM_KERNEL);
        json_close_object(&w);
        if (r->group) {
                json_open_object(&w, "group");
                json_int(&w, "id", r->group->group_id);
                json_string(&w, "name", r->group->short_name);
                json_close_object(&w);
        }
        json_int(&w, "elapsed_ns", r->n_runs > 1 ? llround(r->elapsed.mean) : (long long) r->elapsed_ns);
        if (r->n_runs > 1)
                json_double(&w, "elapsed_ns_stddev", run_stat_stddev(&r->elapsed));
        if (r->options->cgroup)
                cgroup_report_json(r, &w);
        else {
                json_int(&w, "threads", report_n_threads(r));
                json_bool(&w, "consistent", r->total.ginfo.flags.b.consistent);
                json_bool(&w, "partial", r->partial);
                json_int(&w, "threads_missed", r->threads_missed);
                json_bool(&w, "born_counting", r->kernel_inherits);
        }
        json_open_array(&w, "events");
        for (int c = 0; c < MAX_COUNTERS; c++) {
                if (!report_counter_used(r, c))
                        continue;
                json_open_object(&w, NULL);
                json_int(&w, "counter", c);
                json_int(&w, "id", report_event_id(r, c));
                json_string(&w, "name", report_event_name(r, c, id));
                json_string(&w, "status", report_event_status(r, c));
                json_int(&w, "count", report_count(r, c));
                if (r->n_runs > 1) {
                        json_double(&w, "mean", r->counts[c].mean);
                        json_double(&w, "stddev", run_stat_stddev(&r->counts[c]));
                        json_double(&w, "variance", r->counts[c].n > 1 ? r->counts[c].m2 / (r->counts[c].n - 1) : 0);
                }
                count_time_json_members(&w, report_time(r));
                json_close_object(&w);
        }
        json_close_array(&w);
        if (r->options->metrics) {
                MetricValue v[METRICS_MAX];

                metric_values_json(&w, v, report_total_metrics(r, v));
        }
        if (!report_attached(r)) {
                json_open_object(&w, "rusage");
                for (size_t i = 0; i < n; i++)
                        json_int(&w, u[i].json_name, u[i].value);
                json_close_object(&w);
        }
        if (r->have_rows) {
                json_open_array(&w, "thread_rows");
                for (size_t i = 0; i < r->rows.n_rows; i++) {
                        const MemberRow *m = &r->rows.rows[i];

                        json_open_object(&w, NULL);
                        json_int(&w, "pid", m->pid);
                        json_int(&w, "tid", m->tid);
                        json_string(&w, "comm", m->comm);
                        json_bool(&w, "alive", m->alive);
                        json_counts(&w, r, m->counts);
                        json_close_object(&w);
                }
                json_close_array(&w);
                json_int(&w, "rows_dropped", r->rows.n_dropped);
        }
        json_close_object(&w);
        return json_writer_finish(&w);
}
