/* test-pmcount-perf.c: what perf stat users reach for first, in pmcount, side by side with perf
 * stat on the same workloads: -r (the mean of the runs equals perf stat -r's within 0.5 %, with
 * the variation and the runs in every format), -I (interval lines add up to the total, which is
 * perf stat's), -p and -t (a running process or thread counted from now until ^C: exactly what it
 * does meanwhile, the same as perf stat -p/-t attached beside it; a target that exits ends the
 * count by itself), long event names as pmlist shows them, the mode options, -x and --no-big-num;
 * how long each count was counted, in CSV and JSON: all of its enabled time here, where no counter
 * is multiplexed (tests/unit/test-count-time.c and test-pmcount-report.c show the other cases). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-glib/json-glib.h>

#include "bus-fixture.h"
#include "csv-read.h"
#include "tool-run.h"
#include "workload.h"

static BusFixture fixture;

#define PMCOUNT getenv("PMAPI_PMCOUNT")
#define WORKLOAD getenv("PMAPI_TOOL_WORKLOAD")
#define TOUCH getenv("PMAPI_TOUCH_PAGES")

static JsonObject *parse(JsonParser *parser, const char *text) {
        g_autoptr(GError) error = NULL;

        if (!json_parser_load_from_data(parser, text, -1, &error))
                fail_msg("no valid JSON (%s): %s", error->message, text);
        return json_node_get_object(json_parser_get_root(parser));
}

static JsonObject *event_object(JsonObject *doc, guint i) {
        return json_array_get_object_element(json_object_get_array_member(doc, "events"), i);
}

/* perf stat's count of event (the first field of its -x, line) from text, or -1. */
static long long perf_value(const char *text, const char *event) {
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);

        for (char **l = lines; *l; l++)
                if (strstr(*l, event) && **l >= '0' && **l <= '9')
                        return atoll(*l);
        return -1;
}

static bool perf_runs(void) {
        if (system("perf stat -e page-faults true >/dev/null 2>&1") == 0)
                return true;
        print_message("# SKIP: perf stat does not run here\n");
        return false;
}

static void assert_close(long long ours, long long perf, double percent) {
        long long diff = ours > perf ? ours - perf : perf - ours;

        printf("# pmcount %lld, perf stat %lld, difference %lld (%.3f %%)\n", ours, perf, ours - perf,
               100.0 * (double) diff / (double) perf);
        assert_true(perf > 0);
        assert_true((double) diff * 100.0 <= percent * (double) perf);
}

static void test_repeat_is_perf_stat_r(void **state) {
        g_autoptr(JsonParser) parser = json_parser_new();
        const char *const ours[] = { PMCOUNT, "-r", "3", "-e", "PM_PAGE_FLT", "--json", "--", TOUCH, "50000", NULL };
        const char *const text[] = { PMCOUNT, "-r", "3", "-e", "PM_PAGE_FLT", "--", TOUCH, "1000", NULL };
        const char *const perf[] = { "/usr/bin/perf", "stat", "-r", "3", "-x", ",", "-e", "page-faults:u", "--",
                                     TOUCH, "50000", NULL };
        JsonObject *doc, *ev;
        ToolRun r, p;
        double mean, stddev;

        (void) state;
        if (!perf_runs())
                skip();
        tool_run(&r, 0, ours);
        assert_int_equal(r.status, 0);
        doc = parse(parser, r.err);
        assert_int_equal(json_object_get_int_member(doc, "runs"), 3);
        ev = event_object(doc, 0);
        mean = json_object_get_double_member(ev, "mean");
        stddev = json_object_get_double_member(ev, "stddev");
        assert_int_equal(json_object_get_int_member(ev, "count"), (long long) (mean + 0.5));
        assert_true(mean >= 50000 && stddev >= 0 && stddev < mean / 100);
        assert_true(json_object_get_double_member(ev, "variance") - stddev * stddev < 1e-6 * (1 + stddev * stddev));
        tool_run(&p, 0, perf);
        assert_int_equal(p.status, 0);
        assert_close(json_object_get_int_member(ev, "count"), perf_value(p.err, "page-faults"), 0.5);
        tool_run_done(&r);
        tool_run_done(&p);

        /* Text: the runs and each count's variation, as perf prints "( +- 0.12% )". */
        tool_run(&r, 0, text);
        printf("%s", r.err);
        assert_int_equal(r.status, 0);
        assert_non_null(strstr(r.err, "Runs:           3\n"));
        assert_non_null(strstr(r.err, "VARIATION"));
        assert_non_null(strstr(r.err, "+- "));
        tool_run_done(&r);
}

#define STEP_PAGES 2000
#define STEPS 10

/* Software events are never multiplexed: a count that ran all of its enabled time, in CSV (as
 * text: enabled_ns, running_ns, percent_running) and in JSON. An interval in which no thread of
 * the command ran may have been enabled for no time at all (0 of 0: 100 %); the run cannot. */
static void assert_csv_counted_fully(char **row, bool whole_run) {
        long long enabled = atoll(row[g_strv_length(row) - 3]), running = atoll(row[g_strv_length(row) - 2]);

        assert_int_equal(enabled, running);
        assert_true(whole_run ? running > 0 : running >= 0);
        assert_string_equal(row[g_strv_length(row) - 1], "100.00");
}

static void assert_json_counted_fully(JsonObject *event, bool whole_run) {
        assert_int_equal(json_object_get_int_member(event, "enabled_ns"), json_object_get_int_member(event, "running_ns"));
        assert_true(json_object_get_int_member(event, "running_ns") > (whole_run ? 0 : -1));
        assert_true(json_object_get_double_member(event, "percent_running") == 100.0);
        assert_true(json_object_get_boolean_member(event, "counted"));
}

/* CSV rows of -I: "interval" rows, each with a time; they add up to no more than the total, and
 * the total is reached within one step after the last of them: the workload rests 100 ms after
 * each step, two intervals, so a line falls in every rest even when pmcount wakes late. Every
 * row has the time_ns column, then the count's times, filled in the interval and event rows. */
static void test_interval_lines_add_up_to_the_total(void **state) {
        const char *const ours[] = { PMCOUNT, "-I", "50", "-e", "PM_PAGE_FLT", "--csv", "--", WORKLOAD, "steps", "2000",
                                     "10", "100", NULL };
        const char *const json[] = { PMCOUNT, "-I", "50", "-e", "PM_PAGE_FLT", "--json", "--", WORKLOAD, "steps", "100",
                                     "5", "40", NULL };
        const char *const perf[] = { "/usr/bin/perf", "stat", "-x", ",", "-e", "page-faults:u", "--", WORKLOAD, "steps",
                                     "2000", "10", "100", NULL };
        long long sum = 0, total = -1, last_time = 0;
        size_t n_intervals = 0;
        char ***rows;
        ToolRun r, p;

        (void) state;
        tool_run(&r, 0, ours);
        assert_int_equal(r.status, 0);
        rows = csv_read(r.err);
        assert_int_equal(g_strv_length(rows[0]), 12);
        assert_string_equal(rows[0][8], "time_ns");
        assert_string_equal(rows[0][9], "enabled_ns");
        assert_string_equal(rows[0][10], "running_ns");
        assert_string_equal(rows[0][11], "percent_running");
        for (size_t i = 1; rows[i]; i++) {
                assert_int_equal(g_strv_length(rows[i]), 12);
                if (strcmp(rows[i][0], "interval") == 0) {
                        long long t = atoll(rows[i][8]), v = atoll(rows[i][7]);

                        assert_string_equal(rows[i][5], "PM_PAGE_FLT");
                        assert_true(t > last_time && v >= 0);
                        assert_csv_counted_fully(rows[i], false);
                        last_time = t;
                        sum += v;
                        n_intervals++;
                } else if (strcmp(rows[i][0], "event") == 0) {
                        total = atoll(rows[i][7]);
                        assert_csv_counted_fully(rows[i], true);
                } else
                        assert_string_equal(rows[i][9], "");    /* no count, no times */
        }
        csv_read_free(rows);
        printf("# %zu intervals add up to %lld of %lld\n", n_intervals, sum, total);
        assert_true(n_intervals >= 5);
        assert_true(total >= STEP_PAGES * STEPS);
        assert_true(sum <= total && total - sum <= STEP_PAGES + 200);
        if (perf_runs()) {
                tool_run(&p, 0, perf);
                assert_int_equal(p.status, 0);
                assert_close(total, perf_value(p.err, "page-faults"), 1.0);
                tool_run_done(&p);
        }
        tool_run_done(&r);

        /* JSON Lines: every line a document; intervals first, the report last. */
        tool_run(&r, 0, json);
        assert_int_equal(r.status, 0);
        {
                g_auto(GStrv) lines = g_strsplit(r.err, "\n", -1);
                guint n = g_strv_length(lines);

                assert_true(n >= 3 && lines[n - 1][0] == '\0');
                for (guint i = 0; i + 1 < n; i++) {
                        g_autoptr(JsonParser) parser = json_parser_new();
                        JsonObject *o = parse(parser, lines[i]);

                        assert_true(json_object_has_member(o, i + 2 < n ? "interval" : "command"));
                        assert_json_counted_fully(event_object(o, 0), i + 2 == n);
                }
        }
        tool_run_done(&r);
}

typedef struct Paced {
        pid_t pid;
        FILE *in, *out;
} Paced;

static void paced_start(Paced *w) {
        const char *argv[] = { WORKLOAD, "paced", NULL };
        int to[2], from[2];

        assert_int_equal(pipe2(to, O_CLOEXEC), 0);
        assert_int_equal(pipe2(from, O_CLOEXEC), 0);
        w->pid = fork();
        assert_true(w->pid >= 0);
        if (w->pid == 0) {
                if (dup2(to[0], STDIN_FILENO) < 0 || dup2(from[1], STDOUT_FILENO) < 0)
                        _exit(99);
                execv(argv[0], (char **) argv);
                _exit(97);
        }
        close(to[0]);
        close(from[1]);
        w->in = fdopen(to[1], "w");
        w->out = fdopen(from[0], "r");
        setvbuf(w->in, NULL, _IOLBF, 0);
}

/* One step ("30000" or "t30000"), done when the workload says so. */
static void paced_step(Paced *w, const char *step) {
        char line[64];

        fprintf(w->in, "%s\n", step);
        assert_non_null(fgets(line, sizeof(line), w->out));
        assert_string_equal(line, "done\n");
}

static void paced_stop(Paced *w) {
        fclose(w->in);
        fclose(w->out);
        assert_int_equal(waitpid(w->pid, NULL, 0), w->pid);
}

/* pmcount -p/-t (and perf stat -p/-t beside it, when perf_too) attached to the workload, one step,
 * ^C: the count, and perf's in *ret_perf (or -1). Returns pmcount's exit status. */
static int attach_step(Paced *w, const char *option, const char *step, bool perf_too, long long *ret_ours,
                       long long *ret_perf) {
        g_autoptr(JsonParser) parser = json_parser_new();
        char id[16];
        ToolRun r, p;
        JsonObject *doc;
        int perf_fds = 0, status;

        snprintf(id, sizeof(id), "%d", (int) w->pid);
        tool_run_start(&r, 0, -1, (const char *const[]) { PMCOUNT, option, id, "-e", "PM_PAGE_FLT", "--json", NULL });
        assert_int_equal(wait_for_context_count(1, 5000), 0);
        if (perf_too) {
                tool_run_start(&p, 0, -1, (const char *const[]) { "/usr/bin/perf", "stat", "-x", ",", "-e",
                                                                  "page-faults:u", option, id, NULL });
                for (int i = 0; i < 500 && (perf_fds = perf_fds_of(p.pid, NULL, 0)) < 1; i++)
                        usleep(10000);
                assert_true(perf_fds >= 1);
                usleep(50000);          /* perf opens, then enables */
        }
        paced_step(w, step);
        assert_int_equal(kill(r.pid, SIGINT), 0);
        tool_run_wait(&r);
        printf("%s", r.err);
        status = r.status;
        doc = parse(parser, r.err);
        assert_true(json_object_get_null_member(doc, "command"));
        assert_int_equal(json_object_get_int_member(json_object_get_object_member(doc, "target"), "pid"), w->pid);
        assert_int_equal(json_object_get_boolean_member(doc, "partial"), status == 124);
        *ret_ours = json_object_get_int_member(event_object(doc, 0), "count");
        assert_json_counted_fully(event_object(doc, 0), true);  /* pm_get_Tdata_group's times */
        *ret_perf = -1;
        if (perf_too) {
                assert_int_equal(kill(p.pid, SIGINT), 0);
                tool_run_wait(&p);
                *ret_perf = perf_value(p.err, "page-faults");
                printf("# %s %s: pmcount %lld, perf stat %lld\n", option, step, *ret_ours, *ret_perf);
                tool_run_done(&p);
        }
        tool_run_done(&r);
        /* Nothing left in pmapid once pmcount is done. */
        assert_int_equal(wait_for_context_count(0, 2000), 0);
        return status;
}

/* A running workload counted by pmcount -p/-t and perf stat -p/-t at once, from the moment both are
 * attached until ^C: both see exactly the pages its main thread touches meanwhile. A thread it
 * creates meanwhile is counted too, attached by pmapid from its fork record a few tens of
 * microseconds after it starts (pmcount(1)): what it does before is not counted, or all of it if
 * it ended before, and then pmcount says the count is partial. */
static void attach_case(const char *option) {
        long long ours, theirs;
        Paced w;
        int status;
        bool perf = perf_runs();

        paced_start(&w);
        paced_step(&w, "t100");         /* warm: the thread machinery is in place before counting */
        paced_step(&w, "100");
        status = attach_step(&w, option, "30000", perf, &ours, &theirs);
        assert_int_equal(status, 0);
        assert_in_range(ours, 30000, 30000 + 8);
        if (perf)
                assert_int_equal(ours, theirs);
        status = attach_step(&w, option, "t30000", false, &ours, &theirs);
        printf("# %s, a new thread's 30,000 pages: %lld counted (exit %d)\n", option, ours, status);
        assert_true(status == 124 || (status == 0 && ours >= 27000 && ours <= 30000 + 64));
        paced_stop(&w);
}

static void test_attach_to_a_process(void **state) {
        (void) state;
        attach_case("-p");
}

static void test_attach_to_a_thread(void **state) {
        (void) state;
        attach_case("-t");
}

/* A target that exits ends the count by itself: the count is whole (exit 0) or the report says
 * the last read stands (exit 124), and either way it has what the target did before it exited. */
static void test_attach_ends_with_the_target(void **state) {
        g_autoptr(JsonParser) parser = json_parser_new();
        const char *const workload[] = { WORKLOAD, "steps", "20000", "1", "500", NULL };
        char id[16];
        ToolRun w, r;
        JsonObject *doc;

        (void) state;
        tool_run_start(&w, 0, -1, workload);
        snprintf(id, sizeof(id), "%d", (int) w.pid);
        tool_run_start(&r, 0, -1, (const char *const[]) { PMCOUNT, "-p", id, "-e", "PM_PAGE_FLT", "--json", NULL });
        tool_run_wait(&w);
        assert_int_equal(w.status, 0);
        tool_run_wait(&r);
        printf("# pmcount -> %d: %s", r.status, r.err);
        assert_true(r.status == 0 || r.status == 124);
        doc = parse(parser, r.err);
        assert_int_equal(json_object_get_boolean_member(doc, "partial"), r.status == 124);
        assert_int_equal(json_object_get_boolean_member(json_object_get_object_member(doc, "target"), "exited"),
                         r.status == 124);
        /* pmcount may attach while the pages are touched: at most all of them. */
        assert_in_range(json_object_get_int_member(event_object(doc, 0), "count"), 0, 20000 + 64);
        tool_run_done(&w);
        tool_run_done(&r);
        assert_int_equal(wait_for_context_count(0, 2000), 0);
}

/* The names pmlist shows work as events: short, long, any case. */
static void test_long_event_names(void **state) {
        g_autoptr(JsonParser) parser = json_parser_new();
        const char *const argv[] = { PMCOUNT, "-e", "perf::PAGE-FAULTS,perf::task-clock,pm_minor_flt", "--json", "--",
                                     TOUCH, "1000", NULL };
        JsonObject *doc;
        ToolRun r;

        (void) state;
        tool_run(&r, 0, argv);
        assert_int_equal(r.status, 0);
        doc = parse(parser, r.err);
        assert_string_equal(json_object_get_string_member(event_object(doc, 0), "name"), "PM_PAGE_FLT");
        assert_true(json_object_get_int_member(event_object(doc, 0), "count") >= 1000);
        assert_string_equal(json_object_get_string_member(event_object(doc, 1), "name"), "PM_TASK_CLOCK");
        assert_string_equal(json_object_get_string_member(event_object(doc, 2), "name"), "PM_MINOR_FLT");
        tool_run_done(&r);
        tool_run(&r, 0, (const char *const[]) { PMCOUNT, "-e", "perf::NO-SUCH", "--", "/bin/true", NULL });
        assert_int_equal(r.status, 125);
        assert_non_null(strstr(r.err, "unknown event 'perf::NO-SUCH' for counter 0 ('pmlist -c 0' lists"));
        tool_run_done(&r);
}

static void check_mode(const char *const *argv, bool user, bool kernel) {
        g_autoptr(JsonParser) parser = json_parser_new();
        JsonObject *mode;
        ToolRun r;

        tool_run(&r, 0, argv);
        assert_int_equal(r.status, 0);
        mode = json_object_get_object_member(parse(parser, r.err), "mode");
        assert_int_equal(json_object_get_boolean_member(mode, "user"), user);
        assert_int_equal(json_object_get_boolean_member(mode, "kernel"), kernel);
        tool_run_done(&r);
}

/* -u, -k and --mode as every tool takes them (pmapi-tools(7)); -x and --no-big-num. */
static void test_mode_and_format_options(void **state) {
        ToolRun r;

        (void) state;
        check_mode((const char *const[]) { PMCOUNT, "--json", "--", "/bin/true", NULL }, true, false);
        check_mode((const char *const[]) { PMCOUNT, "-k", "--json", "--", "/bin/true", NULL }, true, true);
        check_mode((const char *const[]) { PMCOUNT, "-u", "-k", "--json", "--", "/bin/true", NULL }, true, true);
        check_mode((const char *const[]) { PMCOUNT, "--mode=kernel", "--json", "--", "/bin/true", NULL }, false, true);
        tool_run(&r, 0, (const char *const[]) { PMCOUNT, "--mode", "user", "-k", "--", "/bin/true", NULL });
        assert_int_equal(r.status, 125);
        assert_non_null(strstr(r.err, "--mode and -u/-k exclude each other"));
        tool_run_done(&r);
        tool_run(&r, 0, (const char *const[]) { PMCOUNT, "-t", "1", "--", "/bin/true", NULL });
        assert_int_equal(r.status, 125);
        tool_run_done(&r);

        tool_run(&r, 0, (const char *const[]) { PMCOUNT, "-x", ";", "-e", "PM_PAGE_FLT", "--", TOUCH, "3000", NULL });
        assert_int_equal(r.status, 0);
        assert_true(g_str_has_prefix(r.err, "record;pid;tid;comm;state;name;status;value;enabled_ns;running_ns;"
                                            "percent_running\n"));
        assert_non_null(strstr(r.err, "\nevent;;;;;PM_PAGE_FLT;verified;"));
        tool_run_done(&r);
        tool_run(&r, 0, (const char *const[]) { PMCOUNT, "--no-big-num", "-e", "PM_PAGE_FLT", "--", TOUCH, "3000", NULL });
        assert_int_equal(r.status, 0);
        assert_non_null(strstr(r.err, "PM_PAGE_FLT"));
        assert_null(strstr(r.err, "3,0"));      /* 30xx faults, written without a separator */
        tool_run_done(&r);
}

static int setup(void **state) {
        (void) state;
        return bus_fixture_start(&fixture, NULL);
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_repeat_is_perf_stat_r),
                cmocka_unit_test(test_interval_lines_add_up_to_the_total),
                cmocka_unit_test(test_attach_to_a_process),
                cmocka_unit_test(test_attach_to_a_thread),
                cmocka_unit_test(test_attach_ends_with_the_target),
                cmocka_unit_test(test_long_event_names),
                cmocka_unit_test(test_mode_and_format_options),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
