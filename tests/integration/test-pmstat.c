/* test-pmstat.c: the pmstat binary against a real pmapid. As root, every CPU's page faults per
 * interval (JSON, parsed with json-glib) show a workload pinned with taskset on its CPU, and each
 * interval's total is the sum of its CPU rows; the text report's columns, statuses and thousands
 * separators; an interrupted endless run still ends its JSON and exits 0. As nobody, --proctree
 * counts exactly the command's tree (CSV, read with csv-read.c) and not a process
 * that touches pages beside it, and its intervals hold each its own share of the run. Refusals
 * (no root, counters owned by another process) name their reason; --proctree passes the
 * command's exit status on; usage errors; the CSV reader itself. Every row says how long it was
 * counted (CSV and JSON): all of its enabled time, as software events are never multiplexed
 * (tests/unit/test-pmstat-report.c shows the other cases). Running pmstat and reading its JSON
 * Lines is pmstat-run.c's; -g's event groups are test-tool-groups.c's, -m's metrics
 * test-pmcount-metrics.c's. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-glib/json-glib.h>

#include "bus-fixture.h"
#include "csv-read.h"
#include "pmapi.h"
#include "pmstat-run.h"
#include "workload.h"

#define NOBODY 65534
/* Two execs (taskset, then the toucher) fault in their loader, libc and stack; pmstat itself is in
 * the tree too. */
#define EXEC_SLACK 1500

static BusFixture fixture;

static char *nth_cpu_arg(int cpu) {
        static char buf[16];
        snprintf(buf, sizeof(buf), "%d", cpu);
        return buf;
}

#define PINNED_PAGES 30000

/* Root, every process: 5 intervals of 200 ms while a workload pinned to CPU n touches 30,000
 * pages. Other tests on this machine add faults too, on every CPU and in bursts of hundreds of
 * thousands a second, so CPU n's share is bounded from below only, and that it exceeds the other
 * CPUs' by half the workload or more is asked of one of five tries, a second apart. A pmstat that
 * mixed the CPUs up would fail all five. */
static void test_root_json_shows_a_pinned_workload_on_its_cpu(void **state) {
        static const char *const args[] = { "--json", "-e", "PM_PAGE_FLT", "-I", "200", "5", NULL };
        int n = last_online_cpu();
        bool separated = false;

        (void) state;
        for (int attempt = 0; attempt < 5 && !separated; attempt++) {
                g_autoptr(JsonNode) root = NULL;
                long long on_cpu, others;
                JsonObject *doc, *e;
                PmstatProc p;
                PmstatRun run;

                pmstat_start(0, args, &p);
                pmstat_wait_for_output(p.out);
                assert_int_equal(run_pinned(n, PINNED_PAGES), 0);
                pmstat_finish(&p, &run);
                assert_int_equal(run.status, 0);
                assert_string_equal(run.err, "");
                root = pmstat_parse_json(run.out);
                doc = json_node_get_object(root);
                assert_string_equal(json_object_get_string_member(doc, "scope"), "system");
                assert_true(json_object_get_boolean_member(json_object_get_object_member(doc, "mode"), "user"));
                assert_true(json_object_get_boolean_member(json_object_get_object_member(doc, "mode"), "kernel"));
                assert_int_equal(json_object_get_int_member(doc, "interval_ms"), 200);
                assert_int_equal(json_array_get_length(json_object_get_array_member(doc, "events")), 1);
                e = json_array_get_object_element(json_object_get_array_member(doc, "events"), 0);
                assert_string_equal(json_object_get_string_member(e, "name"), "PM_PAGE_FLT");
                assert_string_equal(json_object_get_string_member(e, "status"), "verified");
                assert_int_equal(json_array_get_length(json_object_get_array_member(doc, "intervals")), 5);
                pmstat_check_intervals(json_object_get_array_member(doc, "intervals"), "PM_PAGE_FLT", n, &on_cpu, &others);
                printf("# try %d: CPU %d counted %lld page faults over 5 intervals, the others %lld, for %d "
                       "pages touched on CPU %d\n", attempt + 1, n, on_cpu, others, PINNED_PAGES, n);
                assert_true(on_cpu >= PINNED_PAGES);
                separated = n == 0 || on_cpu - others >= PINNED_PAGES / 2;
                if (!separated)
                        sleep(1);
        }
        assert_true(separated);
}

/* A process that is not pmstat's descendant, touching fresh pages in batches until it is told to
 * stop; it reports how many it touched. */
static pid_t start_outsider(int *stop_fd, int *count_fd) {
        int stop[2], count[2];
        pid_t pid;

        assert_int_equal(pipe(stop), 0);
        assert_int_equal(pipe(count), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                long touched = 0;
                char c;

                close(stop[1]);
                close(count[0]);
                (void) fcntl(stop[0], F_SETFL, O_NONBLOCK);
                while (read(stop[0], &c, 1) < 0 && errno == EAGAIN) {
                        if (touch_fresh_pages(1000) < 0)
                                _exit(1);
                        touched += 1000;
                }
                _exit(write(count[1], &touched, sizeof(touched)) == sizeof(touched) ? 0 : 1);
        }
        close(stop[0]);
        close(count[1]);
        *stop_fd = stop[1];
        *count_fd = count[0];
        return pid;
}

static long stop_outsider(pid_t pid, int stop_fd, int count_fd) {
        long touched = -1;
        int status;

        close(stop_fd);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        assert_int_equal(read(count_fd, &touched, sizeof(touched)), sizeof(touched));
        close(count_fd);
        return touched;
}

#define TREE_PAGES 20000

/* nobody: --proctree counts the command's tree, exactly, and not a process beside it that touches
 * pages the whole time; the report (CSV) goes to stderr, so that the command's stdout stays its. */
static void test_proctree_as_nobody_counts_only_the_tree(void **state) {
        int n = last_online_cpu(), stop_fd, count_fd;
        const char *args[] = { "--proctree", "--csv", "-e", "PM_PAGE_FLT", "-I", "100", "--", "taskset", "-c",
                               nth_cpu_arg(n), getenv("PMAPI_TOUCH_PAGES"), "20000", NULL };
        long long run_total = -1, run_cpu = -1, intervals_total = 0, cpu_sum = 0;
        char ***rows, last_time[32] = "";
        bool in_block = false;
        long outside;
        pid_t outsider;
        PmstatRun run;

        (void) state;
        outsider = start_outsider(&stop_fd, &count_fd);
        pmstat_run(NOBODY, &run, args);
        outside = stop_outsider(outsider, stop_fd, count_fd);
        assert_int_equal(run.status, 0);
        assert_string_equal(run.out, "");

        rows = csv_read(run.err);
        assert_non_null(rows[0]);
        assert_int_equal(g_strv_length(rows[0]), 8);
        assert_string_equal(rows[0][0], "block");
        assert_string_equal(rows[0][1], "time");
        assert_string_equal(rows[0][2], "cpu");
        assert_string_equal(rows[0][3], "online");
        assert_string_equal(rows[0][4], "PM_PAGE_FLT");
        assert_string_equal(rows[0][5], "enabled_ns");
        assert_string_equal(rows[0][6], "running_ns");
        assert_string_equal(rows[0][7], "percent_running");
        for (char ***r = rows + 1; *r; r++) {
                char **f = *r;
                long long v;

                assert_int_equal(g_strv_length(f), 8);
                v = atoll(f[4]);
                assert_string_equal(f[5], f[6]);               /* never multiplexed: all the time enabled */
                assert_string_equal(f[7], "100.00");
                if (strcmp(f[0], "run") == 0 && strcmp(f[2], "total") == 0)
                        assert_true(atoll(f[6]) > 0);
                /* A block is its CPU rows, then its total row. Two blocks may print the same time: the
                 * last one, cut short by the command's exit, can end within the millisecond after a
                 * full one (a total of 17 against 35 once: both blocks' CPU rows were added). */
                if (strcmp(f[0], "interval") == 0 && strcmp(f[2], "total") != 0) {
                        if (in_block)
                                assert_string_equal(f[1], last_time);
                        else
                                cpu_sum = 0;
                        in_block = true;
                        snprintf(last_time, sizeof(last_time), "%s", f[1]);
                        cpu_sum += v;
                } else if (strcmp(f[0], "interval") == 0) {
                        if (in_block)
                                assert_string_equal(f[1], last_time);
                        else
                                cpu_sum = 0;
                        assert_int_equal(v, cpu_sum);           /* the total row adds the CPU rows up */
                        intervals_total += v;
                        in_block = false;
                } else {
                        assert_string_equal(f[0], "run");
                        if (strcmp(f[2], "total") == 0)
                                run_total = v;
                        else if (atoi(f[2]) == n)
                                run_cpu = v;
                }
        }
        csv_read_free(rows);
        printf("# proctree (nobody): %lld page faults for %d pages in the tree (%lld on CPU %d), while %ld "
               "were touched outside it\n", run_total, TREE_PAGES, run_cpu, n, outside);
        assert_true(outside >= 1000);
        assert_in_range(run_total, TREE_PAGES, TREE_PAGES + EXEC_SLACK);
        assert_true(run_cpu >= TREE_PAGES);
        assert_int_equal(intervals_total, run_total);   /* the intervals split the run */
}

/* Each interval holds what was counted in it alone: a command that touches pages, sleeps 300 ms and
 * touches as many again shows quiet intervals in between, and the intervals add up to the run. */
static void test_proctree_intervals_are_deltas(void **state) {
        g_autofree char *script = g_strdup_printf("%s 5000 && sleep 0.3 && %s 5000", getenv("PMAPI_TOUCH_PAGES"),
                                                  getenv("PMAPI_TOUCH_PAGES"));
        const char *args[] = { "--proctree", "--json", "-e", "PM_PAGE_FLT", "-I", "100", "--", "sh", "-c", script,
                               NULL };
        g_autoptr(JsonNode) root = NULL;
        long long on_cpu, others, sum = 0, quiet = -1, run_total;
        JsonArray *intervals;
        JsonObject *doc;
        PmstatRun run;

        (void) state;
        pmstat_run(NOBODY, &run, args);
        assert_int_equal(run.status, 0);
        root = pmstat_parse_json(run.err);
        doc = json_node_get_object(root);
        intervals = json_object_get_array_member(doc, "intervals");
        assert_true(json_array_get_length(intervals) >= 3);
        pmstat_check_intervals(intervals, "PM_PAGE_FLT", 0, &on_cpu, &others);
        for (guint i = 0; i < json_array_get_length(intervals); i++) {
                JsonObject *iv = json_array_get_object_element(intervals, i);
                long long n = json_object_get_int_member(json_object_get_object_member(iv, "total"), "PM_PAGE_FLT");

                sum += n;
                if (quiet < 0 || n < quiet)
                        quiet = n;
        }
        run_total = json_object_get_int_member(json_object_get_object_member(json_object_get_object_member(doc, "run"),
                                                                             "total"), "PM_PAGE_FLT");
        assert_true(pmstat_counted_fully(json_object_get_object_member(json_object_get_object_member(doc, "run"),
                                                                "total_times")) > 0);
        printf("# proctree, 2 x 5000 pages 300 ms apart: %u intervals, the quietest %lld page faults, "
               "%lld in all\n", json_array_get_length(intervals), quiet, run_total);
        assert_int_equal(sum, run_total);
        assert_int_equal(on_cpu + others, run_total);
        assert_in_range(run_total, 10000, 10000 + EXEC_SLACK);
        assert_true(quiet < 100);               /* the sleep: pmstat's own reads, nothing more */
}

/* Text for people: the opening line, one block per interval with its time, the events' names over
 * their statuses (right-aligned alike), CPU rows and a total row that adds them up, with thousands
 * separators. */
static bool is_grouped_number(const char *s) {
        size_t len = strlen(s), first = len % 4 == 0 ? 4 : len % 4;     /* "1,234": groups of 3 after 1-3 */

        if (len == 0 || first == 4)
                return false;
        for (size_t i = 0; i < len; i++)
                if ((i >= first && (i - first) % 4 == 0) ? s[i] != ',' : (s[i] < '0' || s[i] > '9'))
                        return false;
        return true;
}

static long long ungroup(const char *s) {
        long long v = 0;

        assert_true(is_grouped_number(s));
        for (; *s; s++)
                if (*s != ',')
                        v = v * 10 + (*s - '0');
        return v;
}

static void test_text_report_has_statuses_separators_and_totals(void **state) {
        static const char *const args[] = { "-e", "PM_PAGE_FLT,PM_CPU_CLOCK", "-I", "100", "2", NULL };
        g_auto(GStrv) lines = NULL;
        int blocks = 0;
        PmstatRun run;

        (void) state;
        pmstat_run(0, &run, args);
        assert_int_equal(run.status, 0);
        assert_string_equal(run.err, "");
        lines = g_strsplit(run.out, "\n", -1);
        assert_string_equal(lines[0], "pmstat: every process, user and kernel mode, 2 intervals of 100 ms");
        for (int i = 1; lines[i]; i++) {
                long long sum[2] = { 0, 0 };
                char *header, *status;
                int row;

                if (strncmp(lines[i], "CPU ", 4) != 0)
                        continue;
                blocks++;
                assert_string_equal(lines[i - 2], "");
                assert_non_null(strstr(lines[i - 1], blocks == 1 ? " s, interval 1 of 2" : " s, interval 2 of 2"));
                header = lines[i];
                status = lines[i + 1];
                /* Each status ends where its event's name ends. */
                assert_int_equal(strlen(header), strlen(status));
                assert_int_equal(strstr(header, "PM_PAGE_FLT") + strlen("PM_PAGE_FLT") - header,
                                 strstr(status, "verified") + strlen("verified") - status);
                assert_int_equal(strstr(header, "PM_CPU_CLOCK") + strlen("PM_CPU_CLOCK") - header,
                                 strstr(status, "caveat") + strlen("caveat") - status);
                for (row = i + 2; lines[row] && lines[row][0] != '\0'; row++) {
                        g_auto(GStrv) cells = g_strsplit_set(lines[row], " ", -1);
                        const char *v[3];
                        int k = 0;

                        for (int c = 0; cells[c] && k < 3; c++)
                                if (cells[c][0])
                                        v[k++] = cells[c];
                        assert_int_equal(k, 3);
                        assert_int_equal(strlen(lines[row]), strlen(header));   /* aligned */
                        if (strcmp(v[0], "total") == 0) {
                                assert_int_equal(ungroup(v[1]), sum[0]);
                                assert_int_equal(ungroup(v[2]), sum[1]);
                                /* 100 ms of CPU clock per CPU: thousands separators shown. */
                                assert_non_null(strchr(v[2], ','));
                                break;
                        }
                        assert_in_range(atoi(v[0]), 0, sysconf(_SC_NPROCESSORS_CONF) - 1);
                        sum[0] += ungroup(v[1]);
                        sum[1] += ungroup(v[2]);
                }
                assert_non_null(lines[row]);
                assert_true(row >= i + 3);      /* a CPU row at least, then the total */
        }
        assert_int_equal(blocks, 2);
}

/* COUNT 0 runs until SIGINT or SIGTERM; then the JSON document is complete, the counters are
 * released (pm_delete_program) and the exit status is 0. */
static void test_endless_run_ends_cleanly_on_sigterm(void **state) {
        static const char *const args[] = { "--json", "-e", "PM_PAGE_FLT", "-I", "100", "0", NULL };
        g_autoptr(JsonNode) root = NULL;
        JsonArray *intervals;
        pm_info_t info;
        pm_prog_t prog;
        PmstatProc p;
        PmstatRun run;

        (void) state;
        pmstat_start(0, args, &p);
        pmstat_wait_for_output(p.out);
        (void) nanosleep(&(struct timespec) { .tv_nsec = 350 * 1000 * 1000 }, NULL);
        assert_int_equal(kill(p.pid, SIGTERM), 0);
        pmstat_finish(&p, &run);
        assert_int_equal(run.status, 0);
        root = pmstat_parse_json(run.out);
        intervals = json_object_get_array_member(json_node_get_object(root), "intervals");
        /* 3 whole ones, then the cut one; one fewer or more on a busy machine. */
        assert_in_range(json_array_get_length(intervals), 2, 6);
        assert_false(json_object_has_member(json_node_get_object(root), "error"));
        assert_int_equal(pm_init(PM_VERIFIED, &info), 0);
        program_one(&prog, PM_USER, find_event_id(&info, "PM_PAGE_FLT"));
        assert_int_equal(pm_set_program(&prog), 0);
        assert_int_equal(pm_delete_program(), 0);
}

/* Without root and without --proctree: PM_ESYSROOT's text and the way out. */
static void test_nobody_without_proctree_is_told_to_use_it(void **state) {
        static const char *const args[] = { "-I", "100", NULL };
        PmstatRun run;

        (void) state;
        pmstat_run(NOBODY, &run, args);
        assert_int_equal(run.status, 1);
        assert_string_equal(run.out, "");
        assert_non_null(strstr(run.err, pm_strerror(NULL, PM_ESYSROOT)));
        assert_non_null(strstr(run.err, "root"));
        assert_non_null(strstr(run.err, "--proctree"));
}

/* Another process (this test) counts every process: pmstat names it and fails with 1 before
 * running anything; pmstat --proctree counts its command's tree beside it. */
static void test_busy_counters_name_their_owner(void **state) {
        static const char *const args[] = { "-I", "100", NULL };
        static const char *const tree_args[] = { "--proctree", "--", "sh", "-c", "echo ran", NULL };
        char owner[32];
        pm_info_t info;
        pm_prog_t prog;
        PmstatRun run;

        (void) state;
        assert_int_equal(pm_init(PM_VERIFIED, &info), 0);
        program_one(&prog, PM_USER, find_event_id(&info, "PM_PAGE_FLT"));
        assert_int_equal(pm_set_program(&prog), 0);
        snprintf(owner, sizeof(owner), "pid %d", (int) getpid());
        pmstat_run(0, &run, args);
        assert_int_equal(run.status, 1);
        assert_string_equal(run.out, "");
        assert_non_null(strstr(run.err, pm_strerror(NULL, PM_ESYSBUSY)));
        assert_non_null(strstr(run.err, owner));
        pmstat_run(NOBODY, &run, tree_args);
        assert_int_equal(run.status, 0);
        assert_string_equal(run.out, "ran\n");
        assert_int_equal(pm_delete_program(), 0);
}

/* --proctree exits with COMMAND's status (128+N for signal N), 127 for a command not found, 125 for
 * its own usage errors; -o puts the report in a file, with the run's end in it. */
static void test_proctree_passes_the_exit_status_on(void **state) {
        static const char *const exit3[] = { "--proctree", "-e", "PM_PAGE_FLT", "--", "sh", "-c", "exit 3", NULL };
        static const char *const killed[] = { "--proctree", "--", "sh", "-c", "kill -TERM $$", NULL };
        static const char *const missing[] = { "--proctree", "--", "/nonexistent/command", NULL };
        static const char *const bad[] = { "--proctree", "-I", "x", "--", "true", NULL };
        char path[] = "/tmp/pmstat-test-XXXXXX", pages[16];
        const char *to_file[] = { "--proctree", "--json", "-e", "PM_PAGE_FLT", "-o", path, "--",
                                  getenv("PMAPI_TOUCH_PAGES"), pages, NULL };
        g_autoptr(JsonNode) root = NULL;
        g_autofree char *text = NULL;
        JsonObject *doc, *end;
        long long faults;
        PmstatRun run;
        int fd;

        (void) state;
        pmstat_run(NOBODY, &run, exit3);
        assert_int_equal(run.status, 3);
        assert_non_null(strstr(run.err, "exited with status 3\n"));
        pmstat_run(NOBODY, &run, killed);
        assert_int_equal(run.status, 128 + SIGTERM);
        assert_non_null(strstr(run.err, "was killed by signal 15"));
        pmstat_run(NOBODY, &run, missing);
        assert_int_equal(run.status, 127);
        assert_non_null(strstr(run.err, "/nonexistent/command: No such file or directory"));
        pmstat_run(NOBODY, &run, bad);
        assert_int_equal(run.status, 125);

        fd = mkstemp(path);
        assert_true(fd >= 0);
        close(fd);
        snprintf(pages, sizeof(pages), "%d", 1000);
        pmstat_run(0, &run, to_file);
        assert_int_equal(run.status, 0);
        assert_string_equal(run.out, "");
        assert_string_equal(run.err, "");
        assert_true(g_file_get_contents(path, &text, NULL, NULL));
        unlink(path);
        root = pmstat_parse_json(text);
        doc = json_node_get_object(root);
        assert_string_equal(json_object_get_string_member(doc, "scope"), "proctree");
        assert_string_equal(json_array_get_string_element(json_object_get_array_member(
                                    json_object_get_object_member(doc, "command"), "argv"), 1), "1000");
        end = json_object_get_object_member(doc, "run");
        assert_int_equal(json_object_get_int_member(end, "exit_status"), 0);
        assert_true(json_object_get_null_member(end, "signal"));
        faults = json_object_get_int_member(json_object_get_object_member(end, "total"), "PM_PAGE_FLT");
        printf("# proctree (root, one exec): %lld page faults for 1000 pages\n", faults);
        assert_in_range(faults, 1000, 1000 + EXEC_SLACK);
}

static void test_bad_usage_exits_2(void **state) {
        static const char *const bad[][6] = {
                { "--bogus" }, { "-I" }, { "-I", "5" }, { "-I", "abc" }, { "1", "2" }, { "-x" },
                { "--csv", "--json" }, { "-e", "NO_SUCH_EVENT" }, { "-e", "PM_PAGE_FLT,PM_PAGE_FLT" },
                { "-e", "-" }, { "--", "ls" }, { "-1" }, { "-u", "--mode", "user" }, { "--mode", "hypervisor" },
                { "--mode", "" }, { "-x", "\"" }, { "-g", "2", "-e", "PM_PAGE_FLT" }, { "-g", "99" }, { "-g", "x" },
        };
        PmstatRun run;

        (void) state;
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                pmstat_run(0, &run, bad[i]);
                assert_int_equal(run.status, 2);
                assert_string_equal(run.out, "");
                assert_true(strncmp(run.err, "pmstat: ", 8) == 0);
        }
        pmstat_run(0, &run, (const char *const[]) { "--help", NULL });
        assert_int_equal(run.status, 0);
        assert_true(strncmp(run.out, "Usage: pmstat", 13) == 0);
        pmstat_run(0, &run, (const char *const[]) { "--version", NULL });
        assert_int_equal(run.status, 0);
        assert_string_equal(run.out, "pmstat (pmapi) " PMAPI_VERSION "\n");
}

/* The test's CSV reader itself: quotes, doubled quotes, commas and line ends inside them, CRLF. */
static void test_csv_reader_reads_rfc_4180(void **state) {
        char ***rows = csv_read("a,\"b,\"\"c\"\"\r\nd\",\r\n,\n");

        (void) state;
        assert_int_equal(g_strv_length(rows[0]), 3);
        assert_string_equal(rows[0][0], "a");
        assert_string_equal(rows[0][1], "b,\"c\"\r\nd");
        assert_string_equal(rows[0][2], "");
        assert_int_equal(g_strv_length(rows[1]), 2);
        assert_null(rows[2]);
        csv_read_free(rows);
}

static int setup(void **state) {
        static const char *const shared[] = { "PMAPI_PMSTAT", "PMAPI_TOUCH_PAGES", NULL };
        int r;

        (void) state;
        r = bus_fixture_start(&fixture, NULL);
        return r == 0 ? bus_fixture_share_programs(&fixture, shared) : r;
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_root_json_shows_a_pinned_workload_on_its_cpu),
                cmocka_unit_test(test_proctree_as_nobody_counts_only_the_tree),
                cmocka_unit_test(test_proctree_intervals_are_deltas),
                cmocka_unit_test(test_text_report_has_statuses_separators_and_totals),
                cmocka_unit_test(test_endless_run_ends_cleanly_on_sigterm),
                cmocka_unit_test(test_nobody_without_proctree_is_told_to_use_it),
                cmocka_unit_test(test_busy_counters_name_their_owner),
                cmocka_unit_test(test_proctree_passes_the_exit_status_on),
                cmocka_unit_test(test_bad_usage_exits_2),
                cmocka_unit_test(test_csv_reader_reads_rfc_4180),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
