/* test-tool-conventions.c: what every tool owes its user whatever the workload (man/pmapi-tools.7).
 * Thread names a workload chose to be hostile (an ANSI escape, a tab, a newline, quotes and commas,
 * a name the kernel cut inside a UTF-8 sequence) through pmcount's three formats: text and CSV
 * never write a control character raw (CSV writes a name as the table does, \x1b), JSON gives
 * back each name exactly as pmapid sends it. A count that could not be whole says so in every format and in the exit
 * status. And the four tools agree on their exit statuses, their messages and their --help. */
#include <errno.h>
#include <fcntl.h>
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
#include "tool-run.h"
#include "workload.h"

static BusFixture fixture;

#define PMCOUNT getenv("PMAPI_PMCOUNT")
#define WORKLOAD getenv("PMAPI_TOOL_WORKLOAD")

/* The names the workload gives its threads, what pmapid sends for each (the kernel keeps 15 bytes,
 * so "éééééééé" ends in half a character, which pmapid writes as \xc3), and what pmcount's CSV
 * writes: the name as the table writes it, control characters as \xNN and the backslash of an
 * escape as \x5c. */
static const struct { const char *set, *sent, *csv; } names[] = {
        { "\x1b[31mred", "\x1b[31mred", "\\x1b[31mred" },
        { "tab\there", "tab\there", "tab\\x09here" },
        { "new\nline", "new\nline", "new\\x0aline" },
        { "quote\"comma,", "quote\"comma,", "quote\"comma," },
        { "na\xc3\xafve\xe2\x86\x92\xc3\xa9", "na\xc3\xafve\xe2\x86\x92\xc3\xa9", "na\xc3\xafve\xe2\x86\x92\xc3\xa9" },
        { "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\\xc3",
          "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\\x5cxc3" },
        { "c1\xc2\x9b" "31mred", "c1\xc2\x9b" "31mred", "c1\\xc2\\x9b" "31mred" },
};
#define N_NAMES (sizeof(names) / sizeof(names[0]))

static void run_names(ToolRun *r, const char *format) {
        const char *argv[8 + N_NAMES] = { PMCOUNT, "--per-thread", "-e", "PM_PAGE_FLT" };
        size_t n = 4;

        if (format)
                argv[n++] = format;
        argv[n++] = "--";
        argv[n++] = WORKLOAD;
        argv[n++] = "names";
        for (size_t i = 0; i < N_NAMES; i++)
                argv[n++] = names[i].set;
        argv[n] = NULL;
        tool_run(r, 0, argv);
        if (r->status != 0)
                printf("# pmcount -> %d: %s\n", r->status, r->err);
        assert_int_equal(r->status, 0);
}

/* Which of the names a string is (as pmapid sends it, or as CSV writes it); -1 for none. */
static int name_index(const char *comm, bool csv) {
        for (size_t i = 0; i < N_NAMES; i++)
                if (strcmp(comm, csv ? names[i].csv : names[i].sent) == 0)
                        return (int) i;
        return -1;
}

static void test_hostile_names_in_text(void **state) {
        g_auto(GStrv) lines = NULL;
        bool in_threads = false;
        size_t rows = 0;
        ToolRun r;

        (void) state;
        run_names(&r, NULL);
        printf("%s", r.err);
        for (const char *p = r.err; *p; p++)
                assert_true(*p == '\n' || (unsigned char) *p >= 0x20);
        assert_non_null(strstr(r.err, "\\x1b[31mred"));
        assert_non_null(strstr(r.err, "tab\\x09here"));
        assert_non_null(strstr(r.err, "new\\x0aline"));
        assert_non_null(strstr(r.err, "na\xc3\xafve\xe2\x86\x92\xc3\xa9"));
        /* A C1 control (U+009B, which a terminal may take for CSI) is escaped too, in the table and
         * in the command line's words. */
        assert_null(strstr(r.err, "\xc2\x9b"));
        assert_non_null(strstr(r.err, "c1\\xc2\\x9b31mred"));
        assert_non_null(strstr(r.err, "$'c1\\xc2\\x9b31mred'"));
        /* The name pmapid sent with "\xc3" in it: the table escapes the backslash too (\x5c), so
         * that what the kernel held and what pmapid escaped cannot be mistaken for each other. */
        assert_non_null(strstr(r.err, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\\x5cxc3"));
        /* One line per thread, every one as wide on the screen as the header. */
        lines = g_strsplit(r.err, "\n", -1);
        for (char **l = lines; *l; l++) {
                static long width;

                if (g_str_has_prefix(*l, "Threads (")) {
                        in_threads = true;
                        width = -1;
                        continue;
                }
                if (!in_threads || **l == '\0')
                        continue;
                assert_true(g_utf8_validate(*l, -1, NULL));
                if (width < 0)
                        width = g_utf8_strlen(*l, -1);
                else {
                        rows++;
                        /* The last column is right-aligned: every row ends where the header does. */
                        assert_int_equal(g_utf8_strlen(*l, -1), width);
                }
        }
        assert_int_equal(rows, N_NAMES + 1);            /* and the main thread */
        tool_run_done(&r);
}

static void test_hostile_names_in_csv_and_json(void **state) {
        g_autoptr(JsonParser) parser = json_parser_new();
        bool seen_csv[N_NAMES] = {}, seen_json[N_NAMES] = {};
        JsonArray *rows;
        char ***csv;
        ToolRun r;

        (void) state;
        run_names(&r, "--csv");
        /* A CSV printed to a terminal cannot drive it: no control character but the rows' ends. */
        for (const char *p = r.err; *p; p++)
                if (*p != '\n' && ((unsigned char) *p < 0x20 || *p == 0x7f || strncmp(p, "\xc2\x9b", 2) == 0))
                        fail_msg("pmcount --csv wrote control character 0x%02x at offset %td", (unsigned char) *p,
                                 p - r.err);
        csv = csv_read(r.err);
        for (size_t i = 1; csv[i]; i++)
                if (strcmp(csv[i][0], "thread") == 0 && name_index(csv[i][3], true) >= 0) {
                        seen_csv[name_index(csv[i][3], true)] = true;
                        assert_int_equal(atoll(csv[i][7]) >= 10, true);
                }
        csv_read_free(csv);
        tool_run_done(&r);

        run_names(&r, "--json");
        assert_true(json_parser_load_from_data(parser, r.err, -1, NULL));
        rows = json_object_get_array_member(json_node_get_object(json_parser_get_root(parser)), "thread_rows");
        for (guint i = 0; i < json_array_get_length(rows); i++) {
                const char *comm = json_object_get_string_member(json_array_get_object_element(rows, i), "comm");
                if (name_index(comm, false) >= 0)
                        seen_json[name_index(comm, false)] = true;
        }
        for (size_t i = 0; i < N_NAMES; i++) {
                assert_true(seen_csv[i]);
                assert_true(seen_json[i]);
        }
        tool_run_done(&r);
}

/* Every tool: the same status for the same failure (pmapi-tools(7)). */
static void expect(int status, const char *prefix, const char *const *argv) {
        ToolRun r;

        tool_run(&r, 0, argv);
        if (r.status != status)
                printf("# %s -> %d, not %d: %s\n", argv[0], r.status, status, r.err);
        assert_int_equal(r.status, status);
        assert_true(g_str_has_prefix(r.err, prefix));
        tool_run_done(&r);
}

static void test_exit_statuses_and_messages_agree(void **state) {
        const char *pmlist = getenv("PMAPI_PMLIST"), *pmctl = getenv("PMAPI_PMCTL"), *pmstat = getenv("PMAPI_PMSTAT");
        const char *const tools[] = { pmlist, pmctl, pmstat, PMCOUNT };
        g_autofree char *saved = g_strdup(getenv("DBUS_SYSTEM_BUS_ADDRESS"));

        (void) state;
        /* Usage: 2, or 125 for a tool that runs a COMMAND; the message names the tool. */
        expect(2, "pmlist: ", (const char *const[]) { pmlist, "--bogus", NULL });
        expect(2, "pmctl: ", (const char *const[]) { pmctl, "--bogus", "list", NULL });
        expect(2, "pmstat: ", (const char *const[]) { pmstat, "--bogus", NULL });
        expect(125, "pmcount: ", (const char *const[]) { PMCOUNT, "--bogus", "--", "/bin/true", NULL });
        /* An unknown event is a usage error too; pmlist's search for one finds nothing: 3. */
        expect(2, "pmstat: unknown event 'NOPE'", (const char *const[]) { pmstat, "-e", "NOPE", NULL });
        expect(2, "pmctl: ", (const char *const[]) { pmctl, "set", "1", "-e", "NOPE", NULL });
        expect(125, "pmcount: unknown event 'NOPE'", (const char *const[]) { PMCOUNT, "-e", "NOPE", "--", "/bin/true", NULL });
        expect(3, "pmlist: no event", (const char *const[]) { pmlist, "-e", "NOPE", NULL });

        /* pmapid out of reach: 1, or 125 for a tool that runs a COMMAND. */
        setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/bus", 1);
        expect(1, "pmlist: ", (const char *const[]) { pmlist, NULL });
        expect(1, "pmctl: ", (const char *const[]) { pmctl, "list", NULL });
        expect(1, "pmstat: ", (const char *const[]) { pmstat, NULL });
        expect(125, "pmstat: ", (const char *const[]) { pmstat, "--proctree", "--", "/bin/true", NULL });
        expect(125, "pmcount: ", (const char *const[]) { PMCOUNT, "--", "/bin/true", NULL });
        setenv("DBUS_SYSTEM_BUS_ADDRESS", saved, 1);

        /* --help names the conventions; --version says whose. */
        for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
                const char *base = strrchr(tools[i], '/') + 1;
                g_autofree char *version = g_strdup_printf("%s (pmapi) ", base);
                ToolRun r;

                tool_run(&r, 0, (const char *const[]) { tools[i], "--help", NULL });
                assert_int_equal(r.status, 0);
                assert_non_null(strstr(r.out, "pmapi-tools(7)"));
                tool_run_done(&r);
                tool_run(&r, 0, (const char *const[]) { tools[i], "--version", NULL });
                assert_int_equal(r.status, 0);
                assert_true(g_str_has_prefix(r.out, version));
                tool_run_done(&r);
        }
}

#define LIMIT 4
/* thread-pages with 8 workers, each touching its pages 100 times: tens of milliseconds. Where pmapid
 * inherits inside the kernel, a thread that is over before pmapid reads its fork record was counted
 * whole from its birth and never needed a context; only threads still running then meet the
 * limit, and these still are. */
#define WORKERS "8", "100", "100"

/* pmapid limited to LIMIT contexts for nobody, whose command runs 8 workers: the threads that
 * could not join ran uncounted, and every form of the report says so, as does the exit status. */
static void test_partial_counts_are_loud(void **state) {
        const char *tp = getenv("PMAPI_THREAD_PAGES");
        g_autoptr(JsonParser) parser = json_parser_new();
        char conf[64], path[512];
        JsonObject *doc;
        ToolRun r;

        (void) state;
        snprintf(conf, sizeof(conf), "[Limits]\nMaxContextsPerUser=%d\n", LIMIT);
        assert_int_equal(bus_fixture_restart_with_config(&fixture, conf), 0);
        tool_run(&r, 65534, (const char *const[]) { PMCOUNT, "-e", "PM_PAGE_FLT", "--json", "--", tp, WORKERS,
                                                    NULL });
        printf("# pmcount -> %d: %s", r.status, r.err);
        assert_int_equal(r.status, 124);
        assert_true(json_parser_load_from_data(parser, r.err, -1, NULL));
        doc = json_node_get_object(json_parser_get_root(parser));
        assert_true(json_object_get_boolean_member(doc, "partial"));
        /* None lost silently: each of the command's 10 threads (the main one, a warm-up, 8 workers)
         * was counted or is among those missed (a thread refused first and attached later, when
         * an exited member had freed its place, is in both: so all 10 may be counted, each for
         * less than its whole life, which is why the report says partial). */
        assert_true(json_object_get_int_member(doc, "threads_missed") >= 1);
        assert_true(json_object_get_int_member(doc, "threads") + json_object_get_int_member(doc, "threads_missed") >= 10);
        assert_int_equal(json_object_get_int_member(doc, "exit_code"), 0);    /* the command's own */
        tool_run_done(&r);

        tool_run(&r, 65534, (const char *const[]) { PMCOUNT, "-e", "PM_PAGE_FLT", "--", tp, WORKERS, NULL });
        printf("%s", r.err);
        assert_int_equal(r.status, 124);
        assert_non_null(strstr(r.err, "\nPartial:        "));
        assert_non_null(strstr(r.err, "ran uncounted"));
        assert_non_null(strstr(r.err, "partial: at least"));
        tool_run_done(&r);

        tool_run(&r, 65534, (const char *const[]) { PMCOUNT, "-e", "PM_PAGE_FLT", "--csv", "--", tp, WORKERS,
                                                    NULL });
        assert_int_equal(r.status, 124);
        assert_non_null(strstr(r.err, "\ngroup,,,,,partial,,1,,,\n"));
        tool_run_done(&r);

        /* A report in a file: stderr says so as well. */
        snprintf(path, sizeof(path), "%s/bin/report", fixture.dir);
        assert_int_equal(close(open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)), 0);
        assert_int_equal(chown(path, 65534, 65534), 0);
        tool_run(&r, 65534, (const char *const[]) { PMCOUNT, "-o", path, "--", tp, WORKERS, NULL });
        assert_int_equal(r.status, 124);
        assert_non_null(strstr(r.err, "pmcount: the counts are partial"));
        tool_run_done(&r);
        unlink(path);
        assert_int_equal(bus_fixture_restart_with_config(&fixture, ""), 0);
}

static int setup(void **state) {
        static const char *const shared[] = { "PMAPI_PMCOUNT", "PMAPI_THREAD_PAGES", "PMAPI_PRELOAD",
                                              "PMAPI_TOOL_WORKLOAD", NULL };
        int r;

        (void) state;
        r = bus_fixture_start(&fixture, NULL);
        return r == 0 ? bus_fixture_share_programs(&fixture, shared) : r;
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_hostile_names_in_text),
                cmocka_unit_test(test_hostile_names_in_csv_and_json),
                cmocka_unit_test(test_exit_statuses_and_messages_agree),
                cmocka_unit_test(test_partial_counts_are_loud),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
