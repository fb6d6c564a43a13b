/* test-pmcount-metrics.c: the derived metrics (-m) of pmcount and pmstat against a real pmapid, on
 * a workload whose page faults and CPU time are known: this program run again as "spin PAGES MS"
 * touches PAGES fresh pages, then spins on one thread until the process has used MS milliseconds
 * of CPU. pmcount's JSON: page_faults_per_s is the page faults over the elapsed time and
 * cpu_utilization the task clock over it, exactly as computed from the same document's own
 * numbers (to 1e-6), and cpu_utilization is that of one thread (at most 1.05) whose task clock
 * holds the spin, over an elapsed time within the run the test saw; a metric whose
 * event was not counted is absent, and without -m there are no metrics at all. The text has the
 * "CPUs utilized" metric line, the CSV metric rows with the same values; with -I, each interval's
 * metrics are its own counts over its own length, and the lines hold the spin as it ran. pmstat
 * --proctree -m: each interval's and the run's metrics are its total over its duration, in JSON,
 * text and CSV (the metric columns filled in the total rows alone). How much of a CPU the spin got
 * is the machine's load, not the tools': no check assumes a CPU to spare. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-glib/json-glib.h>

#include "bus-fixture.h"
#include "csv-read.h"
#include "macro.h"
#include "pmstat-run.h"
#include "tool-run.h"
#include "workload.h"

#define PMCOUNT getenv("PMAPI_PMCOUNT")
#define PMSTAT getenv("PMAPI_PMSTAT")
#define PAGES 20000
/* Loading this program (libpmapi, libsystemd, glib, json-glib, cmocka) faults in a few thousand
 * pages of its own before it touches PAGES. */
#define LOAD_SLACK 5000
/* The task clock holds the spin's MS milliseconds (the kernel's clock of the process), less what
 * pmcount's child ran before its counting began: far less than this. */
#define START_SLACK_NS 10000000LL

static BusFixture fixture;
static char self[4096];                 /* this program, the workload */

/* The workload: PAGES fresh pages, then a spin until the process has had ms of CPU. */
static int spin(long pages, long ms) {
        struct timespec t;

        if (touch_fresh_pages((size_t) pages) < 0)
                return 1;
        do
                if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) < 0)
                        return 1;
        while (t.tv_sec * 1000L + t.tv_nsec / 1000000L < ms);
        return 0;
}

static long long now_ns(void) {
        struct timespec t;

        assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &t), 0);
        return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* got is want to 1e-6, relative (a zero exactly). */
static void assert_close(double got, double want) {
        if (!(fabs(got - want) <= 1e-6 * fabs(want)))
                fail_msg("metric %.17g, expected %.17g from the counts", got, want);
}

/* The metric of this name in a "metrics" array, or NULL. */
static JsonObject *metric(JsonArray *metrics, const char *name) {
        for (guint i = 0; i < json_array_get_length(metrics); i++) {
                JsonObject *m = json_array_get_object_element(metrics, i);

                if (strcmp(json_object_get_string_member(m, "name"), name) == 0)
                        return m;
        }
        return NULL;
}

static double metric_value(JsonArray *metrics, const char *name) {
        JsonObject *m = metric(metrics, name);

        assert_non_null(m);
        assert_false(json_object_get_null_member(m, "value"));
        return json_object_get_double_member(m, "value");
}

/* The count of the event named name in pmcount's "events" array. */
static long long event_count(JsonArray *events, const char *name) {
        for (guint i = 0; i < json_array_get_length(events); i++) {
                JsonObject *e = json_array_get_object_element(events, i);

                if (strcmp(json_object_get_string_member(e, "name"), name) == 0)
                        return json_object_get_int_member(e, "count");
        }
        fail_msg("no event %s", name);
        return -1;
}

static void test_pmcount_json_metrics_are_the_counts_over_the_elapsed_time(void **state) {
        g_autoptr(JsonNode) root = NULL;
        _cleanup_(tool_run_done) ToolRun run = {};
        JsonArray *events, *metrics;
        JsonObject *doc, *m;
        long long clock, faults, elapsed, wall = now_ns();
        double cpus;

        (void) state;
        tool_runf(&run, 0, NULL, PMCOUNT, "-m --json -e PM_TASK_CLOCK,PM_PAGE_FLT -- %s spin %d 300", self, PAGES);
        wall = now_ns() - wall;
        assert_int_equal(run.status, 0);
        root = parse_json(run.err);
        doc = json_node_get_object(root);
        events = json_object_get_array_member(doc, "events");
        metrics = json_object_get_array_member(doc, "metrics");
        clock = event_count(events, "PM_TASK_CLOCK");
        faults = event_count(events, "PM_PAGE_FLT");
        elapsed = json_object_get_int_member(doc, "elapsed_ns");
        cpus = metric_value(metrics, "cpu_utilization");
        printf("# %lld ns task clock, %lld page faults in %lld ns: %.4f CPUs utilized, %.1f faults/s\n", clock,
               faults, elapsed, cpus, metric_value(metrics, "page_faults_per_s"));
        assert_in_range(faults, PAGES, PAGES + LOAD_SLACK);
        assert_true(clock >= 300000000LL - START_SLACK_NS);
        /* Both metrics whose events were counted, in pmapid's order; no other. */
        assert_int_equal(json_array_get_length(metrics), 2);
        m = json_array_get_object_element(metrics, 0);
        assert_string_equal(json_object_get_string_member(m, "name"), "cpu_utilization");
        assert_string_equal(json_object_get_string_member(m, "unit"), "CPUs utilized");
        assert_true(strlen(json_object_get_string_member(m, "description")) > 0);
        m = json_array_get_object_element(metrics, 1);
        assert_string_equal(json_object_get_string_member(m, "name"), "page_faults_per_s");
        assert_string_equal(json_object_get_string_member(m, "unit"), "faults/s");
        assert_close(metric_value(metrics, "page_faults_per_s"), (double) faults / ((double) elapsed / 1e9));
        assert_close(cpus, (double) clock / (double) elapsed);
        assert_true(cpus <= 1.05);                              /* one thread */
        assert_true(elapsed > 0 && elapsed <= wall);
}

static void test_pmcount_metric_needs_its_events_counted(void **state) {
        g_autoptr(JsonNode) root = NULL, plain = NULL;
        _cleanup_(tool_run_done) ToolRun run = {};
        JsonArray *metrics;
        JsonObject *doc;

        (void) state;
        tool_runf(&run, 0, NULL, PMCOUNT, "-m --json -e PM_PAGE_FLT -- %s spin 1000 50", self);
        assert_int_equal(run.status, 0);
        root = parse_json(run.err);
        doc = json_node_get_object(root);
        metrics = json_object_get_array_member(doc, "metrics");
        assert_int_equal(json_array_get_length(metrics), 1);
        assert_null(metric(metrics, "cpu_utilization"));       /* PM_TASK_CLOCK was not counted */
        assert_close(metric_value(metrics, "page_faults_per_s"),
                     (double) event_count(json_object_get_array_member(doc, "events"), "PM_PAGE_FLT") /
                     ((double) json_object_get_int_member(doc, "elapsed_ns") / 1e9));
        /* Without -m, no metrics. */
        tool_runf(&run, 0, NULL, PMCOUNT, "--json -e PM_TASK_CLOCK,PM_PAGE_FLT -- %s spin 10 10", self);
        assert_int_equal(run.status, 0);
        plain = parse_json(run.err);
        assert_false(json_object_has_member(json_node_get_object(plain), "metrics"));
        /* Events that no metric combines: none, and the text says so. */
        tool_runf(&run, 0, NULL, PMCOUNT, "-m -e PM_MINOR_FLT -- %s spin 10 10", self);
        assert_int_equal(run.status, 0);
        assert_non_null(strstr(run.err, "\nMetrics: none"));
        assert_null(strstr(run.err, "cpu_utilization"));
}

static void test_pmcount_text_and_csv_show_the_metrics(void **state) {
        _cleanup_(tool_run_done) ToolRun run = {};
        double cpus = -1, faults_per_s = -1, csv_faults = -1, seconds = -1;
        long long faults = -1, elapsed = -1, clock = -1, wall = now_ns();
        g_auto(GStrv) lines = NULL;
        char ***rows;

        (void) state;
        tool_runf(&run, 0, NULL, PMCOUNT, "-m -e PM_TASK_CLOCK,PM_PAGE_FLT -- %s spin 1000 250", self);
        wall = now_ns() - wall;
        assert_int_equal(run.status, 0);
        printf("%s", run.err);
        lines = g_strsplit(squeeze_spaces(run.err), "\n", -1);
        /* perf stat's shadow metric lines: "0.98 CPUs utilized cpu_utilization", after the counts. */
        for (char **l = lines; *l; l++) {
                if (g_str_has_suffix(*l, " CPUs utilized cpu_utilization"))
                        assert_int_equal(sscanf(*l, "%lf", &cpus), 1);
                if (g_str_has_suffix(*l, " faults/s page_faults_per_s"))
                        assert_int_equal(sscanf(*l, "%lf", &faults_per_s), 1);
                if (sscanf(*l, "Elapsed time: %lf s", &seconds) == 1)
                        continue;
                if (strstr(*l, " PM_TASK_CLOCK verified ")) {
                        g_autofree char *digits = g_strndup(*l, strcspn(*l, " "));

                        clock = 0;
                        for (const char *d = digits; *d; d++)
                                if (*d != ',')
                                        clock = clock * 10 + (*d - '0');
                }
        }
        assert_non_null(strstr(run.err, "\nMetrics:\n"));
        assert_true(strstr(run.err, "\nMetrics:\n") > strstr(run.err, "PM_PAGE_FLT"));
        /* The line's two decimals are the count over the elapsed time the report shows (to the
         * microsecond), which lies within the run the test saw; one thread, holding its spin. */
        assert_true(clock >= 250000000LL - START_SLACK_NS);
        assert_true(seconds > 0 && seconds * 1e9 <= (double) wall + 1000);
        assert_true(fabs(cpus - (double) clock / (seconds * 1e9)) <= 0.005 + 1e-6);
        assert_true(cpus <= 1.05);
        assert_true(faults_per_s > 0);

        tool_runf(&run, 0, NULL, PMCOUNT, "-m --csv -e PM_TASK_CLOCK,PM_PAGE_FLT -- %s spin 1000 50", self);
        assert_int_equal(run.status, 0);
        rows = csv_read(run.err);
        for (char ***r = rows + 1; *r; r++) {
                char **f = *r;

                assert_int_equal(g_strv_length(f), 11);
                if (strcmp(f[0], "command") == 0 && strcmp(f[5], "elapsed_ns") == 0)
                        elapsed = atoll(f[7]);
                else if (strcmp(f[0], "event") == 0 && strcmp(f[5], "PM_PAGE_FLT") == 0)
                        faults = atoll(f[7]);
                else if (strcmp(f[0], "metric") == 0 && strcmp(f[5], "page_faults_per_s") == 0) {
                        assert_string_equal(f[6], "faults/s");          /* the unit in the status column */
                        assert_string_equal(f[8], "");                  /* no times */
                        csv_faults = g_ascii_strtod(f[7], NULL);
                } else if (strcmp(f[0], "metric") == 0)
                        assert_string_equal(f[5], "cpu_utilization");
        }
        csv_read_free(rows);
        assert_true(faults > 0 && elapsed > 0);
        assert_close(csv_faults, (double) faults / ((double) elapsed / 1e9));
}

/* -I: each line's metrics are its own counts over its own length (the time since the line before).
 * One line may hold a little more than its length of task clock (pmcount takes the time just before
 * it reads), so only all of them together are bounded by one CPU. The lines hold the spin as it ran:
 * the report's total less their sum is what ran after the last line, no longer than the wall
 * clock from there to the end (how much of a CPU the spin got meanwhile is the machine's load). */
static void test_pmcount_interval_metrics_are_each_intervals_own(void **state) {
        _cleanup_(tool_run_done) ToolRun run = {};
        g_auto(GStrv) lines = NULL;
        long long last = 0, clock = 0, total = -1, elapsed = -1;
        double busiest = 0;
        int n = 0;

        (void) state;
        tool_runf(&run, 0, NULL, PMCOUNT, "-m --json -I 100 -e PM_TASK_CLOCK,PM_PAGE_FLT -- %s spin %d 400", self,
                  PAGES);
        assert_int_equal(run.status, 0);
        lines = g_strsplit(run.err, "\n", -1);
        for (char **l = lines; *l && **l; l++) {
                g_autoptr(JsonNode) root = parse_json(*l);
                JsonObject *doc = json_node_get_object(root);
                JsonArray *events = json_object_get_array_member(doc, "events"), *metrics;
                long long time, length;
                double cpus;

                if (!json_object_has_member(doc, "interval")) {
                        total = event_count(events, "PM_TASK_CLOCK");   /* the report, the last line */
                        elapsed = json_object_get_int_member(doc, "elapsed_ns");
                        continue;
                }
                n++;
                time = json_object_get_int_member(doc, "time_ns");
                length = time - last;
                last = time;
                assert_true(length > 0);
                metrics = json_object_get_array_member(doc, "metrics");
                assert_int_equal(json_array_get_length(metrics), 2);
                cpus = metric_value(metrics, "cpu_utilization");
                assert_close(cpus, (double) event_count(events, "PM_TASK_CLOCK") / (double) length);
                assert_close(metric_value(metrics, "page_faults_per_s"),
                             (double) event_count(events, "PM_PAGE_FLT") / ((double) length / 1e9));
                if (cpus > busiest)
                        busiest = cpus;
                clock += event_count(events, "PM_TASK_CLOCK");
        }
        printf("# %d intervals, the busiest %.3f CPUs utilized, all of them %.3f; task clock %lld ns in the "
               "lines, %lld in all, %lld ns of the run after the last line\n", n, busiest,
               (double) clock / (double) last, clock, total, elapsed - last);
        assert_true(n >= 3);
        assert_true(total >= 400000000LL - START_SLACK_NS);
        /* Lines never run ahead of the total, nor lag it by more than the run after the last line:
         * a member that keeps its CPU is read as of each line (pmapid(8), the fold). */
        assert_true(total >= clock);
        assert_true(total - clock <= elapsed - last);
        assert_true((double) clock / (double) last <= 1.05);
}

/* A pmstat block's metrics: its total over its duration. Returns cpu_utilization. */
static double check_block_metrics(JsonObject *block) {
        JsonObject *total = json_object_get_object_member(block, "total");
        JsonArray *metrics = json_object_get_array_member(block, "metrics");
        double duration = (double) json_object_get_int_member(block, "duration_ns"), cpus;

        assert_true(duration > 0);
        assert_int_equal(json_array_get_length(metrics), 2);
        cpus = metric_value(metrics, "cpu_utilization");
        assert_close(cpus, (double) json_object_get_int_member(total, "PM_TASK_CLOCK") / duration);
        assert_close(metric_value(metrics, "page_faults_per_s"),
                     (double) json_object_get_int_member(total, "PM_PAGE_FLT") / (duration / 1e9));
        return cpus;
}

static void test_pmstat_interval_metrics_are_their_totals_over_their_length(void **state) {
        _cleanup_(tool_run_done) ToolRun run = {};
        g_autoptr(JsonNode) root = NULL;
        JsonArray *intervals;
        JsonObject *doc, *end;
        long long on_cpu, others, wall = now_ns();
        double cpus;

        (void) state;
        tool_runf(&run, 0, NULL, PMSTAT, "-m --json --proctree -I 100 -e PM_TASK_CLOCK,PM_PAGE_FLT -- %s spin %d 300",
                  self, PAGES);
        wall = now_ns() - wall;
        assert_int_equal(run.status, 0);
        root = pmstat_parse_json(run.err);
        doc = json_node_get_object(root);
        intervals = json_object_get_array_member(doc, "intervals");
        assert_true(json_array_get_length(intervals) >= 3);
        pmstat_check_intervals(intervals, "PM_PAGE_FLT", 0, &on_cpu, &others);
        for (guint i = 0; i < json_array_get_length(intervals); i++)
                (void) check_block_metrics(json_array_get_object_element(intervals, i));
        end = json_object_get_object_member(doc, "run");
        assert_non_null(end);
        cpus = check_block_metrics(end);
        printf("# pmstat --proctree: %u intervals, the run %.3f CPUs utilized, %" G_GINT64_FORMAT " page faults\n",
               json_array_get_length(intervals), cpus,
               json_object_get_int_member(json_object_get_object_member(end, "total"), "PM_PAGE_FLT"));
        /* One busy thread, and pmstat, which is in the tree too and reads every CPU each interval; the
         * run holds the spin, within the run the test saw. */
        assert_true(cpus <= 1.1);
        assert_true(json_object_get_int_member(json_object_get_object_member(end, "total"), "PM_TASK_CLOCK") >=
                    300000000LL - START_SLACK_NS);
        assert_true(json_object_get_int_member(end, "duration_ns") <= wall);
        assert_in_range(json_object_get_int_member(json_object_get_object_member(end, "total"), "PM_PAGE_FLT"),
                        PAGES, PAGES + LOAD_SLACK);
}

/* Text: metric lines after each total row. CSV: a column per metric the events allow, after the
 * times, filled in the total rows alone; none for a metric whose event was not counted. */
static void test_pmstat_text_and_csv_show_the_metrics(void **state) {
        _cleanup_(tool_run_done) ToolRun run = {};
        g_auto(GStrv) lines = NULL;
        size_t n_totals = 0, n_lines = 0;
        char ***rows;

        (void) state;
        tool_runf(&run, 0, NULL, PMSTAT, "-m --proctree -I 100 -e PM_TASK_CLOCK,PM_PAGE_FLT -- %s spin 100 150",
                  self);
        assert_int_equal(run.status, 0);
        printf("%s", run.err);
        lines = g_strsplit(squeeze_spaces(run.err), "\n", -1);
        for (char **l = lines; *l; l++) {
                double v;

                if (!g_str_has_prefix(*l, "total "))
                        continue;
                n_totals++;
                assert_true(l[1] && l[2]);
                assert_true(g_str_has_suffix(l[1], " CPUs utilized cpu_utilization"));
                assert_int_equal(sscanf(l[1], "%lf", &v), 1);
                assert_true(v >= 0);
                assert_true(g_str_has_suffix(l[2], " faults/s page_faults_per_s"));
                n_lines++;
        }
        assert_true(n_totals >= 2);                     /* the intervals and the run */
        assert_int_equal(n_lines, n_totals);

        tool_runf(&run, 0, NULL, PMSTAT, "-m --csv --proctree -I 100 -e PM_PAGE_FLT -- %s spin 100 150", self);
        assert_int_equal(run.status, 0);
        rows = csv_read(run.err);
        assert_int_equal(g_strv_length(rows[0]), 9);
        assert_string_equal(rows[0][7], "percent_running");
        assert_string_equal(rows[0][8], "page_faults_per_s");  /* no cpu_utilization: no task clock */
        for (char ***r = rows + 1; *r; r++) {
                assert_int_equal(g_strv_length(*r), 9);
                if (strcmp((*r)[2], "total") != 0)
                        assert_string_equal((*r)[8], "");
                else if (strcmp((*r)[0], "run") == 0)
                        /* 100 pages and more in the run's seconds (rounded to ms). */
                        assert_true(fabs(g_ascii_strtod((*r)[8], NULL) - atof((*r)[4]) / atof((*r)[1])) <=
                                    0.01 * atof((*r)[4]) / atof((*r)[1]));
                else
                        assert_true(g_ascii_strtod((*r)[8], NULL) >= 0);
        }
        csv_read_free(rows);
}

static int setup(void **state) {
        static const char *const shared[] = { "PMAPI_PMCOUNT", "PMAPI_PMSTAT", "PMAPI_PRELOAD", NULL };
        ssize_t n;

        (void) state;
        n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        if (n <= 0)
                return -1;
        self[n] = '\0';
        if (bus_fixture_start(&fixture, NULL) != 0)
                return -1;
        return bus_fixture_share_programs(&fixture, shared);
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(int argc, char *argv[]) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_pmcount_json_metrics_are_the_counts_over_the_elapsed_time),
                cmocka_unit_test(test_pmcount_metric_needs_its_events_counted),
                cmocka_unit_test(test_pmcount_text_and_csv_show_the_metrics),
                cmocka_unit_test(test_pmcount_interval_metrics_are_each_intervals_own),
                cmocka_unit_test(test_pmstat_interval_metrics_are_their_totals_over_their_length),
                cmocka_unit_test(test_pmstat_text_and_csv_show_the_metrics),
        };

        if (argc == 4 && strcmp(argv[1], "spin") == 0)
                return spin(atol(argv[2]), atol(argv[3]));
        return cmocka_run_group_tests(tests, setup, teardown);
}
