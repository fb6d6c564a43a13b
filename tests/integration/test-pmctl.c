/* test-pmctl.c: the pmctl binary against a real pmapid, as a person or a debugger runs it: it sets
 * a program on a parked target process, the target touches a known number of fresh pages, and
 * pmctl's data, program and list output (text and JSON, parsed with json-glib) must show them;
 * start, stop, reset and delete change what is counted; a group program (AIX's predefined event
 * groups) shown by its group's events; process and descendant groups with their
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
#include "text-table.h"
#include "pmctl-target.h"
#include "tool-run.h"
#include "workload.h"

#define PAGES 1000

static BusFixture fixture;
static pm_info_t info;

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
        tool_target_start();
        pmctl_ok(&run, "set %d %d -e PM_PAGE_FLT -m user,count", PID, WORKER);
        assert_string_equal(run.out, "");                       /* silent on success without --json */
        tool_target_touch(PAGES);

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

static void assert_json_ok(const ToolRun *run) {
        g_autoptr(JsonNode) root = parse_json(run->out);
        assert_true(json_object_get_boolean_member(json_node_get_object(root), "ok"));
}

static void test_stop_reset_start_and_delete_change_what_is_counted(void **state) {
        _cleanup_(tool_run_done) ToolRun run = {};

        (void) state;
        tool_target_start();
        pmctl_ok(&run, "set %d %d -e PM_PAGE_FLT", PID, WORKER);  /* default mode: user, not counting */
        tool_target_touch(300);
        assert_int_equal(pmctl_data_value("", 0), 0);
        pmctl_ok(&run, "--json start %d %d", PID, WORKER);
        assert_json_ok(&run);
        tool_target_touch(PAGES);
        assert_in_range(pmctl_data_value("", 0), PAGES - 2, PAGES + 2);
        pmctl_ok(&run, "stop %d %d", PID, WORKER);
        assert_string_equal(run.out, "");
        tool_target_touch(200);
        assert_in_range(pmctl_data_value("", 0), PAGES - 2, PAGES + 2);
        pmctl_ok(&run, "reset %d %d", PID, WORKER);
        assert_int_equal(pmctl_data_value("", 0), 0);
        pmctl_ok(&run, "start %d %d", PID, WORKER);
        tool_target_touch(100);
        assert_in_range(pmctl_data_value("", 0), 98, 102);
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
        tool_target_start();
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

/* A group program (mode.b.is_group, the group's id in events[0]) counts the group's events: pmctl
 * names them, counter by counter, where the program's words say only "id 0". pmctl set cannot make
 * one, so this test's own thread sets it on the target: group 0, pm_faults. */
static void test_group_program_shows_the_groups_events(void **state) {
        static const char *const names[] = { "PM_PAGE_FLT", "PM_MINOR_FLT", "PM_MAJOR_FLT" };
        g_autoptr(JsonNode) root = NULL, data = NULL;
        pm_prog_t prog = { .mode.w = PM_USER | PM_COUNT };
        JsonObject *doc, *c;
        pm_info_t all;
        _cleanup_(tool_run_done) ToolRun run = {};

        (void) state;
        assert_int_equal(pm_init(PM_VERIFIED | PM_CAVEAT | PM_UNVERIFIED, &all), 0);
        tool_target_start();
        for (int i = 0; i < MAX_COUNTERS; i++)
                prog.events[i] = COUNT_NOTHING;
        prog.mode.b.is_group = 1;
        prog.events[0] = 0;
        assert_int_equal(pm_set_program_thread(PID, WORKER, &prog), 0);
        tool_target_touch(PAGES);

        pmctl_ok(&run, "--json program %d %d", PID, WORKER);
        root = parse_json(run.out);
        doc = json_node_get_object(root);
        assert_int_equal(json_array_get_length(json_object_get_array_member(doc, "counters")), 3);
        for (guint i = 0; i < 3; i++) {
                c = counter_at(doc, i);
                assert_int_equal(json_object_get_int_member(c, "counter"), i);
                assert_string_equal(json_object_get_string_member(c, "name"), names[i]);
                assert_int_equal(json_object_get_int_member(c, "id"), find_event_id(&all, names[i]));
        }
        /* The text and the data name them too, and the data are the group's counts. */
        pmctl_ok(&run, "program %d %d", PID, WORKER);
        for (int i = 0; i < 3; i++)
                assert_non_null(strstr(run.out, names[i]));
        assert_null(strstr(run.out, "PM_TASK_CLOCK"));
        pmctl_ok(&run, "--json data %d %d", PID, WORKER);
        data = parse_json(run.out);
        doc = json_node_get_object(data);
        assert_string_equal(json_object_get_string_member(counter_at(doc, 0), "name"), "PM_PAGE_FLT");
        assert_in_range(json_object_get_int_member(counter_at(doc, 0), "value"), PAGES - 2, PAGES + 2);
        assert_string_equal(json_object_get_string_member(counter_at(doc, 1), "name"), "PM_MINOR_FLT");
        assert_int_equal(json_object_get_int_member(counter_at(doc, 1), "value"),
                         json_object_get_int_member(counter_at(doc, 0), "value"));
        assert_int_equal(json_object_get_int_member(counter_at(doc, 2), "value"), 0);
}

static void test_list_shows_the_context_with_its_pid_tid_and_origin(void **state) {
        g_autoptr(JsonNode) root = NULL;
        JsonArray *list;
        JsonObject *e;
        char expect[160];
        _cleanup_(tool_run_done) ToolRun run = {};

        (void) state;
        tool_target_start();
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
        tool_target_start();
        /* TID defaults to PID: the group is set on the main thread, and takes in the worker. */
        pmctl_ok(&run, "--group set %d -e PM_PAGE_FLT,PM_MINOR_FLT -m user,count,process", PID);
        tool_target_touch(PAGES);
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
        tool_target_start();
        pmctl_ok(&run, "-g set %d %d -e PM_PAGE_FLT -m user,count", PID, WORKER);
        tool_target_touch(PAGES);
        pmctl_ok(&run, "-g -j data %d %d", PID, WORKER);
        root = parse_json(run.out);
        doc = json_node_get_object(root);
        assert_int_equal(json_object_get_int_member(doc, "members"), 1);
        assert_false(json_object_get_boolean_member(doc, "process"));
        assert_in_range(json_object_get_int_member(counter_at(doc, 0), "value"), PAGES - 2, PAGES + 2);
        /* A group reset with one member keeps the group consistent; the thread's own data reads 0. */
        pmctl_ok(&run, "--group reset %d %d", PID, WORKER);
        assert_int_equal(pmctl_data_value("--group", 0), 0);
        assert_int_equal(pmctl_data_value("", 0), 0);
}

static void test_thread_without_context_fails_with_the_no_context_message(void **state) {
        g_autoptr(JsonNode) root = NULL;
        JsonObject *doc;
        char expect[160];
        _cleanup_(tool_run_done) ToolRun run = {};

        (void) state;
        tool_target_start();
        run_pmctl(&run, "data %d", PID);
        assert_int_equal(run.status, 1);
        assert_string_equal(run.out, "");
        snprintf(expect, sizeof(expect), "pmctl: data %d/%d: %s (", PID, PID,
                 pm_strerror(NULL, PM_ENOCONTEXT));
        /* pm_error's line: the message, then pmapid's own reason in parentheses. */
        assert_true(g_str_has_prefix(run.err, expect) && g_str_has_suffix(run.err, ")\n"));

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
        tool_target_start();                                  /* a root target */
        pmctl_ok(&run, "set %d %d -e PM_PAGE_FLT", PID, WORKER);
        tool_runf(&run, 65534, NULL, PMCTL, "data %d %d", PID, WORKER);
        assert_int_equal(run.status, 1);
        snprintf(expect, sizeof(expect), "pmctl: data %d/%d: %s (", PID, WORKER,
                 pm_strerror(NULL, PM_ENOTOWNER));
        /* pm_error's line: the message, then pmapid's own reason in parentheses. */
        assert_true(g_str_has_prefix(run.err, expect) && g_str_has_suffix(run.err, ")\n"));
        tool_runf(&run, 65534, NULL, PMCTL, "--json list");
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
        tool_target_start();
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
                TEST(test_set_and_data_count_the_pages_the_target_touches),
                TEST(test_stop_reset_start_and_delete_change_what_is_counted),
                TEST(test_program_shows_events_by_counter_mode_and_state),
                TEST(test_group_program_shows_the_groups_events),
                TEST(test_list_shows_the_context_with_its_pid_tid_and_origin),
                TEST(test_process_group_reads_every_thread_with_members_and_flags),
                TEST(test_descendant_group_on_one_thread),
                TEST(test_thread_without_context_fails_with_the_no_context_message),
                TEST(test_refusal_names_its_reason_and_list_hides_other_users),
                TEST(test_bad_usage_exits_2_and_changes_nothing),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
