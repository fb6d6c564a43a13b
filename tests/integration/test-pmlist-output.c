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
#include "csv-read.h"
#include "pmapi.h"
#include "tool-run.h"

#define ALL_STATUSES (PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT)

static BusFixture fixture;
static pm_info_t info;                  /* pm_init(ALL_STATUSES): still valid after later pm_inits */

/* Runs pmlist through tool-run.c (as uid, 0: as we are; LC_ALL=C.UTF-8) with the words of format
 * (split at spaces) as its arguments, and env ("NAME=value" or NULL) added to its environment by
 * env(1). */
static void run_pmlist_full(uid_t uid, const char *env, ToolRun *run, const char *format, ...)
        __attribute__((format(printf, 4, 5)));
static void run_pmlist_full(uid_t uid, const char *env, ToolRun *run, const char *format, ...) {
        const char *pmlist = getenv("PMAPI_PMLIST");
        char line[512], words[512], *word, *next;
        const char *argv[34];
        int argc = 0;
        va_list ap;

        assert_non_null(pmlist);
        va_start(ap, format);
        vsnprintf(line, sizeof(line), format, ap);
        va_end(ap);
        if (env) {
                argv[argc++] = "/usr/bin/env";
                argv[argc++] = env;
        }
        argv[argc++] = pmlist;
        memcpy(words, line, sizeof(words));             /* strsep cuts words; line stays whole */
        for (next = words; (word = strsep(&next, " ")) && argc < 33; )
                if (*word)
                        argv[argc++] = word;
        argv[argc] = NULL;
        tool_run(run, uid, argv);
        if (run->status != 0)
                printf("# pmlist %s -> %d\n# stderr: %s", line, run->status, run->err);
}

#define run_pmlist(run, ...) run_pmlist_full(0, NULL, run, __VA_ARGS__)

/* Runs pmlist and expects it to succeed with nothing on stderr. */
#define pmlist_ok(run, ...)                                     \
        do {                                                    \
                run_pmlist(run, __VA_ARGS__);                   \
                assert_int_equal((run)->status, 0);             \
                assert_string_equal((run)->err, "");            \
        } while (0)

/* What the test expects, from pm_init itself: each event once, with a mask of the counters whose
 * list has it, by increasing id. Written apart from pmlist's own merge, as plainly as possible. */
typedef struct Expected {
        const pm_events_t *e;
        unsigned counters;
} Expected;

typedef struct ExpectedList {
        Expected *events;
        size_t n;
} ExpectedList;

static int compare_expected(const void *a, const void *b) {
        const Expected *x = a, *y = b;
        return (x->e->event_id > y->e->event_id) - (x->e->event_id < y->e->event_id);
}

static ExpectedList expected_events(const pm_info_t *in) {
        ExpectedList l = {};
        size_t total = 0;

        assert_true(in->maxpmcs > 0 && in->maxpmcs <= 32);
        for (int c = 0; c < in->maxpmcs; c++)
                total += in->maxevents[c];
        l.events = calloc(total + 1, sizeof(Expected));
        assert_non_null(l.events);
        for (int c = 0; c < in->maxpmcs; c++)
                for (int i = 0; i < in->maxevents[c]; i++) {
                        const pm_events_t *e = &in->list_events[c][i];
                        size_t j;

                        for (j = 0; j < l.n && l.events[j].e->event_id != e->event_id; j++)
                                ;
                        if (j == l.n)
                                l.events[l.n++] = (Expected) { .e = e };
                        l.events[j].counters |= 1u << c;
                }
        qsort(l.events, l.n, sizeof(Expected), compare_expected);
        return l;
}

static const char *status_word(int status) {
        return status == PM_VERIFIED ? "verified" : status == PM_CAVEAT ? "caveat"
             : status == PM_UNVERIFIED ? "unverified" : "?";
}

/* "0-7" or "0,2,4-5" for a counter mask. */
static void counters_text(unsigned mask, char *buf, size_t size) {
        size_t o = 0;

        buf[0] = '\0';
        for (int c = 0; c < 32; c++) {
                int end = c;
                if (!(mask & 1u << c))
                        continue;
                while (end < 31 && mask & 1u << (end + 1))
                        end++;
                o += snprintf(buf + o, size - o, "%s%d", o ? "," : "", c);
                if (end > c)
                        o += snprintf(buf + o, size - o, "-%d", end);
                c = end;
        }
}

static const Expected *find_expected(const ExpectedList *l, const char *short_name) {
        for (size_t i = 0; i < l->n; i++)
                if (strcmp(l->events[i].e->short_name, short_name) == 0)
                        return &l->events[i];
        return NULL;
}

/* ---- CSV as RFC 4180 reads it ---- */

typedef struct CsvTable {
        char ***rows;
        size_t n_rows;
} CsvTable;

/* csv-read.c's rows, with their number. */
static CsvTable csv_parse(const char *s) {
        CsvTable t = { .rows = csv_read(s) };

        while (t.rows[t.n_rows])
                t.n_rows++;
        return t;
}

static void csv_free(CsvTable *t) {
        csv_read_free(t->rows);
        *t = (CsvTable) {};
}

static void assert_csv_row(char **row, const char *const *expected, size_t n) {
        assert_int_equal(g_strv_length(row), n);
        for (size_t i = 0; i < n; i++)
                assert_string_equal(row[i], expected[i]);
}

/* The CSV rows (header excluded) must be exactly the expected events, in order. */
static void assert_csv_lists(const CsvTable *t, const ExpectedList *l, bool details) {
        static const char *const header[] = { "id", "name", "status", "description", "long_name", "counters" };
        size_t n_fields = details ? 6 : 4;

        assert_true(t->n_rows >= 1);
        assert_csv_row(t->rows[0], header, n_fields);
        assert_int_equal(t->n_rows - 1, l->n);
        for (size_t i = 0; i < l->n; i++) {
                const pm_events_t *e = l->events[i].e;
                char id[16], counters[128];
                const char *fields[] = { id, e->short_name, status_word(e->status), e->description,
                                         e->long_name, counters };

                snprintf(id, sizeof(id), "%d", e->event_id);
                counters_text(l->events[i].counters, counters, sizeof(counters));
                assert_csv_row(t->rows[i + 1], fields, n_fields);
        }
}

/* ---- the tests ---- */

/* s with each run of spaces made one, and none at the start of a line: table cells, one space apart. */
static char *squeeze_spaces(char *s) {
        char *o = s;

        for (const char *p = s; *p; p++)
                if (*p != ' ' || (o > s && o[-1] != ' ' && o[-1] != '\n'))
                        *o++ = *p;
        *o = '\0';
        return s;
}

/* A row of the text table: "ID  NAME  STATUS  DESCRIPTION" with columns two or more spaces apart. */
typedef struct TextRow {
        int id;
        char name[256], status[32];
        const char *description;        /* the rest of the line, into the output */
        size_t description_length;
} TextRow;

static bool parse_text_row(const char *line, TextRow *ret) {
        int n_read = 0;

        if (sscanf(line, " %d %255s %31s%n", &ret->id, ret->name, ret->status, &n_read) != 3 || n_read == 0)
                return false;
        ret->description = line + n_read;
        while (*ret->description == ' ')
                ret->description++;
        ret->description_length = strcspn(ret->description, "\n");
        return true;
}

/* The table's rows, after the header line and the column titles; fails on a malformed line. */
static size_t text_rows(const char *out, TextRow *rows, size_t max) {
        const char *line = strchr(out, '\n');
        size_t n = 0;

        assert_non_null(line);
        line = strchr(line + 1, '\n');          /* the column titles */
        assert_non_null(line);
        for (line++; *line; line = strchr(line, '\n') + 1) {
                assert_true(n < max);
                assert_true(parse_text_row(line, &rows[n]));
                n++;
        }
        return n;
}

static void test_csv_parses_to_the_rows_of_pm_init(void **state) {
        ExpectedList l = expected_events(&info);
        CsvTable t;
        ToolRun run;

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

/* The JSON document must describe exactly the expected events. */
static void assert_json_lists(const char *text, const ExpectedList *l) {
        g_autoptr(JsonParser) parser = json_parser_new();
        g_autoptr(GError) error = NULL;
        JsonObject *doc;
        JsonArray *events;

        if (!json_parser_load_from_data(parser, text, -1, &error))
                fail_msg("pmlist printed no valid JSON (%s): %s", error->message, text);
        doc = json_node_get_object(json_parser_get_root(parser));
        assert_non_null(doc);
        assert_string_equal(json_object_get_string_member(doc, "processor"), info.proc_name);
        assert_int_equal(json_object_get_int_member(doc, "counters"), info.maxpmcs);
        events = json_object_get_array_member(doc, "events");
        assert_non_null(events);
        assert_int_equal(json_array_get_length(events), l->n);
        for (size_t i = 0; i < l->n; i++) {
                JsonObject *o = json_array_get_object_element(events, i);
                const pm_events_t *e = l->events[i].e;
                JsonArray *counters = json_object_get_array_member(o, "counters");
                unsigned mask = 0;

                assert_int_equal(json_object_get_int_member(o, "id"), e->event_id);
                assert_string_equal(json_object_get_string_member(o, "name"), e->short_name);
                assert_string_equal(json_object_get_string_member(o, "long_name"), e->long_name);
                assert_string_equal(json_object_get_string_member(o, "status"), status_word(e->status));
                assert_string_equal(json_object_get_string_member(o, "description"), e->description);
                assert_non_null(counters);
                for (guint c = 0; c < json_array_get_length(counters); c++) {
                        gint64 v = json_array_get_int_element(counters, c);
                        assert_in_range(v, 0, info.maxpmcs - 1);
                        assert_false(mask & 1u << v);           /* each counter once */
                        mask |= 1u << v;
                }
                assert_int_equal(mask, l->events[i].counters);
        }
}

static void test_json_parses_and_matches_pm_init(void **state) {
        ExpectedList l = expected_events(&info);
        ToolRun run;

        (void) state;
        pmlist_ok(&run, "--json");
        assert_json_lists(run.out, &l);
        tool_run_done(&run);
        pmlist_ok(&run, "--format j");
        assert_json_lists(run.out, &l);
        tool_run_done(&run);
        free(l.events);
}

/* With COLUMNS set, libsmartcols cuts descriptions so that rows fit; -d keeps them whole. */
static void test_text_fits_descriptions_to_the_width(void **state) {
        ExpectedList l = expected_events(&info);
        size_t w_id = 2, w_name = 4, w_status = 6, room = 30, width, n, n_cut = 0;
        TextRow *rows = calloc(l.n + 1, sizeof(TextRow));
        static char env[32];
        ToolRun run;

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
        run_pmlist_full(0, env, &run, "%s", "");
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
        run_pmlist_full(0, env, &run, "-d --exact -e PM_PAGE_FLT");
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
        ToolRun run, direct;

        (void) state;
        snprintf(path, sizeof(path), "%s/pmlist.json", fixture.dir);
        pmlist_ok(&run, "--json -o %s", path);
        assert_string_equal(run.out, "");
        assert_true(g_file_get_contents(path, &json, NULL, NULL));
        assert_json_lists(json, &l);
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
        ToolRun run;

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
        ToolRun run;

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
        static const char *const shared[] = { "PMAPI_PMLIST", NULL };
        int r;

        (void) state;
        r = bus_fixture_start(&fixture, NULL);
        if (r == 0)
                r = bus_fixture_share_programs(&fixture, shared);
        return r == 0 ? pm_init(ALL_STATUSES, &info) : r;
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
