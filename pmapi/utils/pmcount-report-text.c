/* pmcount-report-text.c: pmcount's report for people: a header (the command or target, how it
 * ended, the mode, -g's event group, the threads, the elapsed time), the counts with the locale's
 * thousands separators, each beside its event's status, with perf stat's derived values (the task
 * clock in msec and CPUs utilized, other counts per second of it; with -r the variation), with -m
 * the derived metrics (metrics.h), then the resource usage and, with --per-thread, the threads. A
 * partial count says so; with --cgroup, the cgroup's lines (pmcount-cgroup.c) take the place of the
 * counting group's. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "macro.h"
#include "pmcount-report.h"
#include "prog-text.h"
#include "text-table.h"

/* perf stat's "( +- 1.23% )": the standard deviation of the mean, relative to the mean. */
/* -C: the cgroup counted. */
static void cgroup_report_text(const Report *r, FILE *f) {
        fprintf(f, "Cgroup:         %s (id %llu) and its descendants, on every CPU\n", r->cgroup.path,
                (unsigned long long) r->cgroup.id);
        if (r->cgroup_removed)
                fputs("Removed:        the cgroup was removed during the run: these are the counts it had\n", f);
}

static double variation_percent(const RunStat *s) {
        if (s->n < 2 || s->mean == 0)
                return 0.0;
        return 100.0 * run_stat_stddev(s) / sqrt((double) s->n) / fabs(s->mean);
}

/* The counter that counts PM_TASK_CLOCK (ns on a CPU), or -1. */
static int task_clock_counter(const Report *r) {
        for (int c = 0; c < MAX_COUNTERS; c++) {
                const pm_events_t *e = report_event(r, c);
                if (report_counter_used(r, c) && e && strcmp(e->short_name, "PM_TASK_CLOCK") == 0)
                        return c;
        }
        return -1;
}

/* A word as a shell would need it: as it is when it holds only safe characters, else quoted; with
 * bash's $'...' and \xNN escapes when it holds control characters (C0, DEL, C1: text-table.h),
 * which never reach the terminal raw. */
static void print_word(FILE *f, const char *w) {
        bool control = false;

        if (*w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=:,+-@%") ==
            strlen(w)) {
                fputs(w, f);
                return;
        }
        for (const char *p = w; *p && !control; p++)
                control = text_control_length(p) > 0;
        if (!control) {
                fputc('\'', f);
                for (const char *p = w; *p; p++)
                        fputs(*p == '\'' ? "'\\''" : (char[]) { *p, 0 }, f);
                fputc('\'', f);
                return;
        }
        fputs("$'", f);
        for (const char *p = w; *p;) {
                size_t n = text_control_length(p);

                if (n == 0 && (*p == '\'' || *p == '\\'))
                        fprintf(f, "\\%c", *p++);
                else if (n == 0)
                        fputc(*p++, f);
                for (; n > 0; n--)
                        fprintf(f, "\\x%02x", (unsigned char) *p++);
        }
        fputc('\'', f);
}

static void print_outcome(const Report *r, FILE *f) {
        int s = r->wait_status;

        if (WIFEXITED(s))
                fprintf(f, "%d, exited with status %d\n", (int) r->pid, WEXITSTATUS(s));
        else if (WIFSIGNALED(s))
                fprintf(f, "%d, killed by signal %d (%s)%s\n", (int) r->pid, WTERMSIG(s),
                        strsignal(WTERMSIG(s)), WCOREDUMP(s) ? ", core dumped" : "");
        else
                fprintf(f, "%d\n", (int) r->pid);
}

/* "1.234 K/sec": a count per second of the time it ran in, scaled as perf stat scales it. */
static void format_rate(double per_second, char *buf, size_t size) {
        static const char *const units[] = { "/sec", "K/sec", "M/sec", "G/sec" };
        size_t u = 0;

        while (u + 1 < ELEMENTSOF(units) && fabs(per_second) >= 1000.0) {
                per_second /= 1000.0;
                u++;
        }
        snprintf(buf, size, "%.3f %s", per_second, units[u]);
}

/* What perf stat prints after '#': the task clock in msec and the CPUs it kept busy over the
 * elapsed time; any other count per second of task clock (of elapsed time without one). */
static void derived_note(const Report *r, int counter, int task_clock, char *buf, size_t size) {
        double elapsed_s = (r->n_runs > 1 ? r->elapsed.mean : (double) r->elapsed_ns) / 1e9;
        double count = (double) report_count(r, counter);
        char rate[48];

        if (counter == task_clock) {
                snprintf(buf, size, "%.3f msec task clock, %.3f CPUs utilized", count / 1e6,
                         elapsed_s > 0 ? count / 1e9 / elapsed_s : 0.0);
                return;
        }
        if (task_clock >= 0 && report_count(r, task_clock) > 0)
                format_rate(count / ((double) report_count(r, task_clock) / 1e9), rate, sizeof(rate));
        else if (elapsed_s > 0)
                format_rate(count / elapsed_s, rate, sizeof(rate));
        else
                rate[0] = '\0';
        snprintf(buf, size, "%s", rate);
}

/* perf stat's marks for multiplexed counters: "<not counted>" in place of the count, with no
 * derived value, and "(49.97%)" of the enabled time after the event's name. */
static int text_events(const Report *r, FILE *f) {
        _cleanup_(text_table_freep) TextTable *t = NULL;
        char value[THOUSANDS_MAX], id[16], note[128], running[COUNT_TIME_NOTE_MAX];
        CountTime time = report_time(r);
        bool runs = r->n_runs > 1, not_counted = count_time_not_counted(time);
        int task_clock = task_clock_counter(r), k;

        k = text_table_new(runs ? 5 : 4, &t);
        if (k < 0)
                return k;
        text_table_align_right(t, 0);
        text_table_add(t, "COUNT");
        text_table_add(t, "EVENT");
        text_table_add(t, "STATUS");
        if (runs) {
                text_table_align_right(t, 3);
                text_table_add(t, "VARIATION");
        }
        text_table_add(t, "NOTE");
        count_time_format_note(time, running);
        for (int c = 0; c < MAX_COUNTERS; c++) {
                if (!report_counter_used(r, c))
                        continue;
                text_table_add(t, "%s", count_time_format_count(time, report_count(r, c), value));
                text_table_add(t, "%s%s%s", report_event_name(r, c, id), *running ? " " : "", running);
                text_table_add(t, "%s", report_event_status(r, c));
                if (runs)
                        text_table_add(t, "+- %.2f %%", variation_percent(&r->counts[c]));
                if (not_counted)
                        note[0] = '\0';
                else
                        derived_note(r, c, task_clock, note, sizeof(note));
                text_table_add(t, "%s%s", r->partial && !not_counted ? "partial: at least; " : "", note);
        }
        return text_table_print(t, f);
}

/* -m: one line a metric, as perf stat writes its shadow metrics: the value, its unit, the metric. */
static int text_metrics(const Report *r, FILE *f) {
        _cleanup_(text_table_freep) TextTable *t = NULL;
        MetricValue v[METRICS_MAX];
        char value[METRIC_VALUE_TEXT_MAX];
        size_t n = report_total_metrics(r, v);
        int k;

        if (n == 0) {
                fputs("\nMetrics: none; no metric has all its events counted\n", f);
                return 0;
        }
        k = text_table_new(3, &t);
        if (k < 0)
                return k;
        text_table_align_right(t, 0);
        text_table_set_style(t, /* no_headings= */ true, false);
        text_table_add(t, "VALUE");
        text_table_add(t, "UNIT");
        text_table_add(t, "METRIC");
        for (size_t i = 0; i < n; i++) {
                text_table_add(t, "%s", metric_format_value(&v[i], value));
                text_table_add(t, "%s", v[i].metric->unit);
                text_table_add(t, "%s", v[i].metric->name);
        }
        fprintf(f, "\nMetrics%s:\n", r->n_runs > 1 ? " (of the means)" : "");
        return text_table_print(t, f);
}

/* As perf stat writes them: the value, its unit, what it is. */
static int text_usage(const Report *r, FILE *f) {
        _cleanup_(text_table_freep) TextTable *t = NULL;
        char value[THOUSANDS_MAX];
        Usage u[REPORT_N_USAGE];
        size_t n = report_usage_list(r, u);
        int k;

        k = text_table_new(3, &t);
        if (k < 0)
                return k;
        text_table_align_right(t, 0);
        text_table_set_style(t, /* no_headings= */ true, false);
        text_table_add(t, "VALUE");
        text_table_add(t, "UNIT");
        text_table_add(t, "WHAT");
        for (size_t i = 0; i < n; i++) {
                if (strcmp(u[i].unit, "us") == 0) {
                        /* Seconds read better; the CSV and JSON forms keep microseconds. */
                        text_table_add(t, "%.6f", (double) u[i].value / 1e6);
                        text_table_add(t, "s");
                } else {
                        text_table_add(t, "%s", format_thousands(u[i].value, value));
                        text_table_add(t, "%s", u[i].unit);
                }
                text_table_add(t, "%s", u[i].label);
        }
        return text_table_print(t, f);
}

static int text_threads(const Report *r, FILE *f) {
        _cleanup_(text_table_freep) TextTable *t = NULL;
        char value[THOUSANDS_MAX], id[16];
        size_t n_columns = 4;
        int k;

        for (int c = 0; c < MAX_COUNTERS; c++)
                n_columns += report_counter_used(r, c);
        k = text_table_new(n_columns, &t);
        if (k < 0)
                return k;
        for (size_t i = 0; i < n_columns; i++)
                if (i < 2 || i >= 4)
                        text_table_align_right(t, i);
        text_table_add(t, "PID");
        text_table_add(t, "TID");
        text_table_add(t, "COMM");
        text_table_add(t, "STATE");
        for (int c = 0; c < MAX_COUNTERS; c++)
                if (report_counter_used(r, c))
                        text_table_add(t, "%s", report_event_name(r, c, id));
        for (size_t i = 0; i < r->rows.n_rows; i++) {
                const MemberRow *m = &r->rows.rows[i];

                text_table_add(t, "%d", (int) m->pid);
                text_table_add(t, "%d", (int) m->tid);
                text_table_add(t, "%s", m->comm);
                text_table_add(t, "%s", m->alive ? "alive" : "exited");
                for (int c = 0; c < MAX_COUNTERS; c++)
                        if (report_counter_used(r, c))
                                text_table_add(t, "%s", format_thousands(m->counts[c], value));
        }
        return text_table_print(t, f);
}

/* The command or target, how it ended, the mode and -g's event group, the threads (or the cgroup),
 * the time. */
static void text_head(const Report *r, FILE *f) {
        const Options *o = r->options;
        double elapsed = (r->n_runs > 1 ? r->elapsed.mean : (double) r->elapsed_ns) / 1e9;
        char mode[64];

        if (report_attached(r)) {
                fprintf(f, "Target:         %s %d", o->attach_process ? "process" : "thread",
                        (int) (o->attach_process ? o->attach_pid : o->attach_tid));
                if (!o->attach_process)
                        fprintf(f, " of process %d, and what it created", (int) o->attach_pid);
                fprintf(f, "%s\n", r->target_gone ? " (exited)" : "");
        } else {
                fputs("Command:        ", f);
                for (char **w = o->command; *w; w++) {
                        if (w != o->command)
                                fputc(' ', f);
                        print_word(f, *w);
                }
                fputs("\nProcess:        ", f);
                print_outcome(r, f);
        }
        fprintf(f, "Counting mode:  %s\n", prog_text_format_mode(o->mode, mode, sizeof(mode)));
        if (r->group)
                fprintf(f, "Event group:    %d %s\n", r->group->group_id, r->group->short_name ?: "");
        if (o->cgroup)
                cgroup_report_text(r, f);
        else
                fprintf(f, "Threads:        %d%s\n", report_n_threads(r),
                        r->total.ginfo.flags.b.consistent || r->partial ? "" : " (group inconsistent)");
        if (r->n_runs > 1)
                fprintf(f, "Runs:           %u\n", r->n_runs);
        fprintf(f, "%s   %.6f s", report_attached(r) ? "Counted for: " : "Elapsed time:", elapsed);
        if (r->n_runs > 1)
                fprintf(f, " (+- %.2f %%)", variation_percent(&r->elapsed));
        fputc('\n', f);
        if (r->partial && r->target_gone)
                fprintf(f, "Partial:        the target exited after the last read (at most 100 ms before): "
                        "what ran after it is not counted\n");
        else if (r->partial)
                fprintf(f, "Partial:        %u thread%s ran uncounted (pmapid's limits): every count is a "
                        "lower bound\n", r->threads_missed, r->threads_missed == 1 ? "" : "s");
        fputc('\n', f);
}

int report_write_text(const Report *r, FILE *f) {
        int k;

        text_head(r, f);
        k = text_events(r, f);
        if (k < 0)
                return k;
        if (r->options->metrics) {
                k = text_metrics(r, f);
                if (k < 0)
                        return k;
        }
        if (!report_attached(r)) {
                fputs("\nResource usage (wait4", f);
                fputs(r->n_runs > 1 ? ", the last run):\n" : "):\n", f);
                k = text_usage(r, f);
                if (k < 0)
                        return k;
        }
        if (r->have_rows) {
                fprintf(f, "\nThreads (%zu", r->rows.n_rows);
                if (r->n_runs > 1)
                        fputs(", the last run", f);
                if (r->rows.n_dropped > 0)
                        fprintf(f, "; %u more exited without a row, past pmapid's bound", r->rows.n_dropped);
                if (r->rows.n_missed > 0)
                        fprintf(f, "; %u not counted at all: pmapid's limits", r->rows.n_missed);
                fputs("):\n", f);
                k = text_threads(r, f);
                if (k < 0)
                        return k;
        }
        return fflush(f) == 0 && !ferror(f) ? 0 : -(errno > 0 ? errno : EIO);
}
