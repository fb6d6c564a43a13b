/* test-pmctl.c: the pmctl binary against a real pmapid, as a person or a debugger runs it: it sets
 * a program on a parked target process, the target touches a known number of fresh pages, and
 * pmctl's data, program and list output (text and JSON, parsed with json-glib) must show them;
 * start, stop, reset and delete change what is counted; process and descendant groups with their
 * flags; refusals, the no-context error and usage errors with their exit statuses
 * (man/pmapi-tools.7). A group's members, data -I and the partial group are test-pmctl-watch.c's;
 * -o FILE, --no-big-num, escaped thread names and the tools' output helpers, test-pmctl-output.c's. */
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
#include "macro.h"
#include "pmapi.h"
#include "target.h"
#include "text-table.h"
#include "tool-run.h"
#include "workload.h"

#define PAGES 1000

static BusFixture fixture;
static pm_info_t info;

/* The target (target.h): a root child process whose main thread relays commands to a worker; the
 * worker touches the pages it is told to. Parked threads take no user-mode page faults, so the
 * counts are exactly what the test asks for (+-2). */
static Target target;                   /* killed by each test's teardown, even after a failure */
#define PID (target.pid)
#define WORKER (target.tids[1])

static void start_target(void) {
        TargetIdentity root = TARGET_ROOT;
        assert_int_equal(target_start(&target, &root, 2), 0);
}

static void touch(size_t n) {
        assert_int_equal(target_touch(&target, 1, n), 0);
}

static int kill_target(void **state) {
        (void) state;
        target_kill(&target);
        /* pmapid drops the contexts of exited threads through their pidfds. */
        return wait_for_context_count(0, 2000);
}

/* pmctl through tool-run.c (as uid, 0: as we are; LC_ALL=C.UTF-8), with the words of format (split
 * at spaces) as its arguments; returns at once. What run held from an earlier run is freed. */
static void pmctl_start(ToolRun *run, uid_t uid, const char *format, ...)
        __attribute__((format(printf, 3, 4)));
static void pmctl_start(ToolRun *run, uid_t uid, const char *format, ...) {
        const char *pmctl = getenv("PMAPI_PMCTL");
        char words[512], *word, *next;
        const char *argv[32];
        int argc = 0;
        va_list ap;

        assert_non_null(pmctl);
        va_start(ap, format);
        vsnprintf(words, sizeof(words), format, ap);
        va_end(ap);
        argv[argc++] = pmctl;
        for (next = words; (word = strsep(&next, " ")) && argc < 31; )
                if (*word)
                        argv[argc++] = word;
        argv[argc] = NULL;
        tool_run_done(run);
        tool_run_start(run, uid, -1, argv);
}

/* Waits for the pmctl that pmctl_start() started and reads what it wrote; returns its status. */
static int pmctl_wait(ToolRun *run) {
        tool_run_wait(run);
        if (run->status != 0)
                printf("# pmctl -> %d\n# stderr: %s", run->status, run->err);
        return run->status;
}

/* Runs pmctl as uid with the words of format as its arguments. */
#define run_pmctl_as(uid, run, ...)                             \
        do {                                                    \
                pmctl_start(run, uid, __VA_ARGS__);             \
                (void) pmctl_wait(run);                         \
        } while (0)

#define run_pmctl(run, ...) run_pmctl_as(0, run, __VA_ARGS__)

/* Runs pmctl and expects it to succeed with nothing on stderr. */
#define pmctl_ok(run, ...)                                      \
        do {                                                    \
                run_pmctl(run, __VA_ARGS__);                    \
                assert_int_equal((run)->status, 0);             \
                assert_string_equal((run)->err, "");            \
        } while (0)

/* The JSON document pmctl printed; fails the test if it does not parse. */
static JsonNode *parse_json(const char *text) {
        g_autoptr(JsonParser) parser = json_parser_new();
        g_autoptr(GError) error = NULL;

        if (!json_parser_load_from_data(parser, text, -1, &error))
                fail_msg("pmctl printed no valid JSON (%s): %s", error->message, text);
        return json_node_copy(json_parser_get_root(parser));
}

static JsonObject *counter_at(JsonObject *doc, guint i) {
        JsonArray *counters = json_object_get_array_member(doc, "counters");
        assert_true(i < json_array_get_length(counters));
        return json_array_get_object_element(counters, i);
}

static long long now_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void test_set_and_data_count_the_pages_the_target_touches(void **state) {
        g_autoptr(JsonNode) root = NULL;
        char value[THOUSANDS_MAX], expect[64];
        long long before, after, n;
        JsonObject *doc, *c0;
        _cleanup_(tool_run_done) ToolRun run = {};

        (void) state;
        start_target();
        pmctl_ok(&run, "set %d %d -e PM_PAGE_FLT -m user,count", PID, WORKER);
        assert_string_equal(run.out, "");                       /* silent on success without --json */
        touch(PAGES);

        before = now_ns();
        pmctl_ok(&run, "--json data %d %d", PID, WORKER);
        after = now_ns();
        root = parse_json(run.out);
        doc = json_node_get_object(root);
        assert_int_equal(json_object_get_int_member(doc, "pid"), PID);
        assert_int_equal(json_object_get_int_member(doc, "tid"), WORKER);
        assert_false(json_object_get_boolean_member(doc, "group"));
        assert_true(json_object_get_boolean_member(doc, "counting"));
        assert_in_range(json_object_get_int_member(doc, "time_ns"), before, after);
        assert_int_equal(json_array_get_length(json_object_get_array_member(doc, "counters")), 1);
        c0 = counter_at(doc, 0);
        assert_int_equal(json_object_get_int_member(c0, "counter"), 0);
        assert_int_equal(json_object_get_int_member(c0, "id"), find_event_id(&info, "PM_PAGE_FLT"));
        assert_string_equal(json_object_get_string_member(c0, "name"), "PM_PAGE_FLT");
        n = json_object_get_int_member(c0, "value");
        printf("# %d pages touched, pmctl data reads %lld\n", PAGES, n);
        assert_in_range(n, PAGES - 2, PAGES + 2);

        /* The text form reads the same count (the worker is parked), with thousands separators. */
        pmctl_ok(&run, "data %d %d", PID, WORKER);
        snprintf(expect, sizeof(expect), "thread %d/%d at ", PID, WORKER);
        assert_true(strncmp(run.out, expect, strlen(expect)) == 0);
        snprintf(expect, sizeof(expect), "PM_PAGE_FLT  %5s\n", format_thousands(n, value)); /* >= "VALUE" */
        assert_non_null(strstr(run.out, expect));
}

static long long data_value(const char *options, guint counter) {
        g_autoptr(JsonNode) root = NULL;
        _cleanup_(tool_run_done) ToolRun run = {};

        pmctl_ok(&run, "--json %s data %d %d", options, PID, WORKER);
        root = parse_json(run.out);
        return json_object_get_int_member(counter_at(json_node_get_object(root), counter), "value");
}

static void assert_json_ok(const ToolRun *run) {
        g_autoptr(JsonNode) root = parse_json(run->out);
        assert_true(json_object_get_boolean_member(json_node_get_object(root), "ok"));
}

static void test_stop_reset_start_and_delete_change_what_is_counted(void **state) {
        _cleanup_(tool_run_done) ToolRun run = {};

        (void) state;
        start_target();
        pmctl_ok(&run, "set %d %d -e PM_PAGE_FLT", PID, WORKER);  /* default mode: user, not counting */
        touch(300);
        assert_int_equal(data_value("", 0), 0);
        pmctl_ok(&run, "--json start %d %d", PID, WORKER);
        assert_json_ok(&run);
        touch(PAGES);
        assert_in_range(data_value("", 0), PAGES - 2, PAGES + 2);
        pmctl_ok(&run, "stop %d %d", PID, WORKER);
        assert_string_equal(run.out, "");
        touch(200);
        assert_in_range(data_value("", 0), PAGES - 2, PAGES + 2);
        pmctl_ok(&run, "reset %d %d", PID, WORKER);
        assert_int_equal(data_value("", 0), 0);
        pmctl_ok(&run, "start %d %d", PID, WORKER);
        touch(100);
        assert_in_range(data_value("", 0), 98, 102);
        pmctl_ok(&run, "--json delete %d %d", PID, WORKER);
        assert_json_ok(&run);
        run_pmctl(&run, "data %d %d", PID, WORKER);
        assert_int_equal(run.status, 1);
}

static void test_program_shows_events_by_counter_mode_and_state(void **state) {
        g_autoptr(JsonNode) root = NULL;
        JsonObject *doc, *mode, *c;
        char expect[96];
        _cleanup_(tool_run_done) ToolRun run = {};

        (void) state;
        start_target();
        /* '-' leaves counter 0 empty; names are taken in any case, and ids as they are. */
        pmctl_ok(&run, "set %d %d -e -,pm_page_flt,%d -m user,kernel", PID, WORKER,
                 find_event_id(&info, "PM_MINOR_FLT"));
        pmctl_ok(&run, "--json program %d %d", PID, WORKER);
        root = parse_json(run.out);
        doc = json_node_get_object(root);
        mode = json_object_get_object_member(doc, "mode");
        assert_int_equal(json_object_get_int_member(mode, "value"), PM_USER | PM_KERNEL);
        assert_true(json_object_get_boolean_member(mode, "user"));
        assert_true(json_object_get_boolean_member(mode, "kernel"));
        assert_false(json_object_get_boolean_member(mode, "count"));
        assert_false(json_object_get_boolean_member(mode, "no_inherit"));
        assert_false(json_object_get_boolean_member(doc, "counting"));
        assert_int_equal(json_array_get_length(json_object_get_array_member(doc, "counters")), 2);
        c = counter_at(doc, 0);
        assert_int_equal(json_object_get_int_member(c, "counter"), 1);
        assert_string_equal(json_object_get_string_member(c, "name"), "PM_PAGE_FLT");
        assert_string_equal(json_object_get_string_member(c, "status"), "verified");
        c = counter_at(doc, 1);
        assert_int_equal(json_object_get_int_member(c, "counter"), 2);
        assert_string_equal(json_object_get_string_member(c, "name"), "PM_MINOR_FLT");

        pmctl_ok(&run, "program %d %d", PID, WORKER);
        snprintf(expect, sizeof(expect), "thread %d/%d: not counting, mode user,kernel (0xc)\n", PID, WORKER);
        assert_true(strncmp(run.out, expect, strlen(expect)) == 0);
        snprintf(expect, sizeof(expect), "  1  %2d  PM_PAGE_FLT   verified\n",
                 find_event_id(&info, "PM_PAGE_FLT"));
        assert_non_null(strstr(run.out, expect));
        pmctl_ok(&run, "start %d %d", PID, WORKER);
        pmctl_ok(&run, "program %d %d", PID, WORKER);
        assert_non_null(strstr(run.out, ": counting, mode user,kernel,count (0xe)\n"));
}

/* The entry of a --json list for thread tid, or NULL. */
static JsonObject *list_entry(JsonArray *list, pid_t tid) {
        for (guint i = 0; i < json_array_get_length(list); i++) {
                JsonObject *e = json_array_get_object_element(list, i);
                if (json_object_get_int_member(e, "tid") == tid)
                        return e;
        }
        return NULL;
}

/* s with each run of spaces made one, and none at the start of a line: table cells, one space apart. */
static char *squeeze_spaces(char *s) {
        char *o = s;

        for (const char *p = s; *p; p++)
                if (*p != ' ' || (o > s && o[-1] != ' ' && o[-1] != '\n'))
                        *o++ = *p;
        *o = '\0';
        return s;
}

static void test_list_shows_the_context_with_its_pid_tid_and_origin(void **state) {
        g_autoptr(JsonNode) root = NULL;
        JsonArray *list;
        JsonObject *e;
        char expect[160];
        _cleanup_(tool_run_done) ToolRun run = {};

        (void) state;
        start_target();
        pmctl_ok(&run, "--json list");
        g_clear_pointer(&root, json_node_unref);
        root = parse_json(run.out);
        assert_int_equal(json_array_get_length(json_node_get_array(root)), 0);

        pmctl_ok(&run, "set %d %d -e PM_PAGE_FLT -m user,count", PID, WORKER);
        pmctl_ok(&run, "--json list");
        g_clear_pointer(&root, json_node_unref);
        root = parse_json(run.out);
        list = json_node_get_array(root);
        assert_int_equal(json_array_get_length(list), 1);
        assert_null(list_entry(list, PID));                  /* the main thread has none */
        e = list_entry(list, WORKER);
        assert_non_null(e);
        assert_int_equal(json_object_get_int_member(e, "pid"), PID);
        assert_int_equal(json_object_get_int_member(e, "owner_uid"), 0);
        assert_int_equal(json_object_get_int_member(e, "target_uid"), 0);
        assert_string_equal(json_object_get_string_member(e, "origin"), "SetProgram");
        assert_true(json_object_get_boolean_member(e, "counting"));
        assert_true(json_object_get_null_member(e, "group"));
        assert_string_equal(json_object_get_string_member(e, "comm"), "test-pmctl");   /* forked only */

        /* The text table says the same, one line per context under the header. */
        pmctl_ok(&run, "list");
        snprintf(expect, sizeof(expect), "PID TID COMM OWNER TARGET CREATOR ORIGIN COUNTING GROUP\n"
                 "%d %d test-pmctl 0 0 %d SetProgram yes -\n", PID, WORKER,
                 (int) json_object_get_int_member(e, "creator_pid"));
        assert_string_equal(squeeze_spaces(run.out), expect);
}

static void test_process_group_reads_every_thread_with_members_and_flags(void **state) {
        g_autoptr(JsonNode) root = NULL, list = NULL;
        JsonObject *doc, *main_entry, *worker_entry;
        _cleanup_(tool_run_done) ToolRun run = {};

        (void) state;
        start_target();
        /* TID defaults to PID: the group is set on the main thread, and takes in the worker. */
        pmctl_ok(&run, "--group set %d -e PM_PAGE_FLT,PM_MINOR_FLT -m user,count,process", PID);
        touch(PAGES);
        pmctl_ok(&run, "--group --json data %d", PID);
        root = parse_json(run.out);
        doc = json_node_get_object(root);
        assert_true(json_object_get_boolean_member(doc, "group"));
        assert_int_equal(json_object_get_int_member(doc, "tid"), PID);
        assert_int_equal(json_object_get_int_member(doc, "members"), 2);
        assert_true(json_object_get_boolean_member(doc, "consistent"));
        assert_true(json_object_get_boolean_member(doc, "process"));
        assert_in_range(json_object_get_int_member(counter_at(doc, 0), "value"), PAGES - 2, PAGES + 2);
        assert_in_range(json_object_get_int_member(counter_at(doc, 1), "value"), PAGES - 2, PAGES + 2);
        pmctl_ok(&run, "--group data %d", PID);
        assert_non_null(strstr(run.out, "counting, 2 members, consistent, process group\n"));

        pmctl_ok(&run, "--json list");
        list = parse_json(run.out);
        main_entry = list_entry(json_node_get_array(list), PID);
        worker_entry = list_entry(json_node_get_array(list), WORKER);
        assert_non_null(main_entry);
        assert_non_null(worker_entry);
        assert_string_equal(json_object_get_string_member(main_entry, "origin"), "SetGroupProgram");
        assert_int_equal(json_object_get_int_member(main_entry, "group"),
                         json_object_get_int_member(worker_entry, "group"));
        assert_true(json_object_get_int_member(main_entry, "group") > 0);

        pmctl_ok(&run, "--group program %d", PID);
        assert_non_null(strstr(run.out, "mode user,count,process (0x16)"));
        pmctl_ok(&run, "--group delete %d", PID);
        assert_int_equal(wait_for_context_count(0, 2000), 0);
}

static void test_descendant_group_on_one_thread(void **state) {
        g_autoptr(JsonNode) root = NULL;
        JsonObject *doc;
        _cleanup_(tool_run_done) ToolRun run = {};

        (void) state;
        start_target();
        pmctl_ok(&run, "-g set %d %d -e PM_PAGE_FLT -m user,count", PID, WORKER);
        touch(PAGES);
        pmctl_ok(&run, "-g -j data %d %d", PID, WORKER);
        root = parse_json(run.out);
        doc = json_node_get_object(root);
        assert_int_equal(json_object_get_int_member(doc, "members"), 1);
        assert_false(json_object_get_boolean_member(doc, "process"));
        assert_in_range(json_object_get_int_member(counter_at(doc, 0), "value"), PAGES - 2, PAGES + 2);
        /* A group reset with one member keeps the group consistent; the thread's own data reads 0. */
        pmctl_ok(&run, "--group reset %d %d", PID, WORKER);
        assert_int_equal(data_value("--group", 0), 0);
        assert_int_equal(data_value("", 0), 0);
}

static void test_thread_without_context_fails_with_the_no_context_message(void **state) {
        g_autoptr(JsonNode) root = NULL;
        JsonObject *doc;
        char expect[160];
        _cleanup_(tool_run_done) ToolRun run = {};

        (void) state;
        start_target();
        run_pmctl(&run, "data %d", PID);
        assert_int_equal(run.status, 1);
        assert_string_equal(run.out, "");
        snprintf(expect, sizeof(expect), "pmctl: data %d/%d: %s\n", PID, PID,
                 pm_strerror(NULL, PM_ENOCONTEXT));
        assert_string_equal(run.err, expect);

        run_pmctl(&run, "--json stop %d %d", PID, WORKER);
        assert_int_equal(run.status, 1);
        root = parse_json(run.out);
        doc = json_node_get_object(root);
        assert_false(json_object_get_boolean_member(doc, "ok"));
        assert_int_equal(json_object_get_int_member(doc, "error"), PM_ENOCONTEXT);
        assert_string_equal(json_object_get_string_member(doc, "message"), pm_strerror(NULL, PM_ENOCONTEXT));
}

static void test_refusal_names_its_reason_and_list_hides_other_users(void **state) {
        char expect[200];
        _cleanup_(tool_run_done) ToolRun run = {};

        (void) state;
        start_target();                                       /* a root target */
        pmctl_ok(&run, "set %d %d -e PM_PAGE_FLT", PID, WORKER);
        run_pmctl_as(65534, &run, "data %d %d", PID, WORKER);
        assert_int_equal(run.status, 1);
        snprintf(expect, sizeof(expect), "pmctl: data %d/%d: %s\n", PID, WORKER,
                 pm_strerror(NULL, PM_ENOTOWNER));
        assert_string_equal(run.err, expect);
        run_pmctl_as(65534, &run, "--json list");
        assert_int_equal(run.status, 0);
        assert_string_equal(run.out, "[]\n");
}

static void test_bad_usage_exits_2_and_changes_nothing(void **state) {
        static const char *const bad[] = {
                "", "frobnicate 1", "--bogus list", "-x data 1", "data", "data abc", "data 0", "data 12x",
                "data +5", "data 1 2 3", "set 1", "data 1 -e PM_PAGE_FLT", "start 1 -m user", "list 1",
                "--group list", "set 1 -e", "members", "members 1 2 3", "data -I 9 1", "data -I x 1",
                "data -I 10 -c 0 1", "data -c 3 1", "program -I 100 1", "members -I 100 1", "list -c 1",
                "-o", "data -I", "--no-big-num",
        };
        /* Wrong only once the catalog is read: still usage errors, and no context is made. */
        static const char *const bad_program[] = {
                "-e NO_SUCH_EVENT", "-e PM_PAGE_FLT,,PM_MINOR_FLT", "-e 1,2,3,4,5,6,7,8,9",
                "-e PM_PAGE_FLT -m sideways",
        };
        _cleanup_(tool_run_done) ToolRun run = {};

        (void) state;
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                run_pmctl(&run, "%s", bad[i]);
                assert_int_equal(run.status, 2);
                assert_string_equal(run.out, "");
                assert_true(strncmp(run.err, "pmctl: ", 7) == 0);
        }
        start_target();
        for (size_t i = 0; i < sizeof(bad_program) / sizeof(bad_program[0]); i++) {
                run_pmctl(&run, "--json set %d %s", PID, bad_program[i]);
                assert_int_equal(run.status, 2);
                assert_string_equal(run.out, "");
                assert_true(strncmp(run.err, "pmctl: set", 10) == 0);
        }
        assert_int_equal(wait_for_context_count(0, 0), 0);

        run_pmctl(&run, "--help");
        assert_int_equal(run.status, 0);
        assert_true(strncmp(run.out, "Usage: pmctl", 12) == 0);
        run_pmctl(&run, "--version");
        assert_int_equal(run.status, 0);
        assert_string_equal(run.out, "pmctl (pmapi) " PMAPI_VERSION "\n");
}

static int setup(void **state) {
        static const char *const shared[] = { "PMAPI_PMCTL", NULL };
        int r;

        (void) state;
        r = bus_fixture_start(&fixture, NULL);
        if (r == 0)
                r = bus_fixture_share_programs(&fixture, shared);
        return r == 0 ? pm_init(PM_VERIFIED, &info) : r;
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

#define TEST(f) cmocka_unit_test_teardown(f, kill_target)

int main(void) {
        const struct CMUnitTest tests[] = {
                TEST(test_set_and_data_count_the_pages_the_target_touches),
                TEST(test_stop_reset_start_and_delete_change_what_is_counted),
                TEST(test_program_shows_events_by_counter_mode_and_state),
                TEST(test_list_shows_the_context_with_its_pid_tid_and_origin),
                TEST(test_process_group_reads_every_thread_with_members_and_flags),
                TEST(test_descendant_group_on_one_thread),
                TEST(test_thread_without_context_fails_with_the_no_context_message),
                TEST(test_refusal_names_its_reason_and_list_hides_other_users),
                TEST(test_bad_usage_exits_2_and_changes_nothing),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
