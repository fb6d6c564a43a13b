/* test-pmctl-output.c: where pmctl writes and how, against a real pmapid: -o FILE takes what stdout
 * would have had while messages stay on stderr; counts with thousands separators, or plain with
 * --no-big-num; thread names that a hostile workload chose, escaped in list's table and whole in
 * its JSON (parsed with json-glib). Also the JSON string escaping and the thousands separators of
 * the tools' output helpers (json-writer.h, text-table.h) that pmctl prints with. What pmctl reads
 * and shows is test-pmctl.c's and test-pmctl-watch.c's. */
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-glib/json-glib.h>

#include "bus-fixture.h"
#include "json-writer.h"
#include "macro.h"
#include "pmapi.h"
#include "text-table.h"
#include "pmctl-target.h"
#include "tool-run.h"

static BusFixture fixture;
static pm_info_t info;

/* ESC and a colour, a tab, a newline and a byte that is not UTF-8: 11 of the kernel's 15 bytes. */
#define HOSTILE_NAME "a\x1b[31mb\tc\nd\xff"

typedef struct Named {
        int fd[2];
        pid_t tid;
} Named;

static void *named_thread(void *p) {
        Named *n = p;
        char c;

        (void) prctl(PR_SET_NAME, HOSTILE_NAME, 0, 0, 0);
        __atomic_store_n(&n->tid, gettid(), __ATOMIC_RELEASE);
        (void) read(n->fd[0], &c, 1);           /* parked until the test closes the pipe */
        return NULL;
}

/* list reads each thread's name itself: the table shows a hostile one escaped on one row, JSON gives
 * it back whole (its bad byte as \xNN text, as pmapid sends names). */
static void test_list_names_threads_and_escapes_hostile_names(void **state) {
        g_autoptr(JsonNode) root = NULL;
        Named n = {};
        JsonObject *e;
        char expect[64];
        pthread_t t;
        _cleanup_(tool_run_done) ToolRun run = {};

        (void) state;
        assert_int_equal(pipe2(n.fd, O_CLOEXEC), 0);
        assert_int_equal(pthread_create(&t, NULL, named_thread, &n), 0);
        while (!__atomic_load_n(&n.tid, __ATOMIC_ACQUIRE))
                usleep(100);
        pmctl_ok(&run, "set %d %d -e PM_PAGE_FLT", getpid(), n.tid);

        pmctl_ok(&run, "list");
        printf("# %s", run.out);
        assert_null(memchr(run.out, 0x1b, strlen(run.out)));   /* nothing for a terminal to obey */
        assert_null(strchr(run.out, '\t'));
        assert_int_equal(count_lines(run.out), 2);              /* the titles and one row */
        snprintf(expect, sizeof(expect), "%d  a\\x1b[31mb\\x09c\\x0ad\\xff  ", n.tid);
        assert_non_null(strstr(run.out, expect));

        pmctl_ok(&run, "--json list");
        for (const char *p = run.out; *p; p++)
                assert_true((unsigned char) *p >= 0x20 || *p == '\n');
        root = parse_json(run.out);
        e = list_entry(json_node_get_array(root), n.tid);
        assert_non_null(e);
        assert_string_equal(json_object_get_string_member(e, "comm"), "a\x1b[31mb\tc\nd\\xff");

        pmctl_ok(&run, "delete %d %d", getpid(), n.tid);
        close(n.fd[1]);
        assert_int_equal(pthread_join(t, NULL), 0);
        close(n.fd[0]);
}

/* The value of a count as the text output writes it ("1,234"), or -1 if it is not written so. */
static long long grouped(const char *s) {
        char plain[64], back[THOUSANDS_MAX];
        size_t o = 0;

        for (const char *p = s; *p && o + 1 < sizeof(plain); p++)
                if (*p != ',')
                        plain[o++] = *p;
        plain[o] = '\0';
        if (o == 0 || strspn(plain, "0123456789") != o)
                return -1;
        return strcmp(format_thousands(atoll(plain), back), s) == 0 ? atoll(plain) : -1;
}

/* -o FILE takes what stdout would have had, messages stay on stderr; --no-big-num. */
static void test_output_file_and_plain_numbers(void **state) {
        g_autofree char *text = NULL;
        g_autoptr(JsonNode) root = NULL;
        char path[320], value[64];
        long long n;
        _cleanup_(tool_run_done) ToolRun run = {};

        (void) state;
        tool_target_start();
        pmctl_ok(&run, "set %d %d -e PM_PAGE_FLT -m user,count", PID, WORKER);
        tool_target_touch(1300);
        snprintf(path, sizeof(path), "%s/pmctl.json", fixture.dir);
        pmctl_ok(&run, "--json -o %s data %d %d", path, PID, WORKER);
        assert_string_equal(run.out, "");
        assert_true(g_file_get_contents(path, &text, NULL, NULL));
        root = parse_json(text);
        n = json_object_get_int_member(counter_at(json_node_get_object(root), 0), "value");
        assert_in_range(n, 1298, 1302);

        pmctl_ok(&run, "data --no-big-num %d %d", PID, WORKER);
        assert_non_null(strstr(run.out, "PM_PAGE_FLT"));
        assert_int_equal(sscanf(strstr(run.out, "PM_PAGE_FLT") + strlen("PM_PAGE_FLT"), "%63s", value), 1);
        assert_int_equal(atoll(value), n);
        assert_null(strchr(value, ','));
        pmctl_ok(&run, "data %d %d", PID, WORKER);
        assert_int_equal(sscanf(strstr(run.out, "PM_PAGE_FLT") + strlen("PM_PAGE_FLT"), "%63s", value), 1);
        assert_int_equal(grouped(value), n);
        assert_non_null(strchr(value, ','));

        /* A failed call: the reason on stderr, the file empty. */
        pmctl_ok(&run, "delete %d %d", PID, WORKER);
        run_pmctl(&run, "-o %s data %d %d", path, PID, WORKER);
        assert_int_equal(run.status, 1);
        assert_string_equal(run.out, "");
        assert_non_null(strstr(run.err, pm_strerror(NULL, PM_ENOCONTEXT)));
        g_free(g_steal_pointer(&text));
        assert_true(g_file_get_contents(path, &text, NULL, NULL));
        assert_string_equal(text, "");
        assert_int_equal(unlink(path), 0);

        run_pmctl(&run, "-o %s/no-such-directory/out list", fixture.dir);
        assert_int_equal(run.status, 1);
        assert_true(g_str_has_prefix(run.err, "pmctl: cannot open '"));
}

/* What json_write_escaped makes of s, parsed back by json-glib. */
static char *escape_and_parse(const char *s, char **ret_raw) {
        g_autoptr(JsonParser) parser = json_parser_new();
        size_t size;
        char *raw;
        FILE *f = open_memstream(&raw, &size);

        assert_non_null(f);
        json_write_escaped(f, s);
        assert_int_equal(fclose(f), 0);
        assert_true(g_utf8_validate(raw, -1, NULL));
        assert_true(json_parser_load_from_data(parser, raw, -1, NULL));
        *ret_raw = raw;
        return g_strdup(json_node_get_string(json_parser_get_root(parser)));
}

static void test_json_strings_are_escaped_and_parse_back(void **state) {
        static const struct { const char *in, *out, *raw; } cases[] = {
                { "plain", "plain", "\"plain\"" },
                { "q\"b\\s/", "q\"b\\s/", "\"q\\\"b\\\\s/\"" },
                { "\x01\n\t\x1f", "\x01\n\t\x1f", "\"\\u0001\\n\\t\\u001f\"" },   /* json-glib's forms */
                { "\xc3\xa9\xe2\x9c\x93\xf0\x9d\x84\x9e", "\xc3\xa9\xe2\x9c\x93\xf0\x9d\x84\x9e", NULL },
                /* Not UTF-8: a stray byte, a cut sequence, an overlong '/', a surrogate, > U+10FFFF. */
                { "a\xff" "b", "a\xef\xbf\xbd" "b", "\"a\xef\xbf\xbd" "b\"" },
                { "\xc3(", "\xef\xbf\xbd(", NULL },
                { "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd", NULL },
                { "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", NULL },
                { "\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", NULL },
        };
        g_autoptr(JsonParser) parser = json_parser_new();
        JsonObject *doc;
        JsonWriter w;
        size_t size;
        char *raw;
        FILE *f;

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                g_autofree char *back = escape_and_parse(cases[i].in, &raw);
                assert_string_equal(back, cases[i].out);
                if (cases[i].raw)
                        assert_string_equal(raw, cases[i].raw);
                free(raw);
        }

        /* A document: commas and nesting right, keys escaped too. */
        f = open_memstream(&raw, &size);
        json_writer_init(&w, f);
        json_open_object(&w, NULL);
        json_int(&w, "min", LLONG_MIN);
        json_open_array(&w, "a\"b");
        json_bool(&w, NULL, true);
        json_open_object(&w, NULL);
        json_close_object(&w);
        json_null(&w, NULL);
        json_close_array(&w);
        json_string(&w, "s", NULL);
        json_uint(&w, "max", ULLONG_MAX);
        json_close_object(&w);
        assert_int_equal(json_writer_finish(&w), 0);
        fclose(f);
        assert_string_equal(raw, "{\"min\":-9223372036854775808,\"a\\\"b\":[true,{},null],\"s\":null,"
                                 "\"max\":9223372036854775807}\n");   /* JSON readers' int64 at most */
        assert_true(json_parser_load_from_data(parser, raw, -1, NULL));
        doc = json_node_get_object(json_parser_get_root(parser));
        assert_int_equal(json_array_get_length(json_object_get_array_member(doc, "a\"b")), 3);
        free(raw);
}

static void test_counts_have_thousands_separators(void **state) {
        char buf[THOUSANDS_MAX];

        (void) state;
        assert_string_equal(format_thousands(0, buf), "0");
        assert_string_equal(format_thousands(999, buf), "999");
        assert_string_equal(format_thousands(1000, buf), "1,000");
        assert_string_equal(format_thousands(-1234567, buf), "-1,234,567");
        assert_string_equal(format_thousands(LLONG_MAX, buf), "9,223,372,036,854,775,807");
        assert_string_equal(format_thousands(LLONG_MIN, buf), "-9,223,372,036,854,775,808");
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
                TEST(test_json_strings_are_escaped_and_parse_back),
                TEST(test_counts_have_thousands_separators),
                TEST(test_list_names_threads_and_escapes_hostile_names),
                TEST(test_output_file_and_plain_numbers),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
