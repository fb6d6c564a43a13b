/* test-cgroup-tools.c: pmstat --cgroup and pmcount --cgroup as binaries against a real pmapid, on
 * cgroups the test makes under the cgroup v2 mount (cgroup-tree.c) with workers in them that touch
 * known numbers of pages. pmstat's CPU rows, summed over the intervals, are exactly the pages touched
 * in the cgroup and its descendants while a busier worker beside it counts nothing; pmcount counts
 * exactly what the cgroup did while COMMAND ran, COMMAND being the gate that lets the worker touch
 * (fifo-gate.c), passes COMMAND's status on, and its -I lines add up to the report. A cgroup removed
 * while counted ends pmstat with a note and exit 0, and pmcount's report says so. Paths that are no
 * cgroup, options that exclude each other, and nobody on a cgroup not delegated to it are refused
 * with pm_error's text and the documented statuses; nobody counts its own delegated cgroup. Skips
 * only where cgroup v2 is not mounted or not writable. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-glib/json-glib.h>

#include "bus-fixture.h"
#include "cgroup-tree.h"
#include "csv-read.h"
#include "fifo-gate.h"
#include "pmapi.h"
#include "tool-run.h"

#define NOBODY 65534
#define INSIDE 2000                     /* pages touched in the counted cgroup */
#define INNER 700                       /* in a cgroup below it */
#define OUTSIDE (5 * INSIDE)            /* beside it, or after it was removed: never counted */

#define PMSTAT getenv("PMAPI_PMSTAT")
#define PMCOUNT getenv("PMAPI_PMCOUNT")
#define ARGV(...) ((const char *const[]) { __VA_ARGS__, NULL })

static BusFixture fixture;

static void sleep_ms(long ms) {
        (void) nanosleep(&(struct timespec) { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L }, NULL);
}

/* Waits until the tool has written something on fd: the report's beginning, which it writes once
 * the cgroup's program is set and counting. */
static void wait_for_output(const ToolRun *r, int fd) {
        struct stat st;

        for (int i = 0; i < 10000; i++) {
                assert_int_equal(fstat(fd, &st), 0);
                if (st.st_size > 0)
                        return;
                sleep_ms(1);
        }
        (void) kill(r->pid, SIGKILL);
        fail_msg("the tool wrote nothing within 10 s");
}

/* What the tool has written on fd so far. */
static char *peek(int fd) {
        struct stat st;
        char *buf;
        ssize_t n;

        assert_int_equal(fstat(fd, &st), 0);
        buf = calloc(1, (size_t) st.st_size + 1);
        assert_non_null(buf);
        n = pread(fd, buf, (size_t) st.st_size, 0);
        assert_true(n >= 0);
        buf[n] = '\0';
        return buf;
}

/* Starts argv, then waits for its COMMAND inside the gate: pmcount counts by then. */
static void start_gated(ToolRun *r, uid_t uid, FifoGate *g, const char *const *argv) {
        tool_run_start(r, uid, -1, argv);
        if (!fifo_gate_wait(g, 10000)) {
                (void) kill(r->pid, SIGKILL);
                tool_run_wait(r);
                fail_msg("COMMAND did not start within 10 s: %s", r->err);
        }
}

/* A worker as uid in the test's cgroup rel. */
static void worker_in(Worker *w, uid_t uid, const char *rel) {
        assert_int_equal(worker_start(w, uid), 0);
        assert_int_equal(cgroup_tree_move(rel, w->pid), 0);
}

/* The count of event in pmcount's text report (--no-big-num): the first word of its row. */
static long long text_count(const char *report, const char *event) {
        g_autofree char *needle = g_strdup_printf(" %s ", event);
        const char *p = strstr(report, needle);

        assert_non_null(p);
        while (p > report && p[-1] != '\n')
                p--;
        return atoll(p);
}

/* The count of the first event of pmcount's JSON report. */
static long long json_count(JsonObject *doc) {
        JsonArray *events = json_object_get_array_member(doc, "events");

        return json_object_get_int_member(json_array_get_object_element(events, 0), "count");
}

/* pmstat's CSV: every row names the cgroup; each interval's total row is the sum of its CPU rows.
 * Returns the sum of the CPU rows over the intervals, and the number of intervals. */
static long long csv_interval_sum(const char *text, const char *path, uint64_t id, size_t *ret_n) {
        g_autofree char *id_text = g_strdup_printf("%llu", (unsigned long long) id);
        char ***rows = csv_read(text);
        long long sum = 0, block = 0;
        size_t n = 0;

        assert_non_null(rows[0]);
        assert_int_equal(g_strv_length(rows[0]), 10);
        assert_string_equal(rows[0][4], "cgroup");
        assert_string_equal(rows[0][5], "cgroup_id");
        assert_string_equal(rows[0][6], "PM_PAGE_FLT");
        assert_string_equal(rows[0][9], "percent_running");
        for (char ***r = rows + 1; *r; r++) {
                char **f = *r;

                assert_int_equal(g_strv_length(f), 10);
                assert_string_equal(f[7], f[8]);                /* enabled_ns, running_ns: never multiplexed */
                assert_string_equal(f[0], "interval");
                assert_string_equal(f[4], path);
                assert_string_equal(f[5], id_text);
                if (strcmp(f[2], "total") == 0) {
                        assert_int_equal(atoll(f[6]), block);
                        sum += block;
                        block = 0;
                        n++;
                } else
                        block += atoll(f[6]);
        }
        assert_int_equal(block, 0);             /* every block ends with its total row */
        csv_read_free(rows);
        *ret_n = n;
        return sum;
}

/* Counting from its first line until SIGINT, pmstat sees every page touched in the cgroup and in
 * the one below it in between, and none of the five times as many touched beside it. */
static void test_pmstat_counts_exactly_the_cgroup_and_below(void **state) {
        g_autofree char *path = NULL;
        Worker inside, inner, outside;
        long long sum;
        uint64_t id;
        size_t n;
        ToolRun r;

        (void) state;
        assert_int_equal(cgroup_tree_make("stat"), 0);
        assert_int_equal(cgroup_tree_make("stat/inner"), 0);
        assert_int_equal(cgroup_tree_make("stat-beside"), 0);
        worker_in(&inside, 0, "stat");
        worker_in(&inner, 0, "stat/inner");
        worker_in(&outside, 0, "stat-beside");
        path = g_strdup(cgroup_tree_path("stat"));
        id = cgroup_tree_id("stat");

        /* Named under the mount point, as a user may name it too. */
        tool_run_start(&r, 0, -1, ARGV(PMSTAT, "--cgroup", cgroup_tree_fs_path("stat"), "-u", "-e",
                                       "PM_PAGE_FLT", "--csv", "-I", "100", "0"));
        wait_for_output(&r, r.out_fd);
        assert_int_equal(worker_touch(&inside, INSIDE), 0);
        assert_int_equal(worker_touch(&outside, OUTSIDE), 0);
        assert_int_equal(worker_touch(&inner, INNER), 0);
        assert_int_equal(kill(r.pid, SIGINT), 0);       /* its last read comes after every touch */
        tool_run_wait(&r);
        assert_int_equal(r.status, 0);
        assert_string_equal(r.err, "");
        sum = csv_interval_sum(r.out, path, id, &n);
        printf("# pmstat --cgroup %s: %lld page faults in %zu intervals, for %d + %d pages inside, %d "
               "beside\n", path, sum, n, INSIDE, INNER, OUTSIDE);
        assert_true(n >= 1);
        assert_int_equal(sum, INSIDE + INNER);
        tool_run_done(&r);

        worker_stop(&inside);
        worker_stop(&inner);
        worker_stop(&outside);
        assert_int_equal(cgroup_tree_remove("stat/inner"), 0);
        assert_int_equal(cgroup_tree_remove("stat"), 0);
        assert_int_equal(cgroup_tree_remove("stat-beside"), 0);
}

/* pmcount -I's JSON Lines: the sum of the interval lines so far; whether the report came. */
static long long interval_lines_sum(const char *text, bool *ret_report) {
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
        long long sum = 0;

        *ret_report = false;
        /* The last piece follows the last line end: empty, or a line still being written. */
        for (char **l = lines; *l && l[1]; l++) {
                g_autoptr(JsonNode) node = parse_json(*l);
                JsonObject *o = json_node_get_object(node);

                if (json_object_has_member(o, "interval"))
                        sum += json_count(o);
                else
                        *ret_report = true;
        }
        return sum;
}

/* pmcount counts what the cgroup does while COMMAND runs: the worker in it touches only while
 * COMMAND waits at its gate, the one beside it five times as much, uncounted. JSON with -I (the
 * lines add up to the report once a line read after the touch is in), then CSV with COMMAND's
 * exit status passed on. */
static void test_pmcount_counts_the_cgroup_while_command_runs(void **state) {
        g_autoptr(JsonNode) root = NULL;
        g_autofree char *path = NULL;
        long long lines_sum = 0, csv_count = -1;
        Worker inside, outside;
        JsonObject *doc, *cgroup;
        bool report = false;
        char ***rows;
        FifoGate g;
        ToolRun r;

        (void) state;
        assert_int_equal(cgroup_tree_make("count"), 0);
        assert_int_equal(cgroup_tree_make("count-beside"), 0);
        worker_in(&inside, 0, "count");
        worker_in(&outside, 0, "count-beside");
        path = g_strdup(cgroup_tree_path("count"));

        fifo_gate_open(&g, fixture.dir, "count-json", 0);
        start_gated(&r, 0, &g, ARGV(PMCOUNT, "--cgroup", path, "-e", "PM_PAGE_FLT", "--json", "-I", "20", "--",
                                    "sh", "-c", g.script));
        assert_int_equal(worker_touch(&inside, INSIDE), 0);
        assert_int_equal(worker_touch(&outside, OUTSIDE), 0);
        for (int i = 0; i < 1000 && lines_sum < INSIDE; i++) {
                g_autofree char *text = peek(r.err_fd);

                lines_sum = interval_lines_sum(text, &report);
                if (lines_sum < INSIDE)
                        sleep_ms(10);
        }
        fifo_gate_release(&g);
        tool_run_wait(&r);
        fifo_gate_close(&g);
        assert_int_equal(r.status, 0);
        lines_sum = interval_lines_sum(r.err, &report);
        assert_true(report);
        root = parse_json(strrchr(g_strchomp(r.err), '\n') + 1);
        doc = json_node_get_object(root);
        cgroup = json_object_get_object_member(doc, "cgroup");
        assert_string_equal(json_object_get_string_member(cgroup, "path"), path);
        assert_int_equal(json_object_get_int_member(cgroup, "id"), (gint64) cgroup_tree_id("count"));
        assert_false(json_object_get_boolean_member(cgroup, "removed"));
        assert_false(json_object_has_member(doc, "threads"));
        printf("# pmcount --cgroup -I 20: %lld page faults, the interval lines %lld, for %d pages inside, %d "
               "beside\n", json_count(doc), lines_sum, INSIDE, OUTSIDE);
        assert_int_equal(json_count(doc), INSIDE);
        assert_int_equal(lines_sum, INSIDE);
        tool_run_done(&r);

        fifo_gate_open(&g, fixture.dir, "count-csv", 3);
        start_gated(&r, 0, &g, ARGV(PMCOUNT, "--cgroup", path, "-e", "PM_PAGE_FLT", "--csv", "--", "sh", "-c",
                                    g.script));
        assert_int_equal(worker_touch(&outside, OUTSIDE), 0);
        assert_int_equal(worker_touch(&inside, INSIDE), 0);
        fifo_gate_release(&g);
        tool_run_wait(&r);
        fifo_gate_close(&g);
        assert_int_equal(r.status, 3);
        rows = csv_read(r.err);
        for (char ***row = rows + 1; *row; row++) {
                char **f = *row;

                assert_string_not_equal(f[0], "group");
                if (strcmp(f[0], "event") == 0)
                        csv_count = atoll(f[7]);
                else if (strcmp(f[0], "cgroup") == 0 && strcmp(f[5], "path") == 0)
                        assert_string_equal(f[7], path);
                else if (strcmp(f[0], "cgroup") == 0 && strcmp(f[5], "removed") == 0)
                        assert_string_equal(f[7], "0");
                else if (strcmp(f[0], "command") == 0 && strcmp(f[5], "exit_code") == 0)
                        assert_string_equal(f[7], "3");
        }
        csv_read_free(rows);
        printf("# pmcount --cgroup --csv: %lld page faults for %d pages inside; COMMAND's status 3 passed "
               "on\n", csv_count, INSIDE);
        assert_int_equal(csv_count, INSIDE);
        tool_run_done(&r);

        worker_stop(&inside);
        worker_stop(&outside);
        assert_int_equal(cgroup_tree_remove("count"), 0);
        assert_int_equal(cgroup_tree_remove("count-beside"), 0);
}

/* pmstat's JSON Lines: the header, the intervals, maybe "removed" last. Returns the sum of the CPU
 * rows over the intervals, their number, and the "removed" line (NULL if none). */
static long long json_interval_sum(const char *text, size_t *ret_n, JsonNode **ret_removed) {
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
        long long sum = 0;
        size_t n = 0;

        *ret_removed = NULL;
        for (char **l = lines; *l && **l; l++) {
                g_autoptr(JsonNode) node = parse_json(*l);
                JsonObject *o = json_node_get_object(node), *iv;
                JsonArray *cpus;

                if (l == lines) {
                        assert_string_equal(json_object_get_string_member(o, "scope"), "cgroup");
                        continue;
                }
                assert_null(*ret_removed);      /* "removed" is the last line */
                if (json_object_has_member(o, "removed")) {
                        *ret_removed = g_steal_pointer(&node);
                        continue;
                }
                iv = json_object_get_object_member(o, "interval");
                assert_non_null(iv);
                cpus = json_object_get_array_member(iv, "cpus");
                for (guint k = 0; k < json_array_get_length(cpus); k++) {
                        JsonObject *cpu = json_array_get_object_element(cpus, k);

                        sum += json_object_get_int_member(json_object_get_object_member(cpu, "counts"),
                                                          "PM_PAGE_FLT");
                }
                n++;
        }
        *ret_n = n;
        return sum;
}

#define MANY_INTERVALS 400              /* 20 s of 50 ms: far more than a removal needs */

/* The cgroup removed while pmstat samples: the interval of the removal is the last, with every
 * page touched before it and none of those the worker touches after (it is moved out first); a
 * note says so once, and pmstat exits 0. JSON (the note on stderr), then text (the note ends the
 * report, and stderr stays empty). */
static void test_pmstat_stops_when_the_cgroup_is_removed(void **state) {
        (void) state;
        for (int json = 1; json >= 0; json--) {
                g_autofree char *path = NULL, *note = NULL, *count = g_strdup_printf("%d", MANY_INTERVALS);
                uint64_t id;
                Worker w;
                ToolRun r;

                assert_int_equal(cgroup_tree_make("gone"), 0);
                worker_in(&w, 0, "gone");
                path = g_strdup(cgroup_tree_path("gone"));
                id = cgroup_tree_id("gone");
                note = g_strdup_printf("pmstat: cgroup %s was removed; its counts stop there\n", path);
                tool_run_start(&r, 0, -1, ARGV(PMSTAT, "--cgroup", path, "-u", "-e", "PM_PAGE_FLT",
                                               json ? "--json" : "--no-big-num", "-I", "50", count));
                wait_for_output(&r, r.out_fd);
                assert_int_equal(worker_touch(&w, INSIDE), 0);
                assert_int_equal(cgroup_tree_remove("gone"), 0);        /* moves the worker out first */
                assert_int_equal(worker_touch(&w, OUTSIDE), 0);
                tool_run_wait(&r);
                worker_stop(&w);
                assert_int_equal(r.status, 0);
                if (json) {
                        g_autoptr(JsonNode) removed = NULL;
                        JsonObject *o;
                        size_t n;
                        long long sum = json_interval_sum(r.out, &n, &removed);

                        printf("# pmstat --cgroup, removed: %lld page faults in %zu intervals for %d pages "
                               "touched inside, %d after\n", sum, n, INSIDE, OUTSIDE);
                        assert_non_null(removed);
                        o = json_object_get_object_member(json_node_get_object(removed), "removed");
                        assert_string_equal(json_object_get_string_member(o, "path"), path);
                        assert_int_equal(json_object_get_int_member(o, "id"), (gint64) id);
                        assert_int_equal(sum, INSIDE);
                        assert_true(n < MANY_INTERVALS);
                        assert_string_equal(r.err, note);
                } else {
                        long long sum = 0;

                        /* Text: the note once, at the end; the block totals add up to the pages. */
                        assert_string_equal(r.err, "");
                        assert_true(g_str_has_suffix(r.out, note));
                        assert_true(strstr(r.out, note) == r.out + strlen(r.out) - strlen(note));
                        for (const char *t = strstr(r.out, "\ntotal "); t; t = strstr(t + 1, "\ntotal "))
                                sum += atoll(t + strlen("\ntotal "));
                        assert_int_equal(sum, INSIDE);
                }
                tool_run_done(&r);
        }
}

/* The cgroup removed while COMMAND runs: pmcount reports the counts it had, says so (text line,
 * JSON member) and exits with COMMAND's status. */
static void test_pmcount_reports_a_removed_cgroup(void **state) {
        (void) state;
        for (int json = 0; json < 2; json++) {
                g_autofree char *path = NULL;
                Worker w;
                FifoGate g;
                ToolRun r;

                assert_int_equal(cgroup_tree_make("short-lived"), 0);
                worker_in(&w, 0, "short-lived");
                path = g_strdup(cgroup_tree_path("short-lived"));
                fifo_gate_open(&g, fixture.dir, json ? "removed-json" : "removed-text", 7);
                start_gated(&r, 0, &g, ARGV(PMCOUNT, "--cgroup", path, "-e", "PM_PAGE_FLT", "--no-big-num",
                                            json ? "--json" : "-u", "--", "sh", "-c", g.script));
                assert_int_equal(worker_touch(&w, INSIDE), 0);
                assert_int_equal(cgroup_tree_remove("short-lived"), 0);
                assert_int_equal(worker_touch(&w, OUTSIDE), 0);
                fifo_gate_release(&g);
                tool_run_wait(&r);
                fifo_gate_close(&g);
                worker_stop(&w);
                assert_int_equal(r.status, 7);
                if (json) {
                        g_autoptr(JsonNode) root = parse_json(r.err);
                        JsonObject *doc = json_node_get_object(root);

                        printf("# pmcount --cgroup, removed during the run: %lld page faults for %d pages "
                               "touched inside, %d after\n", json_count(doc), INSIDE, OUTSIDE);
                        assert_true(json_object_get_boolean_member(json_object_get_object_member(doc, "cgroup"),
                                                                   "removed"));
                        assert_int_equal(json_count(doc), INSIDE);
                        assert_int_equal(json_object_get_int_member(doc, "exit_code"), 7);
                } else {
                        assert_non_null(strstr(r.err, "\nRemoved:        the cgroup was removed during the "
                                                      "run"));
                        assert_int_equal(text_count(r.err, "PM_PAGE_FLT"), INSIDE);
                }
                tool_run_done(&r);
        }
}

/* A refusal: the status, pm_error's text for code on stderr, nothing on stdout (where pmcount's
 * COMMAND would have written "ran"). */
static void expect_refusal(uid_t uid, int status, int code, const char *const *argv) {
        ToolRun r;

        tool_run(&r, uid, argv);
        if (r.status != status || !strstr(r.err, pm_strerror(NULL, code)))
                printf("# %s -> %d, not %d: %s", argv[0], r.status, status, r.err);
        assert_int_equal(r.status, status);
        assert_non_null(strstr(r.err, pm_strerror(NULL, code)));
        assert_string_equal(r.out, "");
        tool_run_done(&r);
}

static void expect_usage(int status, const char *message, const char *const *argv) {
        ToolRun r;

        tool_run(&r, 0, argv);
        assert_int_equal(r.status, status);
        assert_non_null(strstr(r.err, message));
        assert_non_null(strstr(r.err, "--help"));
        tool_run_done(&r);
}

/* Paths that name no cgroup (pmstat 1, pmcount 125 and COMMAND not run), options that exclude each
 * other (usage: pmstat 2, or 125 with --proctree, as every usage error with it; pmcount 125). */
static void test_bad_paths_and_options_are_refused(void **state) {
        g_autofree char *path = NULL, *missing = NULL, *file = NULL, *dots = NULL;

        (void) state;
        assert_int_equal(cgroup_tree_make("bad"), 0);
        path = g_strdup(cgroup_tree_path("bad"));
        missing = g_strdup_printf("%s/nothing-here", path);
        file = g_strdup_printf("%s/cgroup.procs", path);
        dots = g_strdup_printf("%s/../bad", path);
        expect_refusal(0, 1, PM_ENOCGROUP, ARGV(PMSTAT, "--cgroup", missing));
        expect_refusal(0, 125, PM_ENOCGROUP, ARGV(PMCOUNT, "--cgroup", missing, "--", "echo", "ran"));
        expect_refusal(0, 1, PM_ECGROUPPATH, ARGV(PMSTAT, "--cgroup", file));
        expect_refusal(0, 125, PM_ECGROUPPATH, ARGV(PMCOUNT, "--cgroup", file, "--", "echo", "ran"));
        expect_refusal(0, 1, PM_ECGROUPPATH, ARGV(PMSTAT, "--cgroup", dots, "-j"));
        expect_refusal(0, 125, PM_ECGROUPPATH, ARGV(PMCOUNT, "--cgroup", dots, "--", "echo", "ran"));

        expect_usage(125, "--cgroup and --proctree exclude each other",
                     ARGV(PMSTAT, "--cgroup", path, "--proctree", "--", "true"));
        expect_usage(2, "option '--cgroup' needs an argument", ARGV(PMSTAT, "--cgroup"));
        expect_usage(125, "not with -p or -t", ARGV(PMCOUNT, "--cgroup", path, "-p", "1"));
        expect_usage(125, "not with --cgroup", ARGV(PMCOUNT, "--cgroup", path, "--per-thread", "--", "true"));
        expect_usage(125, "not with --cgroup", ARGV(PMCOUNT, "--cgroup", path, "-r", "2", "--", "true"));
        expect_usage(125, "no command given", ARGV(PMCOUNT, "--cgroup", path));
        assert_int_equal(cgroup_tree_remove("bad"), 0);
}

/* nobody: a cgroup not delegated to it is refused (pmstat 1, pmcount 125 before COMMAND runs); the
 * cgroup delegated to it, with its own worker in it, is counted exactly (text report). */
static void test_nobody_counts_only_its_delegated_cgroup(void **state) {
        g_autofree char *root_only = NULL, *path = NULL, *line = NULL;
        Worker w;
        FifoGate g;
        ToolRun r;

        (void) state;
        assert_int_equal(cgroup_tree_make("root-only"), 0);
        assert_int_equal(cgroup_tree_make("nobodys"), 0);
        assert_int_equal(cgroup_tree_delegate("nobodys", NOBODY), 0);
        root_only = g_strdup(cgroup_tree_path("root-only"));
        path = g_strdup(cgroup_tree_path("nobodys"));
        expect_refusal(NOBODY, 1, PM_ECGROUPACCESS, ARGV(PMSTAT, "--cgroup", root_only, "-u"));
        expect_refusal(NOBODY, 125, PM_ECGROUPACCESS,
                       ARGV(PMCOUNT, "--cgroup", root_only, "--", "echo", "ran"));

        worker_in(&w, NOBODY, "nobodys");
        fifo_gate_open(&g, fixture.dir, "nobody", 0);
        start_gated(&r, NOBODY, &g, ARGV(PMCOUNT, "--cgroup", path, "-e", "PM_PAGE_FLT", "--no-big-num", "--",
                                         "sh", "-c", g.script));
        assert_int_equal(worker_touch(&w, INSIDE), 0);
        fifo_gate_release(&g);
        tool_run_wait(&r);
        fifo_gate_close(&g);
        worker_stop(&w);
        if (r.status != 0)
                printf("# pmcount as nobody -> %d: %s", r.status, r.err);
        assert_int_equal(r.status, 0);
        line = g_strdup_printf("\nCgroup:         %s (id %llu) and its descendants, on every CPU\n", path,
                               (unsigned long long) cgroup_tree_id("nobodys"));
        assert_non_null(strstr(r.err, line));
        assert_null(strstr(r.err, "\nThreads:"));
        assert_null(strstr(r.err, "\nRemoved:"));
        printf("# pmcount --cgroup as nobody, its delegated cgroup: %lld page faults for %d pages\n",
               text_count(r.err, "PM_PAGE_FLT"), INSIDE);
        assert_int_equal(text_count(r.err, "PM_PAGE_FLT"), INSIDE);
        tool_run_done(&r);
        assert_int_equal(cgroup_tree_remove("nobodys"), 0);
        assert_int_equal(cgroup_tree_remove("root-only"), 0);
}

static int setup(void **state) {
        static const char *const shared[] = { "PMAPI_PMSTAT", "PMAPI_PMCOUNT", NULL };
        int r;

        (void) state;
        if (cgroup_tree_setup() < 0)
                exit(77);               /* cgroup_tree_setup() said why */
        r = bus_fixture_start(&fixture, NULL);
        return r == 0 ? bus_fixture_share_programs(&fixture, shared) : r;
}

static int teardown(void **state) {
        (void) state;
        cgroup_tree_teardown();
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_pmstat_counts_exactly_the_cgroup_and_below),
                cmocka_unit_test(test_pmcount_counts_the_cgroup_while_command_runs),
                cmocka_unit_test(test_pmstat_stops_when_the_cgroup_is_removed),
                cmocka_unit_test(test_pmcount_reports_a_removed_cgroup),
                cmocka_unit_test(test_bad_paths_and_options_are_refused),
                cmocka_unit_test(test_nobody_counts_only_its_delegated_cgroup),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
