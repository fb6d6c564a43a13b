/* pmcount-report.c: what pmcount prints once the command is done, in three forms: aligned text for
 * people (counts with thousands separators, each beside its event's status), CSV with one value a
 * row, and one JSON document. The numbers are the same in all three; man/pmcount.1 describes each
 * field. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "csv-writer.h"
#include "json-writer.h"
#include "macro.h"
#include "pmcount.h"
#include "prog-text.h"
#include "text-table.h"

int report_exit_code(const Report *r) {
        if (WIFEXITED(r->wait_status))
                return WEXITSTATUS(r->wait_status);
        if (WIFSIGNALED(r->wait_status))
                return 128 + WTERMSIG(r->wait_status);
        return EXIT_PMCOUNT_FAILED;
}

static const pm_events_t *event_of(const Report *r, int counter) {
        return prog_text_event_by_id(r->info, counter, r->prog.events[counter]);
}

static const char *event_name(const Report *r, int counter, char buf[static 16]) {
        const pm_events_t *e = event_of(r, counter);

        if (e)
                return e->short_name;
        snprintf(buf, 16, "%d", r->prog.events[counter]);
        return buf;
}

static const char *event_status(const Report *r, int counter) {
        const pm_events_t *e = event_of(r, counter);
        return e ? prog_text_status_name(e->status) : "unknown";
}

static bool counter_used(const Report *r, int counter) {
        return r->prog.events[counter] != COUNT_NOTHING;
}

static long long timeval_us(struct timeval tv) {
        return (long long) tv.tv_sec * 1000000 + tv.tv_usec;
}

/* The threads the command ran: the group's members less pmcount's own thread. */
static int n_threads(const Report *r) {
        return r->total.ginfo.members > 0 ? r->total.ginfo.members - 1 : 0;
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

/* A word as a shell would need it: quoted when it holds anything but safe characters. */
static void print_word(FILE *f, const char *w) {
        if (*w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=:,+-@%") ==
            strlen(w)) {
                fputs(w, f);
                return;
        }
        fputc('\'', f);
        for (const char *p = w; *p; p++)
                if (*p == '\'')
                        fputs("'\\''", f);
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

static int text_events(const Report *r, FILE *f) {
        _cleanup_(text_table_freep) TextTable *t = NULL;
        char value[THOUSANDS_MAX], id[16];
        int k;

        k = text_table_new(3, &t);
        if (k < 0)
                return k;
        text_table_align_right(t, 0);
        text_table_add(t, "COUNT");
        text_table_add(t, "EVENT");
        text_table_add(t, "STATUS");
        for (int c = 0; c < MAX_COUNTERS; c++) {
                if (!counter_used(r, c))
                        continue;
                text_table_add(t, "%s", format_thousands(r->total.accu[c], value));
                text_table_add(t, "%s", event_name(r, c, id));
                text_table_add(t, "%s", event_status(r, c));
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
                n_columns += counter_used(r, c);
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
                if (counter_used(r, c))
                        text_table_add(t, "%s", event_name(r, c, id));
        for (size_t i = 0; i < r->rows.n_rows; i++) {
                const MemberRow *m = &r->rows.rows[i];

                text_table_add(t, "%d", (int) m->pid);
                text_table_add(t, "%d", (int) m->tid);
                text_table_add(t, "%s", m->comm);
                text_table_add(t, "%s", m->alive ? "alive" : "exited");
                for (int c = 0; c < MAX_COUNTERS; c++)
                        if (counter_used(r, c))
                                text_table_add(t, "%s", format_thousands(m->counts[c], value));
        }
        return text_table_print(t, f);
}

static int write_text(const Report *r, FILE *f) {
        const Options *o = r->options;
        int k;

        fputs("Command:        ", f);
        for (char **w = o->command; *w; w++) {
                if (w != o->command)
                        fputc(' ', f);
                print_word(f, *w);
        }
        fputs("\nProcess:        ", f);
        print_outcome(r, f);
        fprintf(f, "Counting mode:  %s\n", o->kernel ? "user, kernel" : "user");
        fprintf(f, "Threads:        %d%s\n", n_threads(r),
                r->total.ginfo.flags.b.partial ? " (partial: threads pmapid could not count ran uncounted)" :
                r->total.ginfo.flags.b.consistent ? "" : " (group inconsistent)");
        fprintf(f, "Elapsed time:   %.6f s\n\n", (double) r->elapsed_ns / 1e9);
        k = text_events(r, f);
        if (k < 0)
                return k;
        fputs("\nResource usage (wait4):\n", f);
        k = text_usage(r, f);
        if (k < 0)
                return k;
        if (r->have_rows) {
                fprintf(f, "\nThreads (%zu", r->rows.n_rows);
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

/* CSV: record,pid,tid,comm,state,name,status,value; one value a row. */

static void csv_row(CsvWriter *w, const char *record, const MemberRow *m, const char *name, const char *status,
                    long long value) {
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
        csv_fieldf(w, "%lld", value);
        csv_end_row(w);
}

static int write_csv(const Report *r, FILE *f) {
        int s = r->wait_status;
        char id[16];
        CsvWriter w;
        Usage u[7];
        size_t n = usage_list(r, u);

        csv_writer_init(&w, f);
        for (const char *const *h = (const char *const[]) { "record", "pid", "tid", "comm", "state", "name",
                                                            "status", "value", NULL }; *h; h++)
                csv_field(&w, *h);
        csv_end_row(&w);
        csv_row(&w, "command", NULL, "pid", NULL, r->pid);
        csv_row(&w, "command", NULL, "exit_code", NULL, report_exit_code(r));
        if (WIFSIGNALED(s))
                csv_row(&w, "command", NULL, "signal", NULL, WTERMSIG(s));
        csv_row(&w, "command", NULL, "elapsed_ns", NULL, (long long) r->elapsed_ns);
        csv_row(&w, "command", NULL, "kernel_mode", NULL, r->options->kernel);
        csv_row(&w, "group", NULL, "threads", NULL, n_threads(r));
        csv_row(&w, "group", NULL, "consistent", NULL, r->total.ginfo.flags.b.consistent);
        csv_row(&w, "group", NULL, "partial", NULL, r->total.ginfo.flags.b.partial);
        for (int c = 0; c < MAX_COUNTERS; c++)
                if (counter_used(r, c))
                        csv_row(&w, "event", NULL, event_name(r, c, id), event_status(r, c), r->total.accu[c]);
        for (size_t i = 0; i < n; i++)
                csv_row(&w, "rusage", NULL, u[i].json_name, NULL, u[i].value);
        if (r->have_rows) {
                csv_row(&w, "group", NULL, "rows_dropped", NULL, r->rows.n_dropped);
                csv_row(&w, "group", NULL, "threads_missed", NULL, r->rows.n_missed);
                for (size_t i = 0; i < r->rows.n_rows; i++)
                        for (int c = 0; c < MAX_COUNTERS; c++)
                                if (counter_used(r, c))
                                        csv_row(&w, "thread", &r->rows.rows[i], event_name(r, c, id),
                                                event_status(r, c), r->rows.rows[i].counts[c]);
        }
        return csv_writer_finish(&w);
}

/* JSON */

static void json_counts(JsonWriter *w, const Report *r, const int64_t counts[MAX_COUNTERS]) {
        json_open_array(w, "counts");
        for (int c = 0; c < MAX_COUNTERS; c++)
                if (counter_used(r, c))
                        json_int(w, NULL, counts[c]);
        json_close_array(w);
}

static int write_json(const Report *r, FILE *f) {
        int s = r->wait_status;
        JsonWriter w;
        char id[16];
        Usage u[7];
        size_t n = usage_list(r, u);

        json_writer_init(&w, f);
        json_open_object(&w, NULL);
        json_open_array(&w, "command");
        for (char **a = r->options->command; *a; a++)
                json_string(&w, NULL, *a);
        json_close_array(&w);
        json_int(&w, "pid", r->pid);
        json_int(&w, "exit_code", report_exit_code(r));
        if (WIFEXITED(s))
                json_int(&w, "exit_status", WEXITSTATUS(s));
        else
                json_null(&w, "exit_status");
        if (WIFSIGNALED(s))
                json_int(&w, "signal", WTERMSIG(s));
        else
                json_null(&w, "signal");
        json_open_object(&w, "mode");
        json_bool(&w, "user", true);
        json_bool(&w, "kernel", r->options->kernel);
        json_close_object(&w);
        json_int(&w, "elapsed_ns", (long long) r->elapsed_ns);
        json_int(&w, "threads", n_threads(r));
        json_bool(&w, "consistent", r->total.ginfo.flags.b.consistent);
        json_bool(&w, "partial", r->total.ginfo.flags.b.partial);
        json_open_array(&w, "events");
        for (int c = 0; c < MAX_COUNTERS; c++) {
                if (!counter_used(r, c))
                        continue;
                json_open_object(&w, NULL);
                json_int(&w, "counter", c);
                json_int(&w, "id", r->prog.events[c]);
                json_string(&w, "name", event_name(r, c, id));
                json_string(&w, "status", event_status(r, c));
                json_int(&w, "count", r->total.accu[c]);
                json_close_object(&w);
        }
        json_close_array(&w);
        json_open_object(&w, "rusage");
        for (size_t i = 0; i < n; i++)
                json_int(&w, u[i].json_name, u[i].value);
        json_close_object(&w);
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
                json_int(&w, "threads_missed", r->rows.n_missed);
        }
        json_close_object(&w);
        return json_writer_finish(&w);
}

int report_write(const Report *r, FILE *f) {
        switch (r->options->format) {
        case REPORT_CSV:
                return write_csv(r, f);
        case REPORT_JSON:
                return write_json(r, f);
        default:
                return write_text(r, f);
        }
}
