/* pmstat-report.c: what pmstat prints, in one of three forms. Each block (an interval, or with
 * --proctree the whole run) has one row per CPU that was counted and a total row, the sum of the
 * CPU rows. Text is for people: counts with thousands separators in right-aligned columns whose
 * widths only grow, so that a column stays put from one interval to the next, and each event's
 * status from pm_init (verified, caveat, unverified) under its name. CSV (RFC 4180) has one row per
 * (block, CPU); JSON is JSON Lines, as perf stat -j: a header line, then one object per
 * interval as it ends (and the run's), each a whole document, so that a reader can follow the run
 * line by line. With --cgroup, each form names the cgroup and says when it was removed; with -g,
 * the event group (the opening line, the header's "group", two CSV columns); with -m, the derived
 * metrics of each block's total (lines after it, "metrics", CSV columns of the total row). Each CPU's
 * counters are read together, so a row has one time: a row that ran for part of its enabled time
 * (multiplexed) ends with perf stat's "(49.97%)", one that never ran shows "<not counted>" for each
 * count (count-time.h); CSV and JSON give the times. The shapes are described in man/pmstat.1.
 * The text is aligned here rather than with a TextTable, whose widths are those of one table: a
 * block's columns must keep the widths of the blocks before it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "csv-writer.h"
#include "json-writer.h"
#include "macro.h"
#include "pmstat.h"
#include "prog-text.h"
#include "text-table.h"

struct Report {
        Options options;
        FILE *f;
        Event *events;
        size_t n_events;
        size_t *width;                  /* text: [1 + n_events], the CPU column then each event's */
        int error;                      /* JSON: the first line that failed to write, -errno */
        MetricValue shown[METRICS_MAX]; /* -m: the metrics the events allow, the same in every block */
        size_t n_metrics;
        CsvWriter csv;
};

/* The events' counts (total: one per counter) for the metrics. */
static size_t metric_counts(const Report *r, const long long *total, bool counted,
                            MetricCount c[static MAX_COUNTERS]) {
        size_t n = 0;

        for (size_t k = 0; k < r->n_events && n < MAX_COUNTERS; k++) {
                int counter = r->events[k].counter;

                c[n++] = (MetricCount) { r->events[k].desc->short_name, total ? total[counter] : 0, counted };
        }
        return n;
}

int report_new(const Options *o, FILE *f, const Event *events, size_t n_events, Report **ret) {
        _cleanup_(report_freep) Report *r = NULL;

        r = calloc(1, sizeof(Report));
        if (!r)
                return -ENOMEM;
        r->options = *o;
        r->f = f;
        r->n_events = n_events;
        r->events = calloc(n_events ? n_events : 1, sizeof(Event));
        r->width = calloc(1 + n_events, sizeof(size_t));
        if (!r->events || !r->width)
                return -ENOMEM;
        memcpy(r->events, events, n_events * sizeof(Event));
        r->width[0] = strlen("total");
        for (size_t k = 0; k < n_events; k++) {
                size_t name = strlen(events[k].desc->short_name);
                size_t status = strlen(prog_text_status_name(events[k].desc->status));
                r->width[1 + k] = name > status ? name : status;
        }
        if (o->metrics) {
                MetricCount c[MAX_COUNTERS];
                size_t n = metric_list_compute(o->metric_list, c, metric_counts(r, NULL, true, c), 1,
                                               r->shown, METRICS_MAX);

                r->n_metrics = n < METRICS_MAX ? n : METRICS_MAX;
        }
        csv_writer_init_sep(&r->csv, f, o->separator);
        *ret = TAKE_PTR(r);
        return 0;
}

Report *report_free(Report *r) {
        if (!r)
                return NULL;
        free(r->events);
        free(r->width);
        free(r);
        return NULL;
}

static const char *mode_words(int mode) {
        if ((mode & (PM_USER | PM_KERNEL)) == (PM_USER | PM_KERNEL))
                return "user and kernel mode";
        return mode & PM_KERNEL ? "kernel mode" : "user mode";
}

/* "1.234": seconds with milliseconds. */
static char *format_seconds(unsigned long long ns, char buf[static 32]) {
        unsigned long long ms = (ns + 500000ULL) / 1000000ULL;
        snprintf(buf, 32, "%llu.%03llu", ms / 1000ULL, ms % 1000ULL);
        return buf;
}

static long long delta(const Sample *before, const Sample *now, int cpu, int counter) {
        long long base = before && before->counted[cpu] ? before->counts[cpu][counter] : 0;
        return now->counts[cpu][counter] - base;
}

static CountTime time_delta(const Sample *before, const Sample *now, int cpu) {
        CountTime base = before && before->counted[cpu] ? before->time[cpu] : (CountTime) {};

        return count_time_since(now->time[cpu], base);
}

/* The total row of a block: the sum of its CPU rows, counts and times. */
static void block_total(const Report *r, const Sample *before, const Sample *now,
                        long long total[MAX_COUNTERS], CountTime *total_time) {
        memset(total, 0, MAX_COUNTERS * sizeof(long long));
        *total_time = (CountTime) {};
        for (int c = 0; c < now->n_cpus; c++)
                if (now->counted[c]) {
                        for (size_t k = 0; k < r->n_events; k++)
                                total[r->events[k].counter] += delta(before, now, c, r->events[k].counter);
                        count_time_add(total_time, time_delta(before, now, c));
                }
}

/* -m: the metrics of a block's total, over the block's length (the interval's, or the whole run's);
 * r->n_metrics of them. */
static void block_metrics(const Report *r, const Sample *before, const Sample *now, const long long *total,
                          CountTime total_time, MetricValue v[static METRICS_MAX]) {
        MetricCount c[MAX_COUNTERS];
        size_t n = metric_counts(r, total, !count_time_not_counted(total_time), c);
        unsigned long long ns = now->time_ns - (before ? before->time_ns : 0);

        (void) metric_list_compute(r->options.metric_list, c, n, (double) ns / 1e9, v, r->n_metrics);
}

static void text_begin(Report *r, pid_t command_pid) {
        const Options *o = &r->options;
        char interval[THOUSANDS_MAX], group[128];
        const char *what = mode_words(o->mode);

        format_thousands(o->interval_ms, interval);
        /* -g: the group after the modes, "user and kernel mode, event group 2 (pm_sched)". */
        if (o->group) {
                snprintf(group, sizeof(group), "%s, event group %d (%s)", what, o->group->group_id,
                         o->group->short_name ?: "");
                what = group;
        }
        fputs("pmstat: ", r->f);
        if (o->target)
                fprintf(r->f, "cgroup %s (id %llu) and its descendants, ", o->target->path,
                        (unsigned long long) o->target->id);
        if (o->proctree)
                fprintf(r->f, "%s (pid %d) and its descendants, %s, every %s ms until it exits\n", o->command[0],
                        (int) command_pid, what, interval);
        else if (o->count == 0)
                fprintf(r->f, "%s%s, every %s ms until interrupted\n", o->target ? "" : "every process, ",
                        what, interval);
        else
                fprintf(r->f, "%s%s, %u interval%s of %s ms\n", o->target ? "" : "every process, ",
                        what, o->count, o->count == 1 ? "" : "s", interval);
}

static void grow(size_t *width, size_t n) {
        if (n > *width)
                *width = n;
}

/* One row: the label left-aligned, the cells right-aligned, two spaces apart; the row's share of
 * its enabled time when it was multiplexed, as perf stat ends a line with it. */
static void text_row(Report *r, const char *label, const char *const *cells, CountTime time) {
        char note[COUNT_TIME_NOTE_MAX];

        fprintf(r->f, "%-*s", (int) r->width[0], label);
        for (size_t k = 0; k < r->n_events; k++)
                fprintf(r->f, "  %*s", (int) r->width[1 + k], cells[k]);
        if (*count_time_format_note(time, note))
                fprintf(r->f, "  %s", note);
        fputc('\n', r->f);
}

/* The counts of CPU cpu (or the totals, cpu -1) as cells; the widths grow to fit them. */
static void text_counts(Report *r, const Sample *before, const Sample *now, int cpu, const long long *total,
                        CountTime time, char values[][THOUSANDS_MAX], const char **cells) {
        for (size_t k = 0; k < r->n_events; k++) {
                int counter = r->events[k].counter;

                long long count = cpu < 0 ? total[counter] : delta(before, now, cpu, counter);

                cells[k] = count_time_format_count(time, count, values[k]);
                grow(&r->width[1 + k], strlen(cells[k]));
        }
}

static const char *cpu_label(const Sample *now, int cpu, char label[static 32]) {
        snprintf(label, 32, now->online[cpu] ? "%d" : "%d (offline)", cpu);
        return label;
}

/* -m: after the total row, a line per metric of the total: the value, its unit, the metric. */
static void text_metrics(Report *r, const Sample *before, const Sample *now, const long long *total,
                         CountTime total_time) {
        MetricValue v[METRICS_MAX];

        if (r->n_metrics == 0)
                fputs("metrics: none; no metric has all its events counted\n", r->f);
        block_metrics(r, before, now, total, total_time, v);
        /* The values end where the first event's column ends. */
        metric_values_text(r->f, v, r->n_metrics, (int) (r->width[0] + 2 + r->width[1]));
}

static void text_block(Report *r, const Sample *before, const Sample *now) {
        char values[MAX_COUNTERS][THOUSANDS_MAX], label[32];
        const char *cells[MAX_COUNTERS];
        long long total[MAX_COUNTERS];
        CountTime total_time;

        /* Every row once to find the widths (they only grow), then the header and the rows. */
        block_total(r, before, now, total, &total_time);
        for (int c = 0; c < now->n_cpus; c++)
                if (now->counted[c]) {
                        text_counts(r, before, now, c, NULL, time_delta(before, now, c), values, cells);
                        grow(&r->width[0], strlen(cpu_label(now, c, label)));
                }
        text_counts(r, before, now, -1, total, total_time, values, cells);

        for (size_t k = 0; k < r->n_events; k++)
                cells[k] = r->events[k].desc->short_name;
        text_row(r, "CPU", cells, (CountTime) {});
        for (size_t k = 0; k < r->n_events; k++)
                cells[k] = prog_text_status_name(r->events[k].desc->status);
        text_row(r, "", cells, (CountTime) {});
        for (int c = 0; c < now->n_cpus; c++) {
                if (!now->counted[c])
                        continue;
                text_counts(r, before, now, c, NULL, time_delta(before, now, c), values, cells);
                text_row(r, cpu_label(now, c, label), cells, time_delta(before, now, c));
        }
        text_counts(r, before, now, -1, total, total_time, values, cells);
        text_row(r, "total", cells, total_time);
        if (r->options.metrics)
                text_metrics(r, before, now, total, total_time);
}

static void json_counts(Report *r, JsonWriter *w, const char *key, const Sample *before, const Sample *now,
                        int cpu, const long long *total) {
        json_open_object(w, key);
        for (size_t k = 0; k < r->n_events; k++) {
                int counter = r->events[k].counter;
                json_int(w, r->events[k].desc->short_name, total ? total[counter] : delta(before, now, cpu, counter));
        }
        json_close_object(w);
}

/* The members of a block object: its CPUs, each with its times, and their total, whose times are
 * total_times (total holds one member per event). */
static void json_block(Report *r, JsonWriter *w, const Sample *before, const Sample *now) {
        long long total[MAX_COUNTERS];
        CountTime total_time;

        json_uint(w, "time_ns", now->time_ns);
        json_uint(w, "duration_ns", now->time_ns - (before ? before->time_ns : 0));
        json_open_array(w, "cpus");
        for (int c = 0; c < now->n_cpus; c++) {
                if (!now->counted[c])
                        continue;
                json_open_object(w, NULL);
                json_int(w, "cpu", c);
                json_bool(w, "online", now->online[c]);
                json_counts(r, w, "counts", before, now, c, NULL);
                count_time_json_members(w, time_delta(before, now, c));
                json_close_object(w);
        }
        json_close_array(w);
        block_total(r, before, now, total, &total_time);
        json_counts(r, w, "total", before, now, -1, total);
        json_open_object(w, "total_times");
        count_time_json_members(w, total_time);
        json_close_object(w);
        if (r->options.metrics) {
                MetricValue v[METRICS_MAX];

                block_metrics(r, before, now, total, total_time, v);
                metric_values_json(w, v, r->n_metrics);
        }
}

/* Each JSON line is a document of its own; a write error is kept for report_finish(). */
static void json_line_end(Report *r, JsonWriter *w) {
        int k = json_writer_finish(w);

        if (k < 0 && r->error == 0)
                r->error = k;
}

static void json_begin(Report *r, pid_t command_pid) {
        const Options *o = &r->options;
        JsonWriter w;

        json_writer_init(&w, r->f);
        json_open_object(&w, NULL);
        json_string(&w, "scope", o->proctree ? "proctree" : o->target ? "cgroup" : "system");
        if (o->target) {
                json_open_object(&w, "cgroup");
                json_string(&w, "path", o->target->path);
                json_uint(&w, "id", o->target->id);
                json_close_object(&w);
        }
        json_open_object(&w, "mode");
        json_bool(&w, "user", o->mode & PM_USER);
        json_bool(&w, "kernel", o->mode & PM_KERNEL);
        json_close_object(&w);
        if (o->group) {
                json_open_object(&w, "group");
                json_int(&w, "id", o->group->group_id);
                json_string(&w, "name", o->group->short_name);
                json_close_object(&w);
        }
        json_uint(&w, "interval_ms", o->interval_ms);
        if (o->proctree) {
                json_open_object(&w, "command");
                json_open_array(&w, "argv");
                for (char **a = o->command; *a; a++)
                        json_string(&w, NULL, *a);
                json_close_array(&w);
                json_int(&w, "pid", command_pid);
                json_close_object(&w);
        } else
                json_uint(&w, "count", o->count);
        json_open_array(&w, "events");
        for (size_t k = 0; k < r->n_events; k++) {
                json_open_object(&w, NULL);
                json_int(&w, "counter", r->events[k].counter);
                json_int(&w, "id", r->events[k].desc->event_id);
                json_string(&w, "name", r->events[k].desc->short_name);
                json_string(&w, "status", prog_text_status_name(r->events[k].desc->status));
                json_close_object(&w);
        }
        json_close_array(&w);
        json_close_object(&w);
        json_line_end(r, &w);
}

static void csv_begin(Report *r) {
        csv_field(&r->csv, "block");
        csv_field(&r->csv, "time");
        csv_field(&r->csv, "cpu");
        csv_field(&r->csv, "online");
        if (r->options.target) {
                csv_field(&r->csv, "cgroup");
                csv_field(&r->csv, "cgroup_id");
        }
        if (r->options.group) {
                csv_field(&r->csv, "group");
                csv_field(&r->csv, "group_id");
        }
        for (size_t k = 0; k < r->n_events; k++)
                csv_field(&r->csv, r->events[k].desc->short_name);
        count_time_csv_header(&r->csv);
        for (size_t i = 0; i < r->n_metrics; i++)
                csv_field(&r->csv, r->shown[i].metric->name);
        csv_end_row(&r->csv);
}

/* -m: a row's metric columns, the total's values (v) or empty (v NULL: a CPU row). */
static void csv_metrics(Report *r, const MetricValue *v) {
        char value[METRIC_VALUE_TEXT_MAX];

        if (!r->options.metrics)
                return;
        for (size_t i = 0; i < r->n_metrics; i++)
                csv_field(&r->csv, v ? metric_format_plain(&v[i], value) : NULL);
}

/* --cgroup: every row names it, as perf stat -x names the cgroup of -G. */
static void csv_cgroup(Report *r) {
        if (!r->options.target)
                return;
        csv_field(&r->csv, r->options.target->path);
        csv_fieldf(&r->csv, "%llu", (unsigned long long) r->options.target->id);
}

/* -g: every row names the event group, as the cgroup's. */
static void csv_group(Report *r) {
        if (!r->options.group)
                return;
        csv_field(&r->csv, r->options.group->short_name);
        csv_fieldf(&r->csv, "%d", r->options.group->group_id);
}

/* A count <not counted> stays a number, 0: the times at the row's end say why. */
static void csv_block(Report *r, const char *kind, const Sample *before, const Sample *now) {
        long long total[MAX_COUNTERS];
        CountTime time;
        char seconds[32];

        format_seconds(now->time_ns, seconds);
        for (int c = 0; c < now->n_cpus; c++) {
                if (!now->counted[c])
                        continue;
                csv_field(&r->csv, kind);
                csv_field(&r->csv, seconds);
                csv_fieldf(&r->csv, "%d", c);
                csv_field(&r->csv, now->online[c] ? "1" : "0");
                csv_cgroup(r);
                csv_group(r);
                for (size_t k = 0; k < r->n_events; k++)
                        csv_fieldf(&r->csv, "%lld", delta(before, now, c, r->events[k].counter));
                time = time_delta(before, now, c);
                count_time_csv_fields(&r->csv, &time);
                csv_metrics(r, NULL);
                csv_end_row(&r->csv);
        }
        block_total(r, before, now, total, &time);
        csv_field(&r->csv, kind);
        csv_field(&r->csv, seconds);
        csv_field(&r->csv, "total");
        csv_field(&r->csv, NULL);
        csv_cgroup(r);
        csv_group(r);
        for (size_t k = 0; k < r->n_events; k++)
                csv_fieldf(&r->csv, "%lld", total[r->events[k].counter]);
        count_time_csv_fields(&r->csv, &time);
        if (r->options.metrics) {
                MetricValue v[METRICS_MAX];

                block_metrics(r, before, now, total, time, v);
                csv_metrics(r, v);
        }
        csv_end_row(&r->csv);
}

void report_begin(Report *r, pid_t command_pid) {
        switch (r->options.format) {
        case FORMAT_TEXT:
                text_begin(r, command_pid);
                break;
        case FORMAT_CSV:
                csv_begin(r);
                break;
        case FORMAT_JSON:
                json_begin(r, command_pid);
                break;
        }
        fflush(r->f);
}

void report_interval(Report *r, unsigned index, const Sample *before, const Sample *now) {
        char seconds[32];

        switch (r->options.format) {
        case FORMAT_TEXT:
                fprintf(r->f, "\n%s s, interval %u", format_seconds(now->time_ns, seconds), index);
                if (!r->options.proctree && r->options.count > 0)
                        fprintf(r->f, " of %u", r->options.count);
                /* One cut short (by COMMAND's exit or an interrupt) says how long it was. */
                if ((now->time_ns - before->time_ns) * 10 < r->options.interval_ms * 9000000ULL)
                        fprintf(r->f, " (%s s)", format_seconds(now->time_ns - before->time_ns, seconds));
                fputc('\n', r->f);
                text_block(r, before, now);
                break;
        case FORMAT_CSV:
                csv_block(r, "interval", before, now);
                break;
        case FORMAT_JSON: {
                JsonWriter w;

                json_writer_init(&w, r->f);
                json_open_object(&w, NULL);
                json_open_object(&w, "interval");
                json_uint(&w, "index", index);
                json_block(r, &w, before, now);
                json_close_object(&w);
                json_close_object(&w);
                json_line_end(r, &w);
                break;
        }
        }
        fflush(r->f);
}

void report_run(Report *r, const Sample *now, const CommandEnd *end) {
        char seconds[32];

        switch (r->options.format) {
        case FORMAT_TEXT:
                fprintf(r->f, "\n%s s, the whole run: %s (pid %d) ", format_seconds(now->time_ns, seconds),
                        r->options.command[0], (int) end->pid);
                if (end->signal)
                        fprintf(r->f, "was killed by signal %d (%s)\n", end->signal, strsignal(end->signal));
                else
                        fprintf(r->f, "exited with status %d\n", end->exit_status);
                text_block(r, NULL, now);
                break;
        case FORMAT_CSV:
                csv_block(r, "run", NULL, now);
                break;
        case FORMAT_JSON: {
                JsonWriter w;

                json_writer_init(&w, r->f);
                json_open_object(&w, NULL);
                json_open_object(&w, "run");
                json_block(r, &w, NULL, now);
                if (end->signal)
                        json_null(&w, "exit_status");
                else
                        json_int(&w, "exit_status", end->exit_status);
                if (end->signal)
                        json_int(&w, "signal", end->signal);
                else
                        json_null(&w, "signal");
                json_close_object(&w);
                json_close_object(&w);
                json_line_end(r, &w);
                break;
        }
        }
        fflush(r->f);
}

void report_cgroup_removed(Report *r, const Sample *now) {
        const CgroupTarget *t = r->options.target;
        char seconds[32];

        switch (r->options.format) {
        case FORMAT_TEXT:
                fprintf(r->f, "\npmstat: cgroup %s was removed; its counts stop there\n", t->path);
                break;
        case FORMAT_CSV:
                /* A row of its own: the block "removed", its time, no CPU and no counts. */
                csv_field(&r->csv, "removed");
                csv_field(&r->csv, format_seconds(now->time_ns, seconds));
                csv_field(&r->csv, NULL);
                csv_field(&r->csv, NULL);
                csv_cgroup(r);
                csv_group(r);
                for (size_t k = 0; k < r->n_events; k++)
                        csv_field(&r->csv, NULL);
                count_time_csv_fields(&r->csv, NULL);
                csv_metrics(r, NULL);
                csv_end_row(&r->csv);
                break;
        case FORMAT_JSON: {
                JsonWriter w;

                json_writer_init(&w, r->f);
                json_open_object(&w, NULL);
                json_open_object(&w, "removed");
                json_uint(&w, "time_ns", now->time_ns);
                json_string(&w, "path", t->path);
                json_uint(&w, "id", t->id);
                json_close_object(&w);
                json_close_object(&w);
                json_line_end(r, &w);
                break;
        }
        }
        fflush(r->f);
        /* A report in a file, or not in words: the person at the terminal hears it too. */
        if (r->options.output || r->options.format != FORMAT_TEXT)
                fprintf(stderr, "pmstat: cgroup %s was removed; its counts stop there\n", t->path);
}

int report_finish(Report *r, const char *error) {
        switch (r->options.format) {
        case FORMAT_TEXT:
                break;
        case FORMAT_CSV:
                return csv_writer_finish(&r->csv);
        case FORMAT_JSON:
                if (error) {
                        JsonWriter w;

                        json_writer_init(&w, r->f);
                        json_open_object(&w, NULL);
                        json_string(&w, "error", error);
                        json_close_object(&w);
                        json_line_end(r, &w);
                }
                break;
        }
        if (r->error < 0)
                return r->error;
        if (fflush(r->f) != 0 || ferror(r->f))
                return errno > 0 ? -errno : -EIO;
        return 0;
}
