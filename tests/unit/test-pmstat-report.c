/* test-pmstat-report.c: pmstat's report (pmstat-report.c) of a made-up interval on two CPUs, as a
 * machine without a PMU never multiplexes a counter: CPU 0 counted all of its enabled time (no
 * note), CPU 1 49.97 % of it (its row ends with "(49.97%)") or none of it (its counts read
 * "<not counted>"), and the total row has the share of the CPUs' times added up. The same in the
 * CSV columns enabled_ns, running_ns and percent_running, and in JSON's members of each CPU and
 * the block's total_times. */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-glib/json-glib.h>

#include "csv-read.h"
#include "pmstat.h"

static char name[] = "PM_CYCLES", description[] = "";
static const pm_events_t cycles = { 1, PM_VERIFIED, 'n', name, name, description };
static const Event events[] = { { .counter = 0, .desc = &cycles } };

static const CountTime full = { 1000000000, 1000000000 }, half = { 1000000, 499700 }, none = { 1000000, 0 };

/* One interval from the start: CPU 0 counted 1,234,567 all the time, CPU 1 cpu1_count in cpu1. */
static char *write_interval(Format format, long long cpu1_count, CountTime cpu1) {
        Options o = { .mode = PM_USER, .interval_ms = 100, .count = 1, .format = format, .separator = "," };
        Sample *before, *now;
        Report *r;
        size_t size;
        char *text;
        FILE *f = open_memstream(&text, &size);

        assert_non_null(f);
        assert_int_equal(sample_new(2, &before), 0);
        assert_int_equal(sample_new(2, &now), 0);
        now->time_ns = 100000000;
        for (int c = 0; c < 2; c++)
                now->counted[c] = now->online[c] = true;
        now->counts[0][0] = 1234567;
        now->time[0] = full;
        now->counts[1][0] = cpu1_count;
        now->time[1] = cpu1;
        assert_int_equal(report_new(&o, f, events, 1, &r), 0);
        report_begin(r, 0);
        report_interval(r, 1, before, now);
        assert_int_equal(report_finish(r, NULL), 0);
        report_free(r);
        sample_free(before);
        sample_free(now);
        assert_int_equal(fclose(f), 0);
        printf("%s", text);
        return text;
}

static void test_text_rows(void **state) {
        g_autofree char *partial = NULL, *not_counted = NULL;

        (void) state;
        assert_non_null(setlocale(LC_ALL, "C"));
        partial = write_interval(FORMAT_TEXT, 617, half);
        assert_non_null(strstr(partial, "\n0      1,234,567\n"));         /* all the time: no note */
        assert_non_null(strstr(partial, "\n1            617  (49.97%)\n"));
        /* The total's share: the CPUs' running over their enabled times, added up. */
        assert_non_null(strstr(partial, "\ntotal  1,235,184  (99.95%)\n"));

        not_counted = write_interval(FORMAT_TEXT, 0, none);
        assert_non_null(strstr(not_counted, "\n1      <not counted>\n"));
        assert_non_null(strstr(not_counted, "\ntotal      1,234,567  (99.90%)\n"));
}

static void test_csv_rows(void **state) {
        g_autofree char *text = NULL;
        char ***rows;

        (void) state;
        text = write_interval(FORMAT_CSV, 0, none);
        rows = csv_read(text);
        assert_int_equal(g_strv_length(rows[0]), 8);
        assert_string_equal(rows[0][4], "PM_CYCLES");
        assert_string_equal(rows[0][5], "enabled_ns");
        assert_string_equal(rows[0][6], "running_ns");
        assert_string_equal(rows[0][7], "percent_running");
        assert_string_equal(rows[1][2], "0");
        assert_string_equal(rows[1][5], "1000000000");
        assert_string_equal(rows[1][7], "100.00");
        assert_string_equal(rows[2][2], "1");
        assert_string_equal(rows[2][4], "0");                  /* <not counted> stays a number */
        assert_string_equal(rows[2][5], "1000000");
        assert_string_equal(rows[2][6], "0");
        assert_string_equal(rows[2][7], "0.00");
        assert_string_equal(rows[3][2], "total");
        assert_string_equal(rows[3][5], "1001000000");
        assert_string_equal(rows[3][6], "1000000000");
        assert_string_equal(rows[3][7], "99.90");
        csv_read_free(rows);
        free(g_steal_pointer(&text));

        text = write_interval(FORMAT_CSV, 617, half);
        rows = csv_read(text);
        assert_string_equal(rows[2][6], "499700");
        assert_string_equal(rows[2][7], "49.97");
        csv_read_free(rows);
}

static void test_json_rows(void **state) {
        g_autoptr(JsonParser) parser = json_parser_new();
        g_autofree char *text = NULL;
        g_auto(GStrv) lines = NULL;
        JsonObject *block, *cpu1, *total;

        (void) state;
        text = write_interval(FORMAT_JSON, 0, none);
        lines = g_strsplit(text, "\n", -1);
        assert_true(json_parser_load_from_data(parser, lines[1], -1, NULL));
        block = json_object_get_object_member(json_node_get_object(json_parser_get_root(parser)), "interval");
        cpu1 = json_array_get_object_element(json_object_get_array_member(block, "cpus"), 1);
        assert_int_equal(json_object_get_int_member(cpu1, "cpu"), 1);
        assert_int_equal(json_object_get_int_member(json_object_get_object_member(cpu1, "counts"),
                                                    "PM_CYCLES"), 0);
        assert_int_equal(json_object_get_int_member(cpu1, "enabled_ns"), 1000000);
        assert_int_equal(json_object_get_int_member(cpu1, "running_ns"), 0);
        assert_true(json_object_get_double_member(cpu1, "percent_running") == 0.0);
        assert_false(json_object_get_boolean_member(cpu1, "counted"));
        assert_true(json_object_get_boolean_member(json_array_get_object_element(
                json_object_get_array_member(block, "cpus"), 0), "counted"));
        /* total keeps one member per event; its times are beside it. */
        assert_int_equal(json_object_get_size(json_object_get_object_member(block, "total")), 1);
        total = json_object_get_object_member(block, "total_times");
        assert_int_equal(json_object_get_int_member(total, "enabled_ns"), 1001000000);
        assert_int_equal(json_object_get_int_member(total, "running_ns"), 1000000000);
        assert_true(json_object_get_double_member(total, "percent_running") == 99.9);
        assert_true(json_object_get_boolean_member(total, "counted"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_text_rows),
                cmocka_unit_test(test_csv_rows),
                cmocka_unit_test(test_json_rows),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
