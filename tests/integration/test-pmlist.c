/* test-pmlist.c: the pmlist binary against a real pmapid: the catalog it lists must be exactly what
 * pm_init(), called in this test, returns, each event once with the counters that take it (the text
 * table, and CSV read back with csv-read.c or JSON parsed with json-glib where a check needs the
 * fields), for an unprivileged user too; the status filter, the counter choice, the name search
 * and its no-match status (3), usage errors (2) and the message and status (1) when pmapid cannot
 * be reached (man/pmapi-tools.7); with -g, the predefined event groups pm_init(PM_GET_GROUPS)
 * returns, among them pm_faults (1) and pm_sched (2) with their software events, and an unknown
 * group's status (3). The forms of the output (--format, -o, -x, -n, --raw, the
 * width) are test-pmlist-output.c's; the CSV writer and the event index alone,
 * tests/unit/test-utils.c's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-glib/json-glib.h>

#include "bus-fixture.h"
#include "pmapi.h"
#include "pmlist-expect.h"
#include "tool-run.h"

static BusFixture fixture;
static pm_info_t info;                  /* pm_init(ALL_STATUSES): still valid after later pm_inits */

static void test_text_lists_every_event_once_as_pm_init_reports_it(void **state) {
        ExpectedList l = expected_events(&info);
        const Expected *page = find_expected(&l, "PM_PAGE_FLT");
        size_t n_status[PM_CAVEAT + 1] = {}, n;
        bool found = false;
        TextRow *rows = calloc(l.n + 1, sizeof(TextRow));
        char header[512], titles[256];
        ToolRun run = {};

        (void) state;
        assert_non_null(page);
        for (size_t i = 0; i < l.n; i++) {
                assert_in_range(l.events[i].e->status, PM_VERIFIED, PM_CAVEAT);
                n_status[(int) l.events[i].e->status]++;
        }
        pmlist_ok(&run, "%s", "");
        snprintf(header, sizeof(header), "Processor: %s; %d counters; %zu event%s (%zu verified, %zu caveat, "
                 "%zu unverified)\n", info.proc_name, info.maxpmcs, l.n, l.n == 1 ? "" : "s",
                 n_status[PM_VERIFIED], n_status[PM_CAVEAT], n_status[PM_UNVERIFIED]);
        assert_true(strncmp(run.out, header, strlen(header)) == 0);
        /* The titles line up with right-aligned ids: "  ID  NAME ..." when some id has 4 digits. */
        sscanf(run.out + strlen(header), "%255[^\n]", titles);
        assert_non_null(strstr(titles, "ID  NAME  "));
        assert_non_null(strstr(titles, "  STATUS  "));
        assert_true(strlen(titles) >= 11 && strcmp(titles + strlen(titles) - 11, "DESCRIPTION") == 0);

        /* Not a terminal and no COLUMNS: whole descriptions, each event once, in pm_init's order. */
        n = text_rows(run.out, rows, l.n + 1);
        assert_int_equal(n, l.n);
        for (size_t i = 0; i < n; i++) {
                const pm_events_t *e = l.events[i].e;
                assert_int_equal(rows[i].id, e->event_id);
                assert_string_equal(rows[i].name, e->short_name);
                assert_string_equal(rows[i].status, status_word(e->status));
                assert_int_equal(rows[i].description_length, strlen(e->description));
                assert_memory_equal(rows[i].description, e->description, strlen(e->description));
        }
        /* The page-fault event, with the id and status pm_init gives it. */
        for (size_t i = 0; i < n; i++)
                if (strcmp(rows[i].name, "PM_PAGE_FLT") == 0) {
                        printf("# PM_PAGE_FLT: id %d, %s\n", rows[i].id, rows[i].status);
                        assert_int_equal(rows[i].id, page->e->event_id);
                        assert_string_equal(rows[i].status, status_word(page->e->status));
                        assert_false(found);
                        found = true;
                }
        assert_true(found);
        tool_run_done(&run);
        free(rows);
        free(l.events);
}

static void assert_text_lists_only(const char *filter, int bits) {
        pm_info_t filtered;
        ExpectedList l;
        TextRow *rows;
        size_t n;
        ToolRun run = {};

        assert_int_equal(pm_init(bits, &filtered), 0);
        l = expected_events(&filtered);
        rows = calloc(l.n + 1, sizeof(TextRow));
        pmlist_ok(&run, "-f %s", filter);
        n = text_rows(run.out, rows, l.n + 1);
        printf("# pmlist -f %s: %zu events, pm_init(%d): %zu\n", filter, n, bits, l.n);
        assert_int_equal(n, l.n);
        for (size_t i = 0; i < n; i++) {
                assert_int_equal(rows[i].id, l.events[i].e->event_id);
                assert_string_equal(rows[i].status, status_word(l.events[i].e->status));
                assert_true(bits & l.events[i].e->status);
        }
        tool_run_done(&run);
        free(rows);
        free(l.events);
}

static void test_filter_lists_only_the_statuses_it_names(void **state) {
        ExpectedList all = expected_events(&info);
        size_t n_verified = 0;
        char expect[128];
        ToolRun run = {};

        (void) state;
        for (size_t i = 0; i < all.n; i++)
                n_verified += all.events[i].e->status == PM_VERIFIED;
        assert_true(n_verified > 0);                    /* PM_PAGE_FLT at least */
        assert_text_lists_only("v", PM_VERIFIED);
        assert_text_lists_only("u", PM_UNVERIFIED);
        assert_text_lists_only("c", PM_CAVEAT);
        assert_text_lists_only("u,c", PM_UNVERIFIED | PM_CAVEAT);
        assert_text_lists_only("verified,Caveat", PM_VERIFIED | PM_CAVEAT);
        assert_text_lists_only("v,u,c", ALL_STATUSES);

        /* The header counts what -f v leaves. */
        pmlist_ok(&run, "-f v");
        snprintf(expect, sizeof(expect), "; %zu event%s (%zu verified, 0 caveat, 0 unverified)\n", n_verified,
                 n_verified == 1 ? "" : "s", n_verified);
        assert_non_null(strstr(run.out, expect));
        tool_run_done(&run);
        free(all.events);
}

/* -c N: the events whose counter mask has bit N, which on Linux is every event. */
static void test_counter_lists_the_events_that_counter_takes(void **state) {
        int last = info.maxpmcs - 1;
        ExpectedList l = expected_events(&info);
        char expect[64];
        size_t n = 0;
        ToolRun run = {};

        (void) state;
        for (size_t i = 0; i < l.n; i++)
                if (l.events[i].counters & 1u << last)
                        l.events[n++] = l.events[i];
        assert_int_equal(n, (size_t) info.maxevents[last]);
        l.n = n;
        pmlist_ok(&run, "--json -c %d", last);
        assert_json_lists(run.out, &l, &info);
        tool_run_done(&run);
        pmlist_ok(&run, "-c %d", last);
        snprintf(expect, sizeof(expect), "; counter %d: %zu event", last, l.n);
        assert_non_null(strstr(run.out, expect));
        tool_run_done(&run);
        free(l.events);

        /* -1 is every counter, as on AIX. */
        l = expected_events(&info);
        pmlist_ok(&run, "--json -c -1");
        assert_json_lists(run.out, &l, &info);
        tool_run_done(&run);
        free(l.events);
}

/* The expected events whose short or long name contains pattern (or is it, exact), in any case. */
static ExpectedList expected_matches(const char *pattern, bool exact) {
        ExpectedList l = expected_events(&info);
        size_t n = 0;

        for (size_t i = 0; i < l.n; i++) {
                const pm_events_t *e = l.events[i].e;
                bool match = exact ? strcasecmp(e->short_name, pattern) == 0 || strcasecmp(e->long_name, pattern) == 0
                                   : strcasestr(e->short_name, pattern) || strcasestr(e->long_name, pattern);
                if (match)
                        l.events[n++] = l.events[i];
        }
        l.n = n;
        return l;
}

static void assert_search_finds(const char *options, const char *pattern, bool exact, size_t at_least) {
        ExpectedList l = expected_matches(pattern, exact);
        CsvTable t;
        ToolRun run = {};

        pmlist_ok(&run, "--csv %s %s", options, pattern);
        t = csv_parse(run.out);
        printf("# pmlist %s %s: %zu events\n", options, pattern, t.n_rows - 1);
        assert_true(l.n >= at_least);
        assert_csv_lists(&t, &l, false);
        csv_free(&t);
        tool_run_done(&run);
        free(l.events);
}

static void test_search_finds_names_by_substring_in_any_case(void **state) {
        const Expected *page;
        ExpectedList all = expected_events(&info);
        char expect[256];
        CsvTable t;
        ToolRun run = {};

        (void) state;
        page = find_expected(&all, "PM_PAGE_FLT");
        assert_non_null(page);
        assert_search_finds("-e", "page_flt", false, 1);        /* PM_PAGE_FLT */
        assert_search_finds("-e", "Flt", false, 3);             /* page, minor and major faults */
        assert_search_finds("-e", "PAGE-faults", false, 1);     /* the long name, perf::PAGE-FAULTS */
        assert_search_finds("--exact -e", "pm_page_flt", true, 1);      /* exactly one, for scripts */
        assert_search_finds("--exact --search", "PM_PAGE_FLT", true, 1);

        /* Two patterns: either one. */
        pmlist_ok(&run, "--csv -e pm_page_flt -e PM_MINOR_FLT --exact");
        t = csv_parse(run.out);
        assert_int_equal(t.n_rows, 3);
        assert_string_equal(t.rows[1][1], "PM_PAGE_FLT");
        assert_string_equal(t.rows[2][1], "PM_MINOR_FLT");
        csv_free(&t);
        tool_run_done(&run);

        /* No match: status 3 (incomplete, man/pmapi-tools.7), nothing on stdout, the reason on stderr. */
        run_pmlist(&run, "-e no_such_event_anywhere");
        assert_int_equal(run.status, 3);
        assert_string_equal(run.out, "");
        assert_string_equal(run.err, "pmlist: no event matches 'no_such_event_anywhere'\n");
        tool_run_done(&run);
        run_pmlist(&run, "--json --exact -e PM_PAGE");         /* a prefix is no exact name */
        assert_int_equal(run.status, 3);
        assert_string_equal(run.out, "");
        assert_string_equal(run.err, "pmlist: no event is named 'PM_PAGE'\n");
        tool_run_done(&run);
        /* The page-fault event exists, but not with a status the filter selects. */
        run_pmlist(&run, "-f %s -e PM_PAGE_FLT", page->e->status == PM_VERIFIED ? "u,c" : "v");
        assert_int_equal(run.status, 3);
        snprintf(expect, sizeof(expect), "pmlist: no event of the statuses -f selects matches 'PM_PAGE_FLT'\n");
        assert_string_equal(run.err, expect);
        tool_run_done(&run);
        free(all.events);
}

static void test_bad_usage_exits_2_with_a_message(void **state) {
        /* AIX's -o t|c|j|x letters are --format now; the old -x (exact) is --exact, and -x takes a
         * separator: `-x -e NAME` is refused rather than read as the separator "-e". */
        static const char *const bad[] = {
                "-f x", "-f", "-f v,", "-f v,x", "-o x", "-o c", "-o t", "-o j", "-o", "--format yaml",
                "--format x", "--format", "-c abc", "-c 1x", "-c -2", "-x", "-x -e PM_PAGE_FLT", "-x \"",
                "--exact", "-n --csv", "--raw --json", "-x ; -n", "--bogus", "-q", "extra", "-e", "-c 64",
        };
        char expect[128];
        ToolRun run = {};

        (void) state;
        run_pmlist(&run, "-f x");
        assert_int_equal(run.status, 2);
        assert_string_equal(run.out, "");
        assert_true(strncmp(run.err, "pmlist: invalid status 'x' in -f 'x'", 36) == 0);
        tool_run_done(&run);
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                run_pmlist(&run, "%s", bad[i]);
                assert_int_equal(run.status, 2);
                assert_string_equal(run.out, "");
                assert_true(strncmp(run.err, "pmlist: ", 8) == 0);
                assert_non_null(strstr(run.err, "\nTry 'pmlist --help'.\n"));
                tool_run_done(&run);
        }
        /* A counter the machine does not have: known only after pm_init. */
        run_pmlist(&run, "--json -c %d", info.maxpmcs);
        assert_int_equal(run.status, 2);
        assert_string_equal(run.out, "");
        snprintf(expect, sizeof(expect), "pmlist: counter %d does not exist: this machine has counters 0 to %d\n",
                 info.maxpmcs, info.maxpmcs - 1);
        assert_true(strncmp(run.err, expect, strlen(expect)) == 0);
        tool_run_done(&run);

        pmlist_ok(&run, "--help");
        assert_true(strncmp(run.out, "Usage: pmlist", 13) == 0);
        tool_run_done(&run);
        pmlist_ok(&run, "-V");
        assert_string_equal(run.out, "pmlist (pmapi) " PMAPI_VERSION "\n");
        tool_run_done(&run);
}

static void test_unprivileged_user_lists_the_same_catalog(void **state) {
        ExpectedList l = expected_events(&info);
        CsvTable t;
        ToolRun run = {};

        (void) state;
        tool_runf(&run, 65534, NULL, PMLIST, "--csv -d");
        assert_int_equal(run.status, 0);
        t = csv_parse(run.out);
        assert_csv_lists(&t, &l, true);
        csv_free(&t);
        tool_run_done(&run);
        free(l.events);
}

static void test_no_daemon_says_so_and_exits_1(void **state) {
        static char env[400];
        char expect[256];
        ToolRun run = {};

        (void) state;
        snprintf(env, sizeof(env), "DBUS_SYSTEM_BUS_ADDRESS=unix:path=%s/no-such-socket", fixture.dir);
        tool_runf(&run, 0, env, PMLIST, "%s", "");
        assert_int_equal(run.status, 1);
        assert_string_equal(run.out, "");
        snprintf(expect, sizeof(expect), "pmlist: pm_init: %s\n", pm_strerror(NULL, PM_ENODAEMON));
        assert_string_equal(run.err, expect);
        tool_run_done(&run);

        /* With --json, the error is also a document on stdout. */
        tool_runf(&run, 0, env, PMLIST, "--json");
        assert_int_equal(run.status, 1);
        {
                g_autoptr(JsonParser) parser = json_parser_new();
                JsonObject *doc;
                assert_true(json_parser_load_from_data(parser, run.out, -1, NULL));
                doc = json_node_get_object(json_parser_get_root(parser));
                assert_false(json_object_get_boolean_member(doc, "ok"));
                assert_int_equal(json_object_get_int_member(doc, "error"), PM_ENODAEMON);
                assert_string_equal(json_object_get_string_member(doc, "message"), pm_strerror(NULL, PM_ENODAEMON));
        }
        tool_run_done(&run);
}

/* ---- -g: the predefined event groups ---- */

/* The groups every machine has: their events are software ones (the lead's list, issue 20). */
static const struct {
        int id;
        const char *name, *events;
} known_groups[] = {
        { 0, "pm_faults", "PM_PAGE_FLT,PM_MINOR_FLT,PM_MAJOR_FLT" },       /* from 0, as AIX */
        { 1, "pm_sched", "PM_TASK_CLOCK,PM_CTX_SW,PM_CPU_MIGR" },
};

/* The short name of event id in pm_init's list for counter c; fails the test if it is not there. */
static const char *catalog_name(int c, int id) {
        for (int i = 0; i < info.maxevents[c]; i++)
                if (info.list_events[c][i].event_id == id)
                        return info.list_events[c][i].short_name;
        fail_msg("a group counts event %d on counter %d, which pm_init does not list", id, c);
        return NULL;
}

/* A group's events as pmlist writes them, from pm_init's lists: names per counter, '-' for idle
 * ones, none after the last. */
static void group_events_text(const pm_groups_t *g, char *buf, size_t size) {
        int last = -1;

        buf[0] = '\0';
        for (int c = 0; c < info.maxpmcs; c++)
                if (g->events[c] != COUNT_NOTHING)
                        last = c;
        for (int c = 0; c <= last; c++)
                snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", c > 0 ? "," : "",
                         g->events[c] == COUNT_NOTHING ? "-" : catalog_name(c, g->events[c]));
}

static void test_groups_list_what_pm_init_returns(void **state) {
        pm_info_t ginfo;
        pm_groups_info_t groups;
        g_autoptr(JsonNode) root = NULL;
        JsonArray *list;
        char header[256], events[1024], name[256], listed[1024];
        const char *line;
        size_t n_known = 0;
        ToolRun run = {};

        (void) state;
        assert_int_equal(pm_init(ALL_STATUSES | PM_GET_GROUPS, &ginfo, &groups), 0);
        assert_true(groups.maxgroups >= 2);
        for (int i = 0; i < groups.maxgroups; i++)
                assert_int_equal(groups.event_groups[i].group_id, i);
        for (int i = 0; i < groups.maxgroups; i++)
                for (size_t k = 0; k < sizeof(known_groups) / sizeof(known_groups[0]); k++)
                        if (groups.event_groups[i].group_id == known_groups[k].id) {
                                assert_string_equal(groups.event_groups[i].short_name, known_groups[k].name);
                                group_events_text(&groups.event_groups[i], events, sizeof(events));
                                assert_string_equal(events, known_groups[k].events);
                                n_known++;
                        }
        assert_int_equal(n_known, 2);

        /* Text: the header, the titles, then one row per group, in pm_init's order, whole. */
        pmlist_ok(&run, "-g");
        snprintf(header, sizeof(header), "Processor: %s; %d counters; %d event groups\n", info.proc_name,
                 info.maxpmcs, groups.maxgroups);
        assert_true(strncmp(run.out, header, strlen(header)) == 0);
        line = strchr(run.out + strlen(header), '\n') + 1;
        assert_true(strncmp(run.out + strlen(header), "ID  NAME", 8) == 0 ||
                    strncmp(run.out + strlen(header), " ID  NAME", 9) == 0);
        assert_int_equal(count_lines(run.out), 2 + (size_t) groups.maxgroups);
        for (int i = 0; i < groups.maxgroups; i++, line = strchr(line, '\n') + 1) {
                const pm_groups_t *g = &groups.event_groups[i];
                int id, n_read = 0;

                assert_int_equal(sscanf(line, " %d %255s %1023s %n", &id, name, listed, &n_read), 3);
                printf("# %.*s", (int) (strchr(line, '\n') + 1 - line), line);
                assert_int_equal(id, g->group_id);
                assert_string_equal(name, g->short_name);
                group_events_text(g, events, sizeof(events));
                assert_string_equal(listed, events);
                assert_int_equal(strcspn(line + n_read, "\n"), strlen(g->description));
                assert_memory_equal(line + n_read, g->description, strlen(g->description));
        }
        tool_run_done(&run);

        /* JSON: every member of every group, each used counter's event by id and name. */
        pmlist_ok(&run, "--json --groups");
        root = parse_json(run.out);
        assert_string_equal(json_object_get_string_member(json_node_get_object(root), "processor"), info.proc_name);
        list = json_object_get_array_member(json_node_get_object(root), "groups");
        assert_int_equal(json_array_get_length(list), groups.maxgroups);
        for (int i = 0; i < groups.maxgroups; i++) {
                const pm_groups_t *g = &groups.event_groups[i];
                JsonObject *o = json_array_get_object_element(list, i);
                JsonArray *ev = json_object_get_array_member(o, "events");
                guint k = 0;

                assert_int_equal(json_object_get_int_member(o, "id"), g->group_id);
                assert_string_equal(json_object_get_string_member(o, "name"), g->short_name);
                assert_string_equal(json_object_get_string_member(o, "long_name"), g->long_name);
                assert_string_equal(json_object_get_string_member(o, "description"), g->description);
                for (int c = 0; c < info.maxpmcs; c++) {
                        JsonObject *e;

                        if (g->events[c] == COUNT_NOTHING)
                                continue;
                        e = json_array_get_object_element(ev, k++);
                        assert_int_equal(json_object_get_int_member(e, "counter"), c);
                        assert_int_equal(json_object_get_int_member(e, "id"), g->events[c]);
                        assert_string_equal(json_object_get_string_member(e, "name"), catalog_name(c, g->events[c]));
                }
                assert_int_equal(json_array_get_length(ev), k);
        }
        tool_run_done(&run);

        /* One group by id, whichever way it is written; -1 (AIX) is every group. */
        for (const char *const *arg = (const char *const[]) { "-g 1", "-g1", "--groups=1", NULL }; *arg; arg++) {
                CsvTable t;

                pmlist_ok(&run, "--csv %s", *arg);
                t = csv_parse(run.out);
                assert_int_equal(t.n_rows, 2);
                assert_string_equal(t.rows[0][2], "events");
                assert_string_equal(t.rows[1][0], "1");
                assert_string_equal(t.rows[1][1], "pm_sched");
                assert_string_equal(t.rows[1][2], "PM_TASK_CLOCK,PM_CTX_SW,PM_CPU_MIGR");
                csv_free(&t);
                tool_run_done(&run);
        }
        pmlist_ok(&run, "-n -g -1");
        assert_int_equal(count_lines(run.out), (size_t) groups.maxgroups);
        tool_run_done(&run);
        /* Group 0 is a group, not "no group". */
        pmlist_ok(&run, "--csv -g 0");
        {
                CsvTable t = csv_parse(run.out);

                assert_int_equal(t.n_rows, 2);
                assert_string_equal(t.rows[1][0], "0");
                assert_string_equal(t.rows[1][1], "pm_faults");
                csv_free(&t);
        }
        tool_run_done(&run);

        /* -f: the groups as pm_init gives them under that filter: every one, at its id. */
        assert_int_equal(pm_init(PM_VERIFIED | PM_GET_GROUPS, &ginfo, &groups), 0);
        pmlist_ok(&run, "--csv -g -f v");
        {
                CsvTable t = csv_parse(run.out);

                printf("# pmlist -g -f v: %zu groups\n", t.n_rows - 1);
                assert_int_equal(t.n_rows, 1 + (size_t) groups.maxgroups);
                for (int i = 0; i < groups.maxgroups; i++)
                        assert_int_equal(atoi(t.rows[1 + i][0]), groups.event_groups[i].group_id);
                csv_free(&t);
        }
        tool_run_done(&run);
}

/* A group this machine does not have: as an -e that matches nothing, 3 and why; -g chooses groups,
 * not events. */
static void test_unknown_group_exits_3_and_g_takes_no_event_choice(void **state) {
        static const char *const bad[] = { "-g -e PM_PAGE_FLT", "-g 1 -c 0", "-g x", "--groups=x", "-g 1 --exact" };
        ToolRun run = {};

        (void) state;
        run_pmlist(&run, "-g 99");
        assert_int_equal(run.status, 3);
        assert_string_equal(run.out, "");
        assert_string_equal(run.err, "pmlist: no event group has id 99 on this machine ('pmlist -g' lists those "
                                     "it has)\n");
        tool_run_done(&run);
        run_pmlist(&run, "--json -g 99");
        assert_int_equal(run.status, 3);
        assert_string_equal(run.out, "");
        tool_run_done(&run);
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                run_pmlist(&run, "%s", bad[i]);
                assert_int_equal(run.status, 2);
                assert_string_equal(run.out, "");
                assert_non_null(strstr(run.err, "\nTry 'pmlist --help'.\n"));
                tool_run_done(&run);
        }
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
                cmocka_unit_test(test_text_lists_every_event_once_as_pm_init_reports_it),
                cmocka_unit_test(test_filter_lists_only_the_statuses_it_names),
                cmocka_unit_test(test_counter_lists_the_events_that_counter_takes),
                cmocka_unit_test(test_search_finds_names_by_substring_in_any_case),
                cmocka_unit_test(test_bad_usage_exits_2_with_a_message),
                cmocka_unit_test(test_unprivileged_user_lists_the_same_catalog),
                cmocka_unit_test(test_no_daemon_says_so_and_exits_1),
                cmocka_unit_test(test_groups_list_what_pm_init_returns),
                cmocka_unit_test(test_unknown_group_exits_3_and_g_takes_no_event_choice),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
