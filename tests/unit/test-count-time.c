/* test-count-time.c: the multiplexing note of pmcount and pmstat (count-time.c) with made-up
 * times, since no counter on a machine without a PMU is ever multiplexed: a count that ran all of
 * its enabled time (or was never enabled) has no note, one that ran 49.97 % of it "(49.97%)", one
 * that never ran "<not counted>" in place of its count; CSV and JSON carry the times, the
 * percentage with two decimals and, in JSON, whether it was counted. */
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

#include "count-time.h"
#include "csv-read.h"

static const CountTime full = { .enabled_ns = 2000000000ULL, .running_ns = 2000000000ULL };
static const CountTime half = { .enabled_ns = 1000000, .running_ns = 499700 };     /* 49.97 % */
static const CountTime none = { .enabled_ns = 1000000, .running_ns = 0 };
static const CountTime never_enabled = { 0, 0 };

static pm_accu_time_t accu(unsigned long long enabled, unsigned long long running) {
        pm_accu_time_t t = {};

        t.accu_purr = (timebasestruct_t) { PM_TB_MONOTONIC_NS, (unsigned) (enabled >> 32),
                                           (unsigned) enabled };
        t.accu_timebase = (timebasestruct_t) { PM_TB_MONOTONIC_NS, (unsigned) (running >> 32),
                                               (unsigned) running };
        return t;
}

static void test_times_come_from_the_accu_fields(void **state) {
        pm_accu_time_t t = accu(0x123456789ULL, 0x23456789ULL);
        CountTime c = count_time_from_accu(&t), sum = {};

        (void) state;
        assert_int_equal(c.enabled_ns, 0x123456789ULL);        /* accu_purr: enabled, past 32 bits */
        assert_int_equal(c.running_ns, 0x23456789ULL);         /* accu_timebase: on the PMU */
        c = count_time_since((CountTime) { 3000, 2000 }, (CountTime) { 1000, 500 });
        assert_int_equal(c.enabled_ns, 2000);
        assert_int_equal(c.running_ns, 1500);
        /* A reset between the reads: the later read is all there is. */
        c = count_time_since((CountTime) { 300, 200 }, (CountTime) { 1000, 500 });
        assert_int_equal(c.enabled_ns, 300);
        assert_int_equal(c.running_ns, 200);
        count_time_add(&sum, half);
        count_time_add(&sum, none);
        assert_int_equal(sum.enabled_ns, 2000000);
        assert_int_equal(sum.running_ns, 499700);
}

static void test_which_counts_get_a_note(void **state) {
        (void) state;
        assert_false(count_time_partial(full));
        assert_false(count_time_not_counted(full));
        assert_true(count_time_partial(half));
        assert_false(count_time_not_counted(half));
        assert_false(count_time_partial(none));
        assert_true(count_time_not_counted(none));
        /* Never enabled (a stopped context): nothing to miss, no note, 100 % as perf says. */
        assert_false(count_time_partial(never_enabled));
        assert_false(count_time_not_counted(never_enabled));
        assert_true(count_time_percent(never_enabled) == 100.0);
        assert_true(count_time_percent(full) == 100.0);
        assert_true(count_time_percent(none) == 0.0);
}

static void test_text_note_and_count(void **state) {
        char note[COUNT_TIME_NOTE_MAX], value[THOUSANDS_MAX];

        (void) state;
        assert_non_null(setlocale(LC_ALL, "C"));
        assert_string_equal(count_time_format_note(full, note), "");
        assert_string_equal(count_time_format_note(half, note), "(49.97%)");
        assert_string_equal(count_time_format_note(none, note), "");
        assert_string_equal(count_time_format_note(never_enabled, note), "");
        assert_string_equal(count_time_format_note((CountTime) { 1000000, 1 }, note), "(0.00%)");
        assert_string_equal(count_time_format_count(full, 1234567, value), "1,234,567");
        assert_string_equal(count_time_format_count(half, 1234567, value), "1,234,567");
        assert_string_equal(count_time_format_count(none, 0, value), "<not counted>");
        assert_string_equal(count_time_format_count(never_enabled, 0, value), "0");
}

static char *csv_of(const CountTime *times[], size_t n) {
        size_t size;
        CsvWriter w;
        char *out;
        FILE *f = open_memstream(&out, &size);

        assert_non_null(f);
        csv_writer_init(&w, f);
        count_time_csv_header(&w);
        csv_end_row(&w);
        for (size_t i = 0; i < n; i++) {
                csv_field(&w, "row");
                count_time_csv_fields(&w, times[i]);
                csv_end_row(&w);
        }
        assert_int_equal(csv_writer_finish(&w), 0);
        assert_int_equal(fclose(f), 0);
        return out;
}

/* Plain numbers whatever the locale; a row without a count has three empty fields. */
static void test_csv_fields(void **state) {
        const CountTime *times[] = { &full, &half, &none, &never_enabled, NULL };
        g_autofree char *out = NULL;
        char ***rows;

        (void) state;
        if (!setlocale(LC_NUMERIC, "de_DE.UTF-8"))
                (void) setlocale(LC_NUMERIC, "C");
        out = csv_of(times, 5);
        setlocale(LC_ALL, "C");
        printf("%s", out);
        rows = csv_read(out);
        assert_string_equal(rows[0][0], "enabled_ns");
        assert_string_equal(rows[0][1], "running_ns");
        assert_string_equal(rows[0][2], "percent_running");
        assert_string_equal(rows[1][1], "2000000000");
        assert_string_equal(rows[1][2], "2000000000");
        assert_string_equal(rows[1][3], "100.00");
        assert_string_equal(rows[2][1], "1000000");
        assert_string_equal(rows[2][2], "499700");
        assert_string_equal(rows[2][3], "49.97");
        assert_string_equal(rows[3][2], "0");
        assert_string_equal(rows[3][3], "0.00");
        assert_string_equal(rows[4][1], "0");
        assert_string_equal(rows[4][3], "100.00");
        assert_int_equal(g_strv_length(rows[5]), 4);
        for (int i = 1; i < 4; i++)
                assert_string_equal(rows[5][i], "");
        assert_null(rows[6]);
        csv_read_free(rows);
}

static char *json_of(CountTime t) {
        size_t size;
        JsonWriter w;
        char *out;
        FILE *f = open_memstream(&out, &size);

        assert_non_null(f);
        json_writer_init(&w, f);
        json_open_object(&w, NULL);
        count_time_json_members(&w, t);
        json_close_object(&w);
        assert_int_equal(json_writer_finish(&w), 0);
        assert_int_equal(fclose(f), 0);
        return out;
}

static void assert_json(CountTime t, long long enabled, long long running, const char *percent,
                        bool counted) {
        g_autoptr(JsonParser) parser = json_parser_new();
        g_autofree char *out = json_of(t);
        JsonObject *o;

        printf("%s", out);
        assert_true(json_parser_load_from_data(parser, out, -1, NULL));
        o = json_node_get_object(json_parser_get_root(parser));
        assert_int_equal(json_object_get_int_member(o, "enabled_ns"), enabled);
        assert_int_equal(json_object_get_int_member(o, "running_ns"), running);
        /* Rounded to two decimals: the double nearest 49.97, whatever digits json-glib writes. */
        assert_true(json_object_get_double_member(o, "percent_running") == g_ascii_strtod(percent, NULL));
        assert_int_equal(json_object_get_boolean_member(o, "counted"), counted);
}

static void test_json_members(void **state) {
        (void) state;
        assert_json(full, 2000000000LL, 2000000000LL, "100.0", true);
        assert_json(half, 1000000, 499700, "49.97", true);
        assert_json(none, 1000000, 0, "0.0", false);
        assert_json(never_enabled, 0, 0, "100.0", true);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_times_come_from_the_accu_fields),
                cmocka_unit_test(test_which_counts_get_a_note),
                cmocka_unit_test(test_text_note_and_count),
                cmocka_unit_test(test_csv_fields),
                cmocka_unit_test(test_json_members),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
