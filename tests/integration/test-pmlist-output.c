/* test-pmlist-output.c: the forms of pmlist's output against a real pmapid, each of which must list
 * exactly what pm_init(), called in this test, returns: CSV (--csv, --format=c) read back with
 * csv-read.c, JSON (--json, --format j) parsed with json-glib, the same bytes into -o FILE as to
 * stdout, -x SEP with the fields that hold it quoted, the text table's descriptions cut to fit
 * $COLUMNS (whole with -d), and -n and --raw for scripts. Which events pmlist lists, and its exit
 * statuses, are test-pmlist.c's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-glib/json-glib.h>

#include "bus-fixture.h"
#include "pmapi.h"
#include "pmlist-expect.h"
#include "tool-run.h"

static BusFixture fixture;
static pm_info_t info;                  /* pm_init(ALL_STATUSES): still valid after later pm_inits */

static void test_csv_parses_to_the_rows_of_pm_init(void **state) {
        ExpectedList l = expected_events(&info);
        CsvTable t;
        ToolRun run = {};

        (void) state;
        pmlist_ok(&run, "--csv");
        t = csv_parse(run.out);
        assert_csv_lists(&t, &l, false);
        printf("# CSV: %zu rows after the header\n", t.n_rows - 1);
        csv_free(&t);
        tool_run_done(&run);

        /* --format=c (AIX's -o c) is the same output; -d adds the long name and the counters. */
        pmlist_ok(&run, "--format=c");
        t = csv_parse(run.out);
        assert_csv_lists(&t, &l, false);
        csv_free(&t);
        tool_run_done(&run);
        pmlist_ok(&run, "--csv -d");
        t = csv_parse(run.out);
        assert_csv_lists(&t, &l, true);
        csv_free(&t);
        tool_run_done(&run);
        free(l.events);
}

static void test_json_parses_and_matches_pm_init(void **state) {
        ExpectedList l = expected_events(&info);
        ToolRun run = {};

        (void) state;
        pmlist_ok(&run, "--json");
        assert_json_lists(run.out, &l, &info);
        tool_run_done(&run);
        pmlist_ok(&run, "--format j");
        assert_json_lists(run.out, &l, &info);
        tool_run_done(&run);
        free(l.events);
}

/* With COLUMNS set, libsmartcols cuts descriptions so that rows fit; -d keeps them whole. */
static void test_text_fits_descriptions_to_the_width(void **state) {
        ExpectedList l = expected_events(&info);
        size_t w_id = 2, w_name = 4, w_status = 6, room = 30, width, n, n_cut = 0;
        TextRow *rows = calloc(l.n + 1, sizeof(TextRow));
        static char env[32];
        ToolRun run = {};

        (void) state;
        for (size_t i = 0; i < l.n; i++) {
                char id[16];
                const pm_events_t *e = l.events[i].e;
                w_id = MAX(w_id, (size_t) snprintf(id, sizeof(id), "%d", e->event_id));
                w_name = MAX(w_name, strlen(e->short_name));
                w_status = MAX(w_status, strlen(status_word(e->status)));
        }
        width = w_id + w_name + w_status + 6 + room;
        snprintf(env, sizeof(env), "COLUMNS=%zu", width);
        tool_runf(&run, 0, env, PMLIST, "%s", "");
        assert_int_equal(run.status, 0);
        n = text_rows(run.out, rows, l.n + 1);
        assert_int_equal(n, l.n);
        for (size_t i = 0; i < n; i++) {
                const char *d = l.events[i].e->description;
                const char *line_end = rows[i].description + rows[i].description_length;
                const char *line = rows[i].description;

                while (line > run.out && line[-1] != '\n')
                        line--;
                assert_true((size_t) (line_end - line) <= width);
                if (strlen(d) <= room) {
                        assert_int_equal(rows[i].description_length, strlen(d));
                        assert_memory_equal(rows[i].description, d, strlen(d));
                } else {
                        /* A part of it from the start, the room's width at most, and an ellipsis if
                         * the table marks the cut (text-table.h). */
                        size_t n = rows[i].description_length;

                        if (n >= 3 && (memcmp(line_end - 3, "...", 3) == 0 ||
                                       memcmp(line_end - 3, "\xe2\x80\xa6", 3) == 0))
                                n -= 3;
                        assert_in_range(rows[i].description_length, 1, room);
                        assert_true(n < strlen(d));
                        assert_memory_equal(rows[i].description, d, n);
                        n_cut++;
                }
        }
        printf("# COLUMNS=%zu: %zu of %zu descriptions cut\n", width, n_cut, n);
        assert_true(n_cut > 0);         /* PM_PAGE_FLT's description is longer than 30 bytes */
        tool_run_done(&run);

        /* -d: whole descriptions, with the long names and counters. */
        tool_runf(&run, 0, env, PMLIST, "-d --exact -e PM_PAGE_FLT");
        assert_int_equal(run.status, 0);
        {
                const Expected *page = find_expected(&l, "PM_PAGE_FLT");
                char counters[128], expect[1024];
                counters_text(page->counters, counters, sizeof(counters));
                snprintf(expect, sizeof(expect), "ID NAME LONG_NAME STATUS COUNTERS DESCRIPTION\n%d %s %s %s %s %s\n",
                         page->e->event_id, page->e->short_name, page->e->long_name,
                         status_word(page->e->status), counters, page->e->description);
                assert_string_equal(squeeze_spaces(strchr(run.out, '\n') + 1), squeeze_spaces(expect));
        }
        tool_run_done(&run);
        free(rows);
        free(l.events);
}

/* -o FILE: the same bytes stdout would have had, and nothing on stdout; a file that cannot be
 * written fails (1) before anything is printed; AIX's lone letters are refused above. */
static void test_output_file_gets_what_stdout_would(void **state) {
        ExpectedList l = expected_events(&info);
        g_autofree char *json = NULL, *text = NULL;
        char path[320];
        ToolRun run = {}, direct = {};

        (void) state;
        snprintf(path, sizeof(path), "%s/pmlist.json", fixture.dir);
        pmlist_ok(&run, "--json -o %s", path);
        assert_string_equal(run.out, "");
        assert_true(g_file_get_contents(path, &json, NULL, NULL));
        assert_json_lists(json, &l, &info);
        assert_int_equal(unlink(path), 0);
        tool_run_done(&run);
        /* A file is no terminal: whole descriptions, as in a pipe. */
        snprintf(path, sizeof(path), "%s/c", fixture.dir);
        pmlist_ok(&run, "--output=%s", path);
        pmlist_ok(&direct, "%s", "");
        assert_true(g_file_get_contents(path, &text, NULL, NULL));
        assert_string_equal(text, direct.out);
        assert_int_equal(unlink(path), 0);
        tool_run_done(&run);
        tool_run_done(&direct);

        run_pmlist(&run, "-o %s/no-such-directory/list", fixture.dir);
        assert_int_equal(run.status, 1);
        assert_string_equal(run.out, "");
        assert_true(g_str_has_prefix(run.err, "pmlist: cannot open '"));
        tool_run_done(&run);
        free(l.events);
}

/* s as csv-writer.h quotes a field with sep between fields: only when it holds sep, a quote, CR or LF. */
static void append_field(GString *s, const char *v, const char *sep) {
        if (!strpbrk(v, "\"\r\n") && !strstr(v, sep)) {
                g_string_append(s, v);
                return;
        }
        g_string_append_c(s, '"');
        for (; *v; v++) {
                if (*v == '"')
                        g_string_append_c(s, '"');
                g_string_append_c(s, *v);
        }
        g_string_append_c(s, '"');
}

/* -x SEP, as perf stat's: the same rows with SEP between fields; a description that holds a comma
 * is left bare, one that holds the separator is quoted. */
static void test_field_separator_quotes_fields_that_hold_it(void **state) {
        ExpectedList l = expected_events(&info);
        g_autoptr(GString) expect = g_string_new("id;name;status;description\n");
        size_t n_quoted = 0, n_commas = 0;
        ToolRun run = {};

        (void) state;
        for (size_t i = 0; i < l.n; i++) {
                const pm_events_t *e = l.events[i].e;

                g_string_append_printf(expect, "%d;%s;%s;", e->event_id, e->short_name,
                                       status_word(e->status));
                append_field(expect, e->description, ";");
                g_string_append_c(expect, '\n');
                n_quoted += strchr(e->description, ';') != NULL;
                n_commas += strchr(e->description, ',') && !strpbrk(e->description, ";\"");
        }
        printf("# -x ';': %zu descriptions quoted, %zu with bare commas\n", n_quoted, n_commas);
        assert_true(n_quoted > 0 && n_commas > 0);      /* PM_PAGE_FLT's has a ';', PM_TASK_CLOCK's commas */
        pmlist_ok(&run, "-x ;");
        assert_string_equal(run.out, expect->str);
        tool_run_done(&run);
        pmlist_ok(&run, "--field-separator=;");
        assert_string_equal(run.out, expect->str);
        tool_run_done(&run);
        free(l.events);
}

/* The \xNN escapes of a --raw cell undone. */
static char *unescape(char *s) {
        char *o = s;
        unsigned v;

        for (const char *p = s; *p;)
                if (p[0] == '\\' && p[1] == 'x' && sscanf(p + 2, "%2x", &v) == 1) {
                        *o++ = (char) v;
                        p += 4;
                } else
                        *o++ = *p++;
        *o = '\0';
        return s;
}

/* -n: the rows alone; --raw (lsblk's): one space between cells, the spaces inside one escaped, so
 * that `while read id name status description` takes each row whole. */
static void test_noheadings_and_raw_for_scripts(void **state) {
        ExpectedList l = expected_events(&info);
        TextRow row;
        ToolRun run = {};

        (void) state;
        pmlist_ok(&run, "-n");
        {
                g_auto(GStrv) lines = g_strsplit(run.out, "\n", -1);

                assert_int_equal(g_strv_length(lines), l.n + 1);        /* and "" after the last LF */
                for (size_t i = 0; i < l.n; i++) {
                        assert_true(parse_text_row(lines[i], &row));
                        assert_int_equal(row.id, l.events[i].e->event_id);
                }
        }
        tool_run_done(&run);
        pmlist_ok(&run, "--raw");
        {
                g_auto(GStrv) lines = g_strsplit(run.out, "\n", -1);

                assert_int_equal(g_strv_length(lines), l.n + 3);
                assert_true(g_str_has_prefix(lines[0], "Processor: "));
                assert_string_equal(lines[1], "ID NAME STATUS DESCRIPTION");
                for (size_t i = 0; i < l.n; i++) {
                        const pm_events_t *e = l.events[i].e;
                        g_auto(GStrv) f = g_strsplit(lines[i + 2], " ", -1);
                        char id[16];

                        snprintf(id, sizeof(id), "%d", e->event_id);
                        assert_int_equal(g_strv_length(f), 4);
                        assert_string_equal(f[0], id);
                        assert_string_equal(unescape(f[1]), e->short_name);
                        assert_string_equal(f[2], status_word(e->status));
                        assert_string_equal(unescape(f[3]), e->description);
                }
        }
        tool_run_done(&run);
        pmlist_ok(&run, "-n --raw -d --exact -e PM_PAGE_FLT");
        {
                const Expected *page = find_expected(&l, "PM_PAGE_FLT");
                g_auto(GStrv) f = g_strsplit(run.out, " ", -1);
                char counters[128];

                counters_text(page->counters, counters, sizeof(counters));
                assert_int_equal(g_strv_length(f), 6);
                assert_true(g_str_has_suffix(f[5], "\n"));
                f[5][strlen(f[5]) - 1] = '\0';
                assert_string_equal(f[2], page->e->long_name);
                assert_string_equal(f[4], counters);
                assert_string_equal(unescape(f[5]), page->e->description);
        }
        tool_run_done(&run);
        free(l.events);
}

static int setup(void **state) {
        (void) state;
        return tool_fixture_start(&fixture, "PMAPI_PMLIST", ALL_STATUSES, &info);
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_csv_parses_to_the_rows_of_pm_init),
                cmocka_unit_test(test_json_parses_and_matches_pm_init),
                cmocka_unit_test(test_text_fits_descriptions_to_the_width),
                cmocka_unit_test(test_output_file_gets_what_stdout_would),
                cmocka_unit_test(test_field_separator_quotes_fields_that_hold_it),
                cmocka_unit_test(test_noheadings_and_raw_for_scripts),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
