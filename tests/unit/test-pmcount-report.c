/* test-pmcount-report.c: pmcount's report (pmcount-report*.c, and pmcount-series.c for -I) built
 * from a made-up run, as a machine without a PMU never multiplexes a counter: the group's counts
 * ran all of their enabled time (no note), 49.97 % of it ("(49.97%)" after each event's name,
 * the counts pmapid's estimates) or none of it ("<not counted>" in place of each count, with no
 * derived value). The same three in the CSV columns enabled_ns, running_ns and percent_running,
 * and the JSON members of each event; then -I's lines, each with its own interval's share. */
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
#include "pmcount.h"

static char cycles[] = "PM_CYCLES", instructions[] = "PM_INST_CMPL", description[] = "";
static pm_events_t counter0[] = { { 1, PM_VERIFIED, 'n', cycles, cycles, description } };
static pm_events_t counter1[] = { { 2, PM_CAVEAT, 'n', instructions, instructions, description } };
static int maxevents[MAX_COUNTERS] = { 1, 1 };
static pm_events_t *list_events[MAX_COUNTERS] = { counter0, counter1 };
static const pm_info_t info = { .maxpmcs = MAX_COUNTERS, .maxevents = maxevents, .list_events = list_events };
static char *command[] = { (char *) "true", NULL };

static const CountTime full = { 1000000000, 1000000000 }, half = { 1000000, 499700 }, none = { 1000000, 0 };

static pm_accu_time_t accu(unsigned long long enabled, unsigned long long running) {
        pm_accu_time_t t = {};

        t.accu_purr = (timebasestruct_t) { PM_TB_MONOTONIC_NS, (unsigned) (enabled >> 32),
                                           (unsigned) enabled };
        t.accu_timebase = (timebasestruct_t) { PM_TB_MONOTONIC_NS, (unsigned) (running >> 32),
                                               (unsigned) running };
        return t;
}

typedef struct Out {
        Options options;
        Report report;
        char *text;
        size_t size;
} Out;

/* A finished run of two events (1,234,567 and 7,654,321) counted for time, written to o->text in
 * format by report_write(). */
static void write_run(Out *o, ReportFormat format, CountTime time) {
        o->options = (Options) { .mode = PM_USER, .format = format, .separator = ",", .repeat = 1,
                                 .command = command };
        o->report = (Report) { .options = &o->options, .info = &info, .pid = 42, .elapsed_ns = 1000000000 };
        o->report.f = open_memstream(&o->text, &o->size);
        assert_non_null(o->report.f);
        for (int c = 0; c < MAX_COUNTERS; c++)
                o->report.prog.events[c] = COUNT_NOTHING;
        o->report.prog.events[0] = 1;
        o->report.prog.events[1] = 2;
        o->report.total.ginfo.members = 2;
        o->report.total.ginfo.flags.b.consistent = 1;
        o->report.total.accu[0] = time.running_ns ? 1234567 : 0;
        o->report.total.accu[1] = time.running_ns ? 7654321 : 0;
        o->report.total_time = time;
        report_add_run(&o->report);
        assert_int_equal(report_write(&o->report), 0);
        assert_int_equal(fclose(o->report.f), 0);
        printf("%s", o->text);
}

/* The line of the text that holds s, up to its end. */
static char *line_of(const char *text, const char *s) {
        const char *p = strstr(text, s), *start, *end;

        assert_non_null(p);
        for (start = p; start > text && start[-1] != '\n'; start--)
                ;
        end = strchr(p, '\n');
        return g_strndup(start, end ? (size_t) (end - start) : strlen(start));
}

static void test_text(void **state) {
        Out o;

        (void) state;
        assert_non_null(setlocale(LC_ALL, "C"));
        write_run(&o, REPORT_TEXT, full);
        assert_null(strstr(o.text, "%)"));
        assert_null(strstr(o.text, "not counted"));
        assert_non_null(strstr(o.text, "1,234,567  PM_CYCLES     verified"));
        free(o.text);

        write_run(&o, REPORT_TEXT, half);
        {
                g_autofree char *c = line_of(o.text, "PM_CYCLES"), *i = line_of(o.text, "PM_INST_CMPL");

                assert_non_null(strstr(c, "1,234,567  PM_CYCLES (49.97%)     verified"));
                assert_non_null(strstr(c, "/sec"));                    /* the derived value stays */
                assert_non_null(strstr(i, "7,654,321  PM_INST_CMPL (49.97%)  caveat"));
        }
        free(o.text);

        write_run(&o, REPORT_TEXT, none);
        {
                g_autofree char *c = line_of(o.text, "PM_CYCLES"), *i = line_of(o.text, "PM_INST_CMPL");

                assert_non_null(strstr(c, "<not counted>  PM_CYCLES     verified"));
                assert_non_null(strstr(i, "<not counted>  PM_INST_CMPL  caveat"));
                assert_null(strstr(c, "/sec"));                        /* a rate of nothing known */
                assert_null(strstr(o.text, "%)"));
        }
        free(o.text);
}

/* The event rows' last three fields; every other row has them empty. */
static void assert_csv(CountTime time, const char *enabled, const char *running, const char *percent,
                       const char *value) {
        size_t n_events = 0;
        char ***rows;
        Out o;

        write_run(&o, REPORT_CSV, time);
        rows = csv_read(o.text);
        assert_string_equal(rows[0][7], "value");
        assert_string_equal(rows[0][8], "enabled_ns");
        assert_string_equal(rows[0][9], "running_ns");
        assert_string_equal(rows[0][10], "percent_running");
        for (size_t i = 1; rows[i]; i++) {
                assert_int_equal(g_strv_length(rows[i]), 11);
                if (strcmp(rows[i][0], "event") != 0) {
                        assert_string_equal(rows[i][8], "");
                        assert_string_equal(rows[i][10], "");
                        continue;
                }
                n_events++;
                if (strcmp(rows[i][5], "PM_CYCLES") == 0)
                        assert_string_equal(rows[i][7], value);
                assert_string_equal(rows[i][8], enabled);
                assert_string_equal(rows[i][9], running);
                assert_string_equal(rows[i][10], percent);
        }
        assert_int_equal(n_events, 2);
        csv_read_free(rows);
        free(o.text);
}

static void test_csv(void **state) {
        (void) state;
        assert_csv(full, "1000000000", "1000000000", "100.00", "1234567");
        assert_csv(half, "1000000", "499700", "49.97", "1234567");
        assert_csv(none, "1000000", "0", "0.00", "0");       /* a number still: the times say why */
}

static void assert_json(CountTime time, double percent, bool counted) {
        g_autoptr(JsonParser) parser = json_parser_new();
        JsonArray *events;
        Out o;

        write_run(&o, REPORT_JSON, time);
        assert_true(json_parser_load_from_data(parser, o.text, -1, NULL));
        events = json_object_get_array_member(json_node_get_object(json_parser_get_root(parser)), "events");
        assert_int_equal(json_array_get_length(events), 2);
        for (guint i = 0; i < 2; i++) {
                JsonObject *e = json_array_get_object_element(events, i);

                assert_int_equal(json_object_get_int_member(e, "enabled_ns"), (long long) time.enabled_ns);
                assert_int_equal(json_object_get_int_member(e, "running_ns"), (long long) time.running_ns);
                assert_true(json_object_get_double_member(e, "percent_running") == percent);
                assert_int_equal(json_object_get_boolean_member(e, "counted"), counted);
                assert_int_equal(json_object_get_int_member(e, "count") == 0, !counted);
        }
        free(o.text);
}

static void test_json(void **state) {
        (void) state;
        assert_json(full, 100.0, true);
        assert_json(half, 49.97, true);
        assert_json(none, 0.0, false);
}

/* -I: three intervals of 1 ms, the first counted all of it, the second 49.97 %, the third not at
 * all; each line has its own interval's share, not the run's. */
static char *write_intervals(Out *o, ReportFormat format) {
        static const unsigned long long enabled[] = { 1000000, 2000000, 3000000 };
        static const unsigned long long running[] = { 1000000, 1499700, 1499700 };
        static const long long counts[] = { 100, 150, 150 };

        o->options = (Options) { .mode = PM_USER, .format = format, .separator = ",", .repeat = 1,
                                 .interval_ms = 100, .command = command };
        o->report = (Report) { .options = &o->options, .info = &info };
        o->report.f = open_memstream(&o->text, &o->size);
        assert_non_null(o->report.f);
        for (int c = 0; c < MAX_COUNTERS; c++)
                o->report.prog.events[c] = COUNT_NOTHING;
        o->report.prog.events[0] = 1;
        for (int i = 0; i < 3; i++) {
                pm_data_t data = { .accu = { counts[i] } };
                pm_accu_time_t t = accu(enabled[i], running[i]);

                assert_int_equal(report_interval(&o->report, &data, &t, (uint64_t) (i + 1) * 100000000), 0);
        }
        assert_int_equal(fclose(o->report.f), 0);
        printf("%s", o->text);
        return o->text;
}

static void test_interval_lines(void **state) {
        g_autoptr(JsonParser) parser = json_parser_new();
        g_auto(GStrv) lines = NULL;
        char ***rows;
        Out o;

        (void) state;
        assert_non_null(setlocale(LC_ALL, "C"));
        lines = g_strsplit(write_intervals(&o, REPORT_TEXT), "\n", -1);
        assert_int_equal(g_strv_length(lines), 5);             /* a header, three lines, "" */
        assert_true(g_str_has_suffix(lines[1], "  100  PM_CYCLES"));
        assert_true(g_str_has_suffix(lines[2], "  50  PM_CYCLES (49.97%)"));
        assert_true(g_str_has_suffix(lines[3], "  <not counted>  PM_CYCLES"));
        free(o.text);

        rows = csv_read(write_intervals(&o, REPORT_CSV));
        assert_string_equal(rows[0][8], "time_ns");
        assert_string_equal(rows[0][11], "percent_running");
        assert_string_equal(rows[1][7], "100");
        assert_string_equal(rows[1][11], "100.00");
        assert_string_equal(rows[2][9], "1000000");
        assert_string_equal(rows[2][10], "499700");
        assert_string_equal(rows[2][11], "49.97");
        assert_string_equal(rows[3][7], "0");
        assert_string_equal(rows[3][10], "0");
        assert_string_equal(rows[3][11], "0.00");
        csv_read_free(rows);
        free(o.text);

        g_strfreev(lines);
        lines = g_strsplit(write_intervals(&o, REPORT_JSON), "\n", -1);
        for (int i = 0; i < 3; i++) {
                static const double percent[] = { 100.0, 49.97, 0.0 };
                JsonObject *e;

                assert_true(json_parser_load_from_data(parser, lines[i], -1, NULL));
                e = json_array_get_object_element(json_object_get_array_member(
                        json_node_get_object(json_parser_get_root(parser)), "events"), 0);
                assert_true(json_object_get_double_member(e, "percent_running") == percent[i]);
                assert_int_equal(json_object_get_boolean_member(e, "counted"), i < 2);
        }
        free(o.text);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_text),
                cmocka_unit_test(test_csv),
                cmocka_unit_test(test_json),
                cmocka_unit_test(test_interval_lines),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
