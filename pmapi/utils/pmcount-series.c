/* pmcount-series.c: pmcount's counts over time: the statistics of repeated runs (-r: the mean and
 * the sample standard deviation of each count, by Welford's method, which stays exact to the last
 * digit for counts of any size) and the interval lines of -I, printed as the command runs, in the
 * report's format: perf stat -I's columns (time, count, event, and the share of the interval the
 * counters ran when they were multiplexed) as text, rows with a time_ns column as CSV, one JSON
 * document per line; with -m, each line's metrics, computed over what it counted and its length. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "csv-writer.h"
#include "json-writer.h"
#include "pmcount.h"
#include "text-table.h"

void report_add_run(Report *r) {
        r->n_runs++;
        for (int c = 0; c < MAX_COUNTERS; c++)
                if (report_counter_used(r, c))
                        run_stat_add(&r->counts[c], (double) r->total.accu[c]);
        run_stat_add(&r->elapsed, (double) r->elapsed_ns);
        run_stat_add(&r->enabled, (double) r->total_time.enabled_ns);
        run_stat_add(&r->running, (double) r->total_time.running_ns);
}

/* What an interval's lines show besides its counts: with -m, its metrics. */
typedef struct Interval {
        MetricValue metrics[METRICS_MAX];
        size_t n_metrics;
} Interval;

/* perf stat -I's line: "<not counted>" for the count, "(49.97%)" after the event when multiplexed;
 * then a line per metric: its value where the count goes, its unit and its name. */
static void text_interval(Report *r, const pm_data_t *now, CountTime time, double seconds,
                          const Interval *iv) {
        char value[THOUSANDS_MAX], id[16], note[COUNT_TIME_NOTE_MAX], metric[METRIC_VALUE_TEXT_MAX];

        count_time_format_note(time, note);
        if (r->n_intervals == 1)
                fprintf(r->f, "#%13s  %18s  %s\n", "time", "counts", "event");
        for (int c = 0; c < MAX_COUNTERS; c++)
                if (report_counter_used(r, c))
                        fprintf(r->f, "%14.6f  %18s  %s%s%s\n", seconds,
                                count_time_format_count(time, now->accu[c] - r->last[c], value),
                                report_event_name(r, c, id), *note ? " " : "", note);
        for (size_t i = 0; i < iv->n_metrics; i++)
                fprintf(r->f, "%14.6f  %18s  %s  %s\n", seconds, metric_format_value(&iv->metrics[i], metric),
                        iv->metrics[i].metric->unit, iv->metrics[i].metric->name);
}

/* An interval_metric row holds a metric as the report's metric rows do, with the interval's time_ns. */
static void csv_interval(Report *r, const pm_data_t *now, CountTime time, uint64_t time_ns,
                         const Interval *iv) {
        char id[16], metric[METRIC_VALUE_TEXT_MAX];
        CsvWriter w;

        if (!r->csv_header_written)
                report_csv_header(r);
        csv_writer_init_sep(&w, r->f, r->options->separator);
        for (int c = 0; c < MAX_COUNTERS; c++) {
                if (!report_counter_used(r, c))
                        continue;
                csv_field(&w, "interval");
                for (int i = 0; i < 4; i++)
                        csv_field(&w, NULL);
                csv_field(&w, report_event_name(r, c, id));
                csv_field(&w, report_event_status(r, c));
                csv_fieldf(&w, "%lld", (long long) (now->accu[c] - r->last[c]));
                csv_fieldf(&w, "%llu", (unsigned long long) time_ns);
                count_time_csv_fields(&w, &time);
                csv_end_row(&w);
        }
        for (size_t i = 0; i < iv->n_metrics; i++) {
                csv_field(&w, "interval_metric");
                for (int k = 0; k < 4; k++)
                        csv_field(&w, NULL);
                csv_field(&w, iv->metrics[i].metric->name);
                csv_field(&w, iv->metrics[i].metric->unit);
                csv_field(&w, metric_format_plain(&iv->metrics[i], metric));
                csv_fieldf(&w, "%llu", (unsigned long long) time_ns);
                count_time_csv_fields(&w, NULL);
                csv_end_row(&w);
        }
}

static int json_interval(Report *r, const pm_data_t *now, CountTime time, uint64_t time_ns,
                         const Interval *iv) {
        JsonWriter w;
        char id[16];

        json_writer_init(&w, r->f);
        json_open_object(&w, NULL);
        json_int(&w, "interval", r->n_intervals);
        json_uint(&w, "time_ns", time_ns);
        json_open_array(&w, "events");
        for (int c = 0; c < MAX_COUNTERS; c++) {
                if (!report_counter_used(r, c))
                        continue;
                json_open_object(&w, NULL);
                json_string(&w, "name", report_event_name(r, c, id));
                json_int(&w, "count", now->accu[c] - r->last[c]);
                count_time_json_members(&w, time);
                json_close_object(&w);
        }
        json_close_array(&w);
        if (r->options->metrics)
                metric_values_json(&w, iv->metrics, iv->n_metrics);
        json_bool(&w, "partial", now->ginfo.flags.b.partial);
        json_close_object(&w);
        return json_writer_finish(&w);
}

int report_interval(Report *r, const pm_data_t *now, const pm_accu_time_t *now_time, uint64_t now_ns) {
        uint64_t time_ns = now_ns - r->interval_start_ns;
        CountTime total = count_time_from_accu(now_time), time = count_time_since(total, r->last_time);
        Interval iv = {};
        int k = 0;

        r->n_intervals++;
        /* -m: over what each event counted in the interval, and the interval's length. */
        if (r->options->metrics) {
                long long counts[MAX_COUNTERS];

                for (int c = 0; c < MAX_COUNTERS; c++)
                        counts[c] = now->accu[c] - r->last[c];
                iv.n_metrics = report_metrics(r, counts, !count_time_not_counted(time),
                                              (double) (time_ns - r->last_line_ns) / 1e9, iv.metrics);
        }
        switch (r->options->format) {
        case REPORT_TEXT:
                text_interval(r, now, time, (double) time_ns / 1e9, &iv);
                break;
        case REPORT_CSV:
                csv_interval(r, now, time, time_ns, &iv);
                break;
        case REPORT_JSON:
                k = json_interval(r, now, time, time_ns, &iv);
                break;
        }
        memcpy(r->last, now->accu, sizeof(r->last));
        r->last_time = total;
        r->last_line_ns = time_ns;
        if (k == 0 && (fflush(r->f) != 0 || ferror(r->f)))
                k = -EIO;
        return k;
}
