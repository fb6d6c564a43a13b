/* test-pmctl-watch.c: pmctl on counts that change while it looks, against a real pmapid: members
 * shows each thread of a process group with its own pages and the group's totals as their sum;
 * data -I prints the change between reads (text and JSON Lines, parsed with json-glib) until -c,
 * SIGINT, SIGTERM or the context's end; a group whose threads ran uncounted is partial, and data
 * --group and members exit 3 and say so (man/pmapi-tools.7). The commands that set, read and show
 * one context are test-pmctl.c's. */
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-glib/json-glib.h>

#include "bus-fixture.h"
#include "check.h"
#include "macro.h"
#include "pmapi.h"
#include "target.h"
#include "text-table.h"
#include "pmctl-target.h"
#include "tool-run.h"
#include "workload.h"

static BusFixture fixture;
static pm_info_t info;

/* The value of a count as the text output writes it ("1,234"), or -1 if it is not written so. */
static long long grouped(const char *s) {
        char plain[64], back[THOUSANDS_MAX];
        size_t o = 0;

        for (const char *p = s; *p && o + 1 < sizeof(plain); p++)
                if (*p != ',')
                        plain[o++] = *p;
        plain[o] = '\0';
        if (o == 0 || strspn(plain, "0123456789") != o)
                return -1;
        return strcmp(format_thousands(atoll(plain), back), s) == 0 ? atoll(plain) : -1;
}

/* A process group of four threads, each touching its own number of pages: members shows each one's
 * (+-2), and the group's totals are the sum of its members exactly, as pmcount --per-thread's. */
static void test_members_shows_each_threads_own_pages(void **state) {
        static const long long pages[] = { 0, 300, 1000, 2000 };       /* the main thread is parked */
        TargetIdentity root_id = TARGET_ROOT;
        g_autoptr(JsonNode) root = NULL;
        long long sum[2] = {};
        JsonArray *rows, *counters;
        JsonObject *doc;
        char expect[160], comm[16];
        _cleanup_(tool_run_done) ToolRun run = {};

        (void) state;
        /* The target is forked from this process, not executed: its threads have our name. */
        assert_int_equal(prctl(PR_GET_NAME, comm, 0, 0, 0), 0);
        assert_int_equal(target_start(&tool_target, &root_id, 4), 0);
        pmctl_ok(&run, "--group set %d -e PM_PAGE_FLT,PM_MINOR_FLT -m user,count,process", PID);
        for (int i = 1; i < 4; i++)
                assert_int_equal(target_touch(&tool_target, i, pages[i]), 0);

        pmctl_ok(&run, "--json members %d", PID);
        root = parse_json(run.out);
        doc = json_node_get_object(root);
        assert_int_equal(json_object_get_int_member(doc, "members"), 4);
        assert_true(json_object_get_boolean_member(doc, "consistent"));
        assert_true(json_object_get_boolean_member(doc, "process"));
        assert_false(json_object_get_boolean_member(doc, "partial"));
        assert_int_equal(json_object_get_int_member(doc, "threads_missed"), 0);
        assert_int_equal(json_object_get_int_member(doc, "rows_dropped"), 0);
        counters = json_object_get_array_member(doc, "counters");
        assert_int_equal(json_array_get_length(counters), 2);
        assert_string_equal(json_object_get_string_member(counter_at(doc, 1), "name"), "PM_MINOR_FLT");
        rows = json_object_get_array_member(doc, "rows");
        assert_int_equal(json_array_get_length(rows), 4);
        for (guint i = 0; i < 4; i++) {
                JsonObject *row = json_array_get_object_element(rows, i);
                JsonArray *counts = json_object_get_array_member(row, "counts");
                pid_t tid = (pid_t) json_object_get_int_member(row, "tid");
                int k = 0;

                while (k < 4 && tool_target.tids[k] != tid)
                        k++;
                assert_true(k < 4);
                assert_int_equal(json_object_get_int_member(row, "pid"), PID);
                assert_string_equal(json_object_get_string_member(row, "comm"), comm);
                assert_true(json_object_get_boolean_member(row, "alive"));
                assert_int_equal(json_array_get_length(counts), 2);
                for (guint c = 0; c < 2; c++) {
                        long long v = json_array_get_int_element(counts, c);

                        printf("# member %d: %lld of %lld pages\n", (int) tid, v, pages[k]);
                        assert_in_range(v, pages[k] > 2 ? pages[k] - 2 : 0, pages[k] + 2);
                        sum[c] += v;
                }
        }
        for (guint c = 0; c < 2; c++)
                assert_int_equal(json_object_get_int_member(counter_at(doc, c), "total"), sum[c]);

        pmctl_ok(&run, "members %d", PID);
        snprintf(expect, sizeof(expect), "group of thread %d/%d: 4 members, consistent, process group, "
                 "4 rows\nPID TID COMM STATE PM_PAGE_FLT PM_MINOR_FLT\n", PID, PID);
        squeeze_spaces(run.out);
        assert_true(strncmp(run.out, expect, strlen(expect)) == 0);
        assert_int_equal(count_lines(run.out), 2 + 4);
        for (const char *line = run.out + strlen(expect); *line; line = strchr(line, '\n') + 1) {
                char row_comm[64], state_word[16], c0[32], c1[32];
                int pid, tid, k = 0;

                assert_int_equal(sscanf(line, "%d %d %63s %15s %31s %31s", &pid, &tid, row_comm, state_word,
                                        c0, c1), 6);
                while (k < 4 && tool_target.tids[k] != tid)
                        k++;
                assert_true(k < 4);
                assert_string_equal(state_word, "alive");
                assert_in_range(grouped(c0), pages[k] > 2 ? pages[k] - 2 : 0, pages[k] + 2);
                assert_in_range(grouped(c1), pages[k] > 2 ? pages[k] - 2 : 0, pages[k] + 2);
        }

        /* A thread in no group has no members to show. */
        pmctl_ok(&run, "--group delete %d", PID);
        run_pmctl(&run, "members %d %d", PID, WORKER);
        assert_int_equal(run.status, 1);
        assert_string_equal(run.out, "");
}

/* Whether the pmctl that run started is still running (it is not reaped). */
static bool running(const ToolRun *run) {
        siginfo_t si = {};

        return waitid(P_PID, run->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == 0;
}

/* data -I 20 -c 3 while the worker touches pages all along: three JSON lines, each read's change
 * from the one before, adding up to the last read less the one pmctl started from. */
static void test_data_interval_prints_the_change_between_reads(void **state) {
        long long before, after, touched = 0, sum = 0, value = 0, start = 0, elapsed = 0;
        g_auto(GStrv) lines = NULL;
        _cleanup_(tool_run_done) ToolRun run = {};

        (void) state;
        tool_target_start();
        pmctl_ok(&run, "set %d %d -e PM_PAGE_FLT -m user,count", PID, WORKER);
        before = pmctl_data_value("", 0);
        tool_runf_start(&run, 0, NULL, PMCTL, "--json data -I 20 -c 3 %d %d", PID, WORKER);
        while (running(&run)) {
                tool_target_touch(50);
                touched += 50;
        }
        assert_int_equal(tool_runf_wait(&run), 0);
        after = pmctl_data_value("", 0);
        assert_in_range(after - before, touched - 2, touched + 2);

        lines = g_strsplit(run.out, "\n", -1);
        assert_int_equal(g_strv_length(lines), 4);              /* and "" after the last */
        for (int k = 0; k < 3; k++) {
                g_autoptr(JsonNode) root = parse_json(lines[k]);
                JsonObject *doc = json_node_get_object(root), *c0 = counter_at(doc, 0);
                long long v = json_object_get_int_member(c0, "value");
                long long d = json_object_get_int_member(c0, "delta");
                long long e = json_object_get_int_member(doc, "elapsed_ns");

                printf("# read %d at %lld ns: %lld (+%lld)\n", k + 1, e, v, d);
                assert_string_equal(json_object_get_string_member(c0, "name"), "PM_PAGE_FLT");
                assert_true(e >= (k + 1) * 20000000LL && e > elapsed);  /* on its schedule, 20 ms apart */
                if (k == 0)
                        start = v - d;
                else
                        assert_int_equal(d, v - value);
                value = v;
                elapsed = e;
                sum += d;
        }
        assert_true(start >= before && value <= after);
        assert_int_equal(sum, value - start);
        assert_true(sum > 0);

        /* Text, as perf stat -I: a title, then per read the time, the change and the event. */
        tool_runf_start(&run, 0, NULL, PMCTL, "data -I 20 -c 3 %d %d", PID, WORKER);
        while (running(&run))
                tool_target_touch(1500);
        assert_int_equal(tool_runf_wait(&run), 0);
        g_strfreev(lines);
        lines = g_strsplit(run.out, "\n", -1);
        assert_int_equal(g_strv_length(lines), 5);
        assert_string_equal(squeeze_spaces(lines[0]), "# time counts event");
        sum = 0;
        for (int k = 1; k <= 3; k++) {
                char count[64], name[64];
                double seconds;

                assert_int_equal(sscanf(lines[k], "%lf %63s %63s", &seconds, count, name), 3);
                assert_true(seconds >= k * 0.020);
                assert_string_equal(name, "PM_PAGE_FLT");
                assert_true(grouped(count) >= 0);               /* "15,000": the thousands separated */
                sum += grouped(count);
        }
        assert_true(sum > 0);
}

/* Waits up to 5 s until the running pmctl has written n lines. */
static void wait_for_lines(const ToolRun *run, size_t n) {
        char buf[16384];

        for (int i = 0; i < 500; i++) {
                ssize_t k = pread(run->out_fd, buf, sizeof(buf) - 1, 0);

                buf[k > 0 ? k : 0] = '\0';
                if (count_lines(buf) >= n)
                        return;
                usleep(10 * 1000);
        }
        fail_msg("pmctl (pid %d) wrote fewer than %zu lines in 5 s", (int) run->pid, n);
}

/* -I without -c ends cleanly at SIGINT or SIGTERM (status 0, whole lines), and with status 1 and
 * the reason when the context goes away under it. */
static void test_data_interval_ends_at_a_signal_or_with_the_context(void **state) {
        static const int signals[] = { SIGINT, SIGTERM };
        char expect[256];
        _cleanup_(tool_run_done) ToolRun run = {}, del = {};

        (void) state;
        tool_target_start();
        pmctl_ok(&run, "set %d %d -e PM_PAGE_FLT -m user,count", PID, WORKER);
        for (size_t i = 0; i < 2; i++) {
                tool_runf_start(&run, 0, NULL, PMCTL, "--json data -I 20 %d %d", PID, WORKER);
                wait_for_lines(&run, 3);
                assert_int_equal(kill(run.pid, signals[i]), 0);
                assert_int_equal(tool_runf_wait(&run), 0);
                assert_string_equal(run.err, "");
                assert_true(count_lines(run.out) >= 3);
                for (char *line = run.out, *next; *line; line = next) {
                        g_autoptr(JsonNode) root = NULL;

                        next = strchr(line, '\n');
                        assert_non_null(next);
                        *next++ = '\0';
                        root = parse_json(line);
                }
        }

        tool_runf_start(&run, 0, NULL, PMCTL, "data -I 20 %d %d", PID, WORKER);
        wait_for_lines(&run, 2);                                /* the titles and a read */
        pmctl_ok(&del, "delete %d %d", PID, WORKER);
        assert_int_equal(tool_runf_wait(&run), 1);
        assert_true(count_lines(run.out) >= 2);
        snprintf(expect, sizeof(expect), "pmctl: data %d/%d: %s (", PID, WORKER,
                 pm_strerror(NULL, PM_ENOCONTEXT));
        /* pm_error's line: the message, then pmapid's own reason in parentheses. */
        assert_true(g_str_has_prefix(run.err, expect) && g_str_has_suffix(run.err, ")\n"));
}

static void *parked(void *p) {
        char c;

        (void) read(*(int *) p, &c, 1);
        return NULL;
}

/* pmctl with args, from partial_body's forked child, where no cmocka assertion (tool-run.c's
 * neither) may fail: its exit status, or -1 if it did not run; what it printed in *ret_out. */
static int child_pmctl(const char *const *args, char **ret_out) {
        g_auto(GStrv) env = g_environ_setenv(g_get_environ(), "LC_ALL", "C.UTF-8", TRUE);
        const char *argv[8] = { getenv("PMAPI_PMCTL") };
        g_autofree char *err = NULL;
        int n = 1, status;

        while (*args && n < 7)
                argv[n++] = *args++;
        if (!argv[0] || !g_spawn_sync(NULL, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL, ret_out, &err,
                                      &status, NULL) || !WIFEXITED(status))
                return -1;
        if (WEXITSTATUS(status) != 0)
                printf("# pmctl %s -> %d\n# stderr: %s", argv[1], WEXITSTATUS(status), err);
        return WEXITSTATUS(status);
}

/* As uid 65534 with a limit of 2 contexts: a descendant group on this thread, three threads that
 * inherit it, one joins and two run uncounted. data --group and members exit 3 and say so; a plain thread
 * read is complete. */
static int partial_body(void *arg) {
        g_autoptr(JsonParser) parser = json_parser_new();
        g_autofree char *data_out = NULL, *members_out = NULL, *plain_out = NULL;
        pthread_t t[3];
        pm_prog_t prog;
        pm_data_t g = {};
        JsonObject *doc;
        char pid[16];
        int fd[2];

        (void) arg;
        CHECK(prctl(PR_SET_DUMPABLE, 1) == 0);          /* pmctl, as the same user, may read us */
        CHECK(page_fault_program(&prog, PM_USER | PM_COUNT) == 0);
        CHECK_RC(pm_set_program_mygroup(&prog), 0);
        CHECK(pipe2(fd, O_CLOEXEC) == 0);
        for (int i = 0; i < 3; i++)
                CHECK(pthread_create(&t[i], NULL, parked, &fd[0]) == 0);
        /* pmapid takes new threads in from perf's fork records, on its own time. */
        for (int i = 0; i < 300 && !g.ginfo.flags.b.partial; i++) {
                usleep(10 * 1000);
                CHECK_RC(pm_get_data_mygroup(&g), 0);
        }
        CHECK(g.ginfo.flags.b.partial && g.ginfo.members == 2);

        snprintf(pid, sizeof(pid), "%d", getpid());
        CHECK(child_pmctl((const char *const[]) { "--group", "data", pid, NULL }, &data_out) == 3);
        CHECK(strstr(data_out, ", partial: threads ran uncounted\n"));
        CHECK(child_pmctl((const char *const[]) { "--json", "members", pid, NULL }, &members_out) == 3);
        CHECK(json_parser_load_from_data(parser, members_out, -1, NULL));
        doc = json_node_get_object(json_parser_get_root(parser));
        CHECK(json_object_get_boolean_member(doc, "partial"));
        /* The three threads' two, and the pmctl processes forked from this thread, which inherit
         * the group too and are missed as well (when pmapid has seen their fork records). */
        CHECK(json_object_get_int_member(doc, "threads_missed") >= 2);
        CHECK(json_array_get_length(json_object_get_array_member(doc, "rows")) == 2);
        CHECK(child_pmctl((const char *const[]) { "data", pid, NULL }, &plain_out) == 0);

        close(fd[1]);
        for (int i = 0; i < 3; i++)
                CHECK(pthread_join(t[i], NULL) == 0);
        CHECK_RC(pm_delete_program_mygroup(), 0);
        return 0;
}

static void test_partial_group_exits_3(void **state) {
        (void) state;
        assert_int_equal(bus_fixture_restart_with_config(&fixture, "[Limits]\nMaxContextsPerUser=2\n"), 0);
        assert_int_equal(run_as_nobody(partial_body, NULL), 0);
        assert_int_equal(bus_fixture_restart_with_config(&fixture, ""), 0);
}

static int setup(void **state) {
        (void) state;
        return tool_fixture_start(&fixture, "PMAPI_PMCTL", PM_VERIFIED, &info);
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

#define TEST(f) cmocka_unit_test_teardown(f, tool_target_kill)

int main(void) {
        const struct CMUnitTest tests[] = {
                TEST(test_members_shows_each_threads_own_pages),
                TEST(test_data_interval_prints_the_change_between_reads),
                TEST(test_data_interval_ends_at_a_signal_or_with_the_context),
                TEST(test_partial_group_exits_3),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
