/* pmcount-report.c: what pmcount prints once the command is done, in three forms: aligned text for
 * people (counts with the locale's thousands separators, each beside its event's status, with
 * perf stat's derived values: the task clock in msec and CPUs utilized, other counts per second of
 * it; with -r the variation), CSV with one value a row, and one JSON document. The numbers are the
 * same in all three; man/pmcount.1 describes each field. A partial count says so in each form; with
 * --cgroup, the cgroup's lines (pmcount-cgroup.c) take the place of the counting group's. */
#include <errno.h>
#include <glib.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "csv-writer.h"
#include "json-writer.h"
#include "macro.h"
#include "pmcount.h"
#include "prog-text.h"
#include "text-table.h"
#include "tool-usage.h"

int report_exit_code(const Report *r) {
        if (WIFEXITED(r->wait_status))
                return WEXITSTATUS(r->wait_status);
        if (WIFSIGNALED(r->wait_status))
                return 128 + WTERMSIG(r->wait_status);
        return TOOL_EXIT_OWN;
}

const pm_events_t *report_event(const Report *r, int counter) {
        return prog_text_event_by_id(r->info, counter, r->prog.events[counter]);
}

const char *report_event_name(const Report *r, int counter, char buf[static 16]) {
        const pm_events_t *e = report_event(r, counter);

        if (e)
                return e->short_name;
        snprintf(buf, 16, "%d", r->prog.events[counter]);
        return buf;
}

const char *report_event_status(const Report *r, int counter) {
        const pm_events_t *e = report_event(r, counter);
        return e ? prog_text_status_name(e->status) : "unknown";
}

static bool attached(const Report *r) {
        return !r->options->command;
}

/* With -r, a count is the mean of the runs (rounded); else the run's. */
static long long count_of(const Report *r, int counter) {
        if (r->n_runs > 1)
                return llround(r->counts[counter].mean);
        return r->total.accu[counter];
}

/* perf stat's "( +- 1.23% )": the standard deviation of the mean, relative to the mean. */
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

static long long timeval_us(struct timeval tv) {
        return (long long) tv.tv_sec * 1000000 + tv.tv_usec;
}

/* The threads counted: the group's members, less pmcount's own thread when it ran COMMAND. */
static int n_threads(const Report *r) {
        int n = r->total.ginfo.members - (attached(r) ? 0 : 1);
        return n > 0 ? n : 0;
}

typedef struct Usage {
        const char *label, *json_name, *unit;
        long long value;
} Usage;

static size_t usage_list(const Report *r, Usage u[static 7]) {
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

/* Text */

/* A word as a shell would need it: as it is when it holds only safe characters, else quoted; with
 * bash's $'...' and \xNN escapes when it holds control characters, which never reach the terminal
 * raw. */
static void print_word(FILE *f, const char *w) {
        bool control = false;

        if (*w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=:,+-@%") ==
            strlen(w)) {
                fputs(w, f);
                return;
        }
        for (const unsigned char *p = (const unsigned char *) w; *p; p++)
                control = control || *p < 0x20 || *p == 0x7f;
        if (!control) {
                fputc('\'', f);
                for (const char *p = w; *p; p++)
                        fputs(*p == '\'' ? "'\\''" : (char[]) { *p, 0 }, f);
                fputc('\'', f);
                return;
        }
        fputs("$'", f);
        for (const unsigned char *p = (const unsigned char *) w; *p; p++)
                if (*p < 0x20 || *p == 0x7f)
                        fprintf(f, "\\x%02x", *p);
                else if (*p == '\'' || *p == '\\')
                        fprintf(f, "\\%c", *p);
                else
                        fputc(*p, f);
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
        double count = (double) count_of(r, counter);
        char rate[48];

        if (counter == task_clock) {
                snprintf(buf, size, "%.3f msec task clock, %.3f CPUs utilized", count / 1e6,
                         elapsed_s > 0 ? count / 1e9 / elapsed_s : 0.0);
                return;
        }
        if (task_clock >= 0 && count_of(r, task_clock) > 0)
                format_rate(count / ((double) count_of(r, task_clock) / 1e9), rate, sizeof(rate));
        else if (elapsed_s > 0)
                format_rate(count / elapsed_s, rate, sizeof(rate));
        else
                rate[0] = '\0';
        snprintf(buf, size, "%s", rate);
}

static int text_events(const Report *r, FILE *f) {
        _cleanup_(text_table_freep) TextTable *t = NULL;
        char value[THOUSANDS_MAX], id[16], note[128];
        bool runs = r->n_runs > 1;
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
        for (int c = 0; c < MAX_COUNTERS; c++) {
                if (!report_counter_used(r, c))
                        continue;
                text_table_add(t, "%s", format_thousands(count_of(r, c), value));
                text_table_add(t, "%s", report_event_name(r, c, id));
                text_table_add(t, "%s", report_event_status(r, c));
                if (runs)
                        text_table_add(t, "+- %.2f %%", variation_percent(&r->counts[c]));
                derived_note(r, c, task_clock, note, sizeof(note));
                text_table_add(t, "%s%s", r->partial ? "partial: at least; " : "", note);
        }
        return text_table_print(t, f);
}

/* As perf stat writes them: the value, its unit, what it is. */
static int text_usage(const Report *r, FILE *f) {
        _cleanup_(text_table_freep) TextTable *t = NULL;
        char value[THOUSANDS_MAX];
        Usage u[7];
        size_t n = usage_list(r, u);
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

static void text_head(const Report *r, FILE *f) {
        const Options *o = r->options;
        double elapsed = (r->n_runs > 1 ? r->elapsed.mean : (double) r->elapsed_ns) / 1e9;
        char mode[64];

        if (attached(r)) {
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
        if (o->cgroup)
                cgroup_report_text(r, f);
        else
                fprintf(f, "Threads:        %d%s\n", n_threads(r),
                        r->total.ginfo.flags.b.consistent || r->partial ? "" : " (group inconsistent)");
        if (r->n_runs > 1)
                fprintf(f, "Runs:           %u\n", r->n_runs);
        fprintf(f, "%s   %.6f s", attached(r) ? "Counted for: " : "Elapsed time:", elapsed);
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

static int write_text(const Report *r, FILE *f) {
        int k;

        text_head(r, f);
        k = text_events(r, f);
        if (k < 0)
                return k;
        if (!attached(r)) {
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

/* CSV: record,pid,tid,comm,state,name,status,value, and time_ns with -I; one value a row. */

void report_csv_header(Report *r) {
        CsvWriter w;

        csv_writer_init_sep(&w, r->f, r->options->separator);
        for (const char *const *h = (const char *const[]) { "record", "pid", "tid", "comm", "state", "name",
                                                            "status", "value", NULL }; *h; h++)
                csv_field(&w, *h);
        if (r->options->interval_ms > 0)
                csv_field(&w, "time_ns");
        csv_end_row(&w);
        r->csv_header_written = true;
}

/* With -I every row has the time_ns column, empty but in the interval rows. */
static bool csv_time_column;

static void csv_row(CsvWriter *w, const char *record, const MemberRow *m, const char *name, const char *status,
                    const char *format, ...) __attribute__((format(printf, 6, 7)));

static void csv_row(CsvWriter *w, const char *record, const MemberRow *m, const char *name, const char *status,
                    const char *format, ...) {
        _cleanup_free_ char *value = NULL;
        va_list ap;

        csv_field(w, record);
        if (m) {
                csv_fieldf(w, "%d", (int) m->pid);
                csv_fieldf(w, "%d", (int) m->tid);
                csv_field(w, m->comm);
                csv_field(w, m->alive ? "alive" : "exited");
        } else {
                for (int i = 0; i < 4; i++)
                        csv_field(w, NULL);
        }
        csv_field(w, name);
        csv_field(w, status);
        va_start(ap, format);
        if (vasprintf(&value, format, ap) < 0) {
                value = NULL;
                w->error = -ENOMEM;
        }
        va_end(ap);
        csv_field(w, value);
        if (csv_time_column)
                csv_field(w, NULL);
        csv_end_row(w);
}

void report_csv_value(CsvWriter *w, const char *record, const char *name, const char *value) {
        csv_row(w, record, NULL, name, NULL, "%s", value);
}

static int write_csv(Report *r, FILE *f) {
        char id[16], number[G_ASCII_DTOSTR_BUF_SIZE];   /* CSV numbers are plain, whatever the locale */
        int s = r->wait_status;
        CsvWriter w;
        Usage u[7];
        size_t n = usage_list(r, u);

        if (!r->csv_header_written)
                report_csv_header(r);
        csv_writer_init_sep(&w, f, r->options->separator);
        csv_time_column = r->options->interval_ms > 0;
        if (attached(r)) {
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
        if (r->options->cgroup)
                cgroup_report_csv(r, &w);
        else {
                csv_row(&w, "group", NULL, "threads", NULL, "%d", n_threads(r));
                csv_row(&w, "group", NULL, "consistent", NULL, "%d", r->total.ginfo.flags.b.consistent);
                csv_row(&w, "group", NULL, "partial", NULL, "%d", r->partial);
                csv_row(&w, "group", NULL, "threads_missed", NULL, "%u", r->threads_missed);
        }
        for (int c = 0; c < MAX_COUNTERS; c++) {
                if (!report_counter_used(r, c))
                        continue;
                csv_row(&w, "event", NULL, report_event_name(r, c, id), report_event_status(r, c), "%lld",
                        count_of(r, c));
                if (r->n_runs > 1)
                        csv_row(&w, "event_stddev", NULL, report_event_name(r, c, id), report_event_status(r, c),
                                "%s", g_ascii_formatd(number, sizeof(number), "%.3f",
                                                      run_stat_stddev(&r->counts[c])));
        }
        if (!attached(r))
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

/* JSON */

static void json_counts(JsonWriter *w, const Report *r, const int64_t counts[MAX_COUNTERS]) {
        json_open_array(w, "counts");
        for (int c = 0; c < MAX_COUNTERS; c++)
                if (report_counter_used(r, c))
                        json_int(w, NULL, counts[c]);
        json_close_array(w);
}

static void json_command(JsonWriter *w, const Report *r) {
        int s = r->wait_status;

        if (attached(r)) {
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

static int write_json(const Report *r, FILE *f) {
        JsonWriter w;
        char id[16];
        Usage u[7];
        size_t n = usage_list(r, u);

        json_writer_init(&w, f);
        json_open_object(&w, NULL);
        json_command(&w, r);
        json_open_object(&w, "mode");
        json_bool(&w, "user", r->options->mode & PM_USER);
        json_bool(&w, "kernel", r->options->mode & PM_KERNEL);
        json_close_object(&w);
        json_int(&w, "elapsed_ns", r->n_runs > 1 ? llround(r->elapsed.mean) : (long long) r->elapsed_ns);
        if (r->n_runs > 1)
                json_double(&w, "elapsed_ns_stddev", run_stat_stddev(&r->elapsed));
        if (r->options->cgroup)
                cgroup_report_json(r, &w);
        else {
                json_int(&w, "threads", n_threads(r));
                json_bool(&w, "consistent", r->total.ginfo.flags.b.consistent);
                json_bool(&w, "partial", r->partial);
                json_int(&w, "threads_missed", r->threads_missed);
        }
        json_open_array(&w, "events");
        for (int c = 0; c < MAX_COUNTERS; c++) {
                if (!report_counter_used(r, c))
                        continue;
                json_open_object(&w, NULL);
                json_int(&w, "counter", c);
                json_int(&w, "id", r->prog.events[c]);
                json_string(&w, "name", report_event_name(r, c, id));
                json_string(&w, "status", report_event_status(r, c));
                json_int(&w, "count", count_of(r, c));
                if (r->n_runs > 1) {
                        json_double(&w, "mean", r->counts[c].mean);
                        json_double(&w, "stddev", run_stat_stddev(&r->counts[c]));
                        json_double(&w, "variance", r->counts[c].n > 1 ? r->counts[c].m2 / (r->counts[c].n - 1) : 0);
                }
                json_close_object(&w);
        }
        json_close_array(&w);
        if (!attached(r)) {
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

int report_write(Report *r) {
        switch (r->options->format) {
        case REPORT_CSV:
                return write_csv(r, r->f);
        case REPORT_JSON:
                return write_json(r, r->f);
        default:
                return write_text(r, r->f);
        }
}
