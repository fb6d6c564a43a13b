/* pmcount-report.c: what pmcount's report holds, whatever its form: the command's exit status, the
 * events' names and statuses, each count and how long it was counted (with -r the means of the
 * runs), the threads counted and the resource usage; and report_write(), which hands the report to
 * its form: aligned text for people (pmcount-report-text.c), CSV or JSON for programs
 * (pmcount-report-data.c); with -m, the derived metrics of the counts (metrics.h). The numbers are
 * the same in all three; man/pmcount.1 describes each field. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "pmcount-report.h"
#include "prog-text.h"
#include "tool-usage.h"

int report_exit_code(const Report *r) {
        if (WIFEXITED(r->wait_status))
                return WEXITSTATUS(r->wait_status);
        if (WIFSIGNALED(r->wait_status))
                return 128 + WTERMSIG(r->wait_status);
        return TOOL_EXIT_OWN;
}

const pm_events_t *report_event(const Report *r, int counter) {
        return prog_text_event_by_id(r->info, counter, report_event_id(r, counter));
}

const char *report_event_name(const Report *r, int counter, char buf[static 16]) {
        const pm_events_t *e = report_event(r, counter);

        if (e)
                return e->short_name;
        snprintf(buf, 16, "%d", report_event_id(r, counter));
        return buf;
}

const char *report_event_status(const Report *r, int counter) {
        const pm_events_t *e = report_event(r, counter);
        return e ? prog_text_status_name(e->status) : "unknown";
}

bool report_attached(const Report *r) {
        return !r->options->command;
}

long long report_count(const Report *r, int counter) {
        if (r->n_runs > 1)
                return llround(r->counts[counter].mean);
        return r->total.accu[counter];
}

CountTime report_time(const Report *r) {
        if (r->n_runs > 1)
                return (CountTime) { .enabled_ns = (unsigned long long) llround(r->enabled.mean),
                                     .running_ns = (unsigned long long) llround(r->running.mean) };
        return r->total_time;
}

size_t report_metrics(const Report *r, const long long counts[MAX_COUNTERS], bool counted, double elapsed_s,
                      MetricValue ret[static METRICS_MAX]) {
        MetricCount c[MAX_COUNTERS];
        char ids[MAX_COUNTERS][16];
        size_t n = 0, k;

        for (int i = 0; i < MAX_COUNTERS; i++)
                if (report_counter_used(r, i))
                        c[n++] = (MetricCount) { report_event_name(r, i, ids[i]), counts[i], counted };
        k = metric_list_compute(r->metric_list, c, n, elapsed_s, ret, METRICS_MAX);
        return k < METRICS_MAX ? k : METRICS_MAX;
}

size_t report_total_metrics(const Report *r, MetricValue ret[static METRICS_MAX]) {
        long long counts[MAX_COUNTERS];
        double elapsed_ns = r->n_runs > 1 ? r->elapsed.mean : (double) r->elapsed_ns;

        for (int c = 0; c < MAX_COUNTERS; c++)
                counts[c] = report_counter_used(r, c) ? report_count(r, c) : 0;
        return report_metrics(r, counts, !count_time_not_counted(report_time(r)), elapsed_ns / 1e9, ret);
}

static long long timeval_us(struct timeval tv) {
        return (long long) tv.tv_sec * 1000000 + tv.tv_usec;
}

int report_n_threads(const Report *r) {
        int n = r->total.ginfo.members - (report_attached(r) ? 0 : 1);
        return n > 0 ? n : 0;
}

size_t report_usage_list(const Report *r, Usage u[static REPORT_N_USAGE]) {
        const struct rusage *ru = &r->rusage;
        size_t n = 0;

        u[n++] = (Usage) { "user CPU time", "user_us", "us", timeval_us(ru->ru_utime) };
        u[n++] = (Usage) { "system CPU time", "system_us", "us", timeval_us(ru->ru_stime) };
        u[n++] = (Usage) { "maximum resident set size", "max_rss_kib", "KiB", ru->ru_maxrss };
        u[n++] = (Usage) { "minor page faults", "minor_faults", "", ru->ru_minflt };
        u[n++] = (Usage) { "major page faults", "major_faults", "", ru->ru_majflt };
        u[n++] = (Usage) { "voluntary context switches", "voluntary_switches", "", ru->ru_nvcsw };
        u[n++] = (Usage) { "involuntary context switches", "involuntary_switches", "", ru->ru_nivcsw };
        return n;
}

void run_stat_add(RunStat *s, double value) {
        double d = value - s->mean;

        s->n++;
        s->mean += d / s->n;
        s->m2 += d * (value - s->mean);
}

double run_stat_stddev(const RunStat *s) {
        return s->n > 1 ? sqrt(s->m2 / (s->n - 1)) : 0.0;
}
