/* test-utils.c: the tools' shared helpers alone, without pmapid: the CSV writer's RFC 4180 quoting
 * (read back with the tests' own reader, tests/integration/csv-read.c), and the event index on a
 * made-up catalog whose counters take different events (on Linux every counter takes every event,
 * so pmlist's -c cannot show its effect on a real one). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>

#include "csv-read.h"
#include "csv-writer.h"
#include "event-index.h"
#include "pmapi.h"

/* What the writer writes, and that the reader reads back every field. */
static void test_csv_writer_quotes_as_rfc_4180_asks(void **state) {
        static const struct { const char *in, *raw; } cases[] = {
                { "plain", "plain" },
                { "", "" },
                { "a,b", "\"a,b\"" },
                { "say \"hi\"", "\"say \"\"hi\"\"\"" },
                { "\"", "\"\"\"\"" },
                { "two\nlines", "\"two\nlines\"" },
                { "cr\rhere", "\"cr\rhere\"" },
                { " spaced ", " spaced " },
                { "caf\xc3\xa9", "caf\xc3\xa9" },
        };
        CsvWriter w;
        char ***rows;
        size_t size;
        char *raw;
        FILE *f;

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                f = open_memstream(&raw, &size);
                assert_non_null(f);
                csv_write_field(f, cases[i].in);
                assert_int_equal(fclose(f), 0);
                assert_string_equal(raw, cases[i].raw);
                free(raw);
        }

        /* Rows: commas between fields, a LF after each, NULL as an empty field. */
        f = open_memstream(&raw, &size);
        csv_writer_init(&w, f);
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
                csv_field(&w, cases[i].in);
        csv_end_row(&w);
        csv_fieldf(&w, "%d", -42);
        csv_field(&w, NULL);
        csv_fieldf(&w, "%s,%s", "x", "y");
        csv_end_row(&w);
        assert_int_equal(csv_writer_finish(&w), 0);
        fclose(f);
        assert_true(g_str_has_suffix(raw, "\n-42,,\"x,y\"\n"));
        rows = csv_read(raw);
        assert_non_null(rows[0]);
        assert_non_null(rows[1]);
        assert_null(rows[2]);
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                /* A lone CR inside a quoted field is data; the reader keeps it. */
                assert_string_equal(rows[0][i], cases[i].in);
        }
        assert_int_equal(g_strv_length(rows[0]), sizeof(cases) / sizeof(cases[0]));
        assert_int_equal(g_strv_length(rows[1]), 3);
        assert_string_equal(rows[1][0], "-42");
        assert_string_equal(rows[1][1], "");
        assert_string_equal(rows[1][2], "x,y");
        csv_read_free(rows);
        free(raw);

        /* A write that fails is reported by finish. */
        f = fopen("/dev/full", "we");
        assert_non_null(f);
        csv_writer_init(&w, f);
        for (int i = 0; i < 10000; i++)
                csv_field(&w, "filling the buffer");
        csv_end_row(&w);
        assert_int_equal(csv_writer_finish(&w), -ENOSPC);
        fclose(f);
}

/* Which ids of ev[0..n) the query selects, as "1,2,5". */
static const char *selected_ids(const IndexedEvent *ev, size_t n, const EventQuery *q) {
        static char buf[64];
        size_t o = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < n; i++)
                if (event_index_matches(&ev[i], q))
                        o += snprintf(buf + o, sizeof(buf) - o, "%s%d", o ? "," : "", ev[i].e->event_id);
        return buf;
}

static void test_event_index_lists_each_event_once_with_its_counters(void **state) {
        static pm_events_t c0[] = {
                { 1, PM_VERIFIED, 'n', "PM_A", "pmu::ALPHA", "a" },
                { 2, PM_CAVEAT, 'n', "PM_B", "pmu::BETA", "b" },
                { 5, PM_UNVERIFIED, 'n', "PM_E", "pmu::EPSILON", "e" },
        };
        static pm_events_t c1[] = {
                { 2, PM_CAVEAT, 'n', "PM_B", "pmu::BETA", "b" },
                { 3, PM_VERIFIED, 'n', "PM_C", "pmu::GAMMA", "c" },
        };
        static pm_events_t c2[] = {                     /* out of order: the index sorts */
                { 5, PM_UNVERIFIED, 'n', "PM_E", "pmu::EPSILON", "e" },
                { 1, PM_VERIFIED, 'n', "PM_A", "pmu::ALPHA", "a" },
        };
        static const struct { const char *pattern; int counter; bool exact; const char *ids; } queries[] = {
                { NULL, -1, false, "1,2,3,5" },
                { NULL, 0, false, "1,2,5" },
                { NULL, 1, false, "2,3" },
                { NULL, 2, false, "1,5" },
                { NULL, 3, false, "" },                 /* a counter that takes nothing */
                { "beta", -1, false, "2" },             /* the long name, in any case */
                { "PM_", -1, false, "1,2,3,5" },
                { "pm_b", -1, true, "2" },
                { "PMU::Gamma", -1, true, "3" },
                { "gamma", -1, true, "" },              /* a part is no whole name */
                { "gamma", 0, false, "" },              /* counter 0 does not take it */
                { "psilo", 2, false, "5" },
        };
        pm_events_t *lists[] = { c0, c1, c2, NULL };
        int maxevents[] = { 3, 2, 2, 0 };
        pm_info_t in = { .maxpmcs = 4, .maxevents = maxevents, .list_events = lists };
        static const int ids[] = { 1, 2, 3, 5 };
        static const uint64_t masks[] = { 0x5, 0x3, 0x2, 0x5 };
        static const char *const masks_text[] = { "0,2", "0-1", "1", "0,2" };
        char text[EVENT_INDEX_COUNTERS_TEXT_MAX];
        IndexedEvent *ev = NULL;
        size_t n = 0;

        (void) state;
        assert_int_equal(event_index_build(&in, &ev, &n), 0);
        assert_int_equal(n, 4);
        for (size_t i = 0; i < n; i++) {
                assert_int_equal(ev[i].e->event_id, ids[i]);
                assert_int_equal(ev[i].counters, masks[i]);
                assert_string_equal(event_index_format_counters(ev[i].counters, text), masks_text[i]);
        }
        assert_ptr_equal(ev[0].e, &c0[0]);              /* the first counter's entry */
        assert_ptr_equal(ev[2].e, &c1[1]);
        for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
                char *patterns[] = { (char *) queries[i].pattern };
                EventQuery q = { .counter = queries[i].counter, .patterns = patterns,
                                 .n_patterns = queries[i].pattern ? 1 : 0, .exact = queries[i].exact };
                assert_string_equal(selected_ids(ev, n, &q), queries[i].ids);
        }
        {
                char *patterns[] = { (char *) "zzz", (char *) "ALPHA" };       /* any of them */
                EventQuery q = { .counter = -1, .patterns = patterns, .n_patterns = 2 };
                assert_string_equal(selected_ids(ev, n, &q), "1");
        }
        assert_string_equal(event_index_format_counters(0xff, text), "0-7");
        assert_string_equal(event_index_format_counters(0x6d, text), "0,2-3,5-6");
        assert_string_equal(event_index_format_counters(UINT64_C(1) << 63 | 1, text), "0,63");
        assert_string_equal(event_index_format_counters(0, text), "");
        free(ev);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_csv_writer_quotes_as_rfc_4180_asks),
                cmocka_unit_test(test_event_index_lists_each_event_once_with_its_counters),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
