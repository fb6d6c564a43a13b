/* test-pmu-tools.c: pmcount on a real PMU, where one exists (the arm64 guest; skipped on a machine
 * with software events only). Alone, a command's maxpmcs PMU events count all the time, the loop's
 * instructions and more. With a system-wide context of maxpmcs PMU events holding every CPU's
 * counters, the command's group never gets on the PMU (the kernel schedules a CPU's groups before a
 * thread's and rotates groups only within one context): pmcount must say "<not counted>" (text)
 * and counted false with running_ns 0 (JSON), as perf stat does, never a number. The command is
 * this program again, running the loop. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "pmapi.h"
#include "pmu-workload.h"
#include "tool-run.h"
#include "workload.h"

#define ITERATIONS 20000000ull          /* 40,000,000 instructions: 40 ms in the guest */

static BusFixture fixture;
static pm_info_t info;
static char self[4096];

static void test_pmcount_says_when_the_pmu_is_taken(void **state) {
        const char *names[MAX_COUNTERS];
        int ids[MAX_COUNTERS], inst = find_event_id(&info, "PM_INST_CMPL"), n, rc;
        char events[1024] = "PM_INST_CMPL";
        g_autoptr(JsonNode) root = NULL, alone = NULL;
        JsonArray *list;
        JsonObject *e0;
        pm_prog_t prog = { .mode.w = PM_USER | PM_COUNT };
        ToolRun r = {};
        double exact = 2.0 * ITERATIONS;

        (void) state;
        if (inst < 0) {
                print_message("# SKIP: no CPU PMU here (software events only)\n");
                skip();
        }
        n = pmu_natives(&info, inst, inst, ids, names, info.maxpmcs - 1);
        assert_int_equal(n, info.maxpmcs - 1);
        for (int i = 0; i < n; i++) {
                strcat(events, ",");
                strcat(events, names[i]);
        }

        /* Alone, the command's instructions: the loop's and its start-up's. */
        tool_runf(&r, 0, NULL, getenv("PMAPI_PMCOUNT"), "--json -e %s -- %s loop %llu", events, self, ITERATIONS);
        assert_int_equal(r.status, 0);
        alone = parse_json(r.err);              /* pmcount reports on stderr, as perf stat does */
        e0 = json_array_get_object_element(json_object_get_array_member(json_node_get_object(alone), "events"), 0);
        print_message("# pmcount -e %s alone: PM_INST_CMPL %lld for a loop of %.0f, %.2f %% of the time\n", events,
                      (long long) json_object_get_int_member(e0, "count"), exact,
                      json_object_get_double_member(e0, "percent_running"));
        assert_true(json_object_get_boolean_member(e0, "counted"));
        assert_true(json_object_get_int_member(e0, "count") >= (gint64) exact);
        assert_true(json_object_get_double_member(e0, "percent_running") == 100.0);

        /* Every CPU's counters taken by a system-wide program of as many events: the kernel schedules
         * a CPU's groups before a thread's and rotates groups only within one context, so the
         * command's group never gets on the PMU. pmcount must say so, not print a number. */
        for (int c = 0; c < MAX_COUNTERS; c++)
                prog.events[c] = c < n + 1 ? (c == 0 ? inst : ids[c - 1]) : COUNT_NOTHING;
        rc = pm_set_program(&prog);
        if (rc != 0)
                print_message("# pm_set_program of %s: %s\n", events, pm_strerror(NULL, rc));
        assert_int_equal(rc, 0);
        tool_runf(&r, 0, NULL, getenv("PMAPI_PMCOUNT"), "--json -e %s -- %s loop %llu", events, self, ITERATIONS);
        assert_int_equal(r.status, 0);
        root = parse_json(r.err);
        list = json_object_get_array_member(json_node_get_object(root), "events");
        assert_int_equal(json_array_get_length(list), (guint) n + 1);
        for (guint i = 0; i < json_array_get_length(list); i++) {
                JsonObject *e = json_array_get_object_element(list, i);

                assert_false(json_object_get_boolean_member(e, "counted"));
                assert_int_equal(json_object_get_int_member(e, "running_ns"), 0);
                assert_true(json_object_get_int_member(e, "enabled_ns") > 0);
        }
        tool_runf(&r, 0, NULL, getenv("PMAPI_PMCOUNT"), "-e %s -- %s loop %llu", events, self, ITERATIONS);
        assert_int_equal(r.status, 0);
        print_message("%s", r.err);
        assert_non_null(strstr(r.err, "<not counted>"));
        tool_run_done(&r);
        assert_int_equal(pm_delete_program(), 0);
}

static int setup(void **state) {
        ssize_t l;

        (void) state;
        l = readlink("/proc/self/exe", self, sizeof(self) - 1);
        if (l <= 0)
                return -1;
        self[l] = '\0';
        if (bus_fixture_start(&fixture, NULL) != 0)
                return -1;
        return pm_init(PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT, &info) == 0 ? 0 : -1;
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(int argc, char **argv) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_pmcount_says_when_the_pmu_is_taken),
        };

        if (argc == 3 && strcmp(argv[1], "loop") == 0) {        /* the command pmcount counts */
                known_loop(strtoull(argv[2], NULL, 10));
                return 0;
        }
        return cmocka_run_group_tests(tests, setup, teardown);
}
