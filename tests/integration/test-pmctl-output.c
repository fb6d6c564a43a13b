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
#include "target.h"
#include "text-table.h"
#include "tool-run.h"
#include "workload.h"

static BusFixture fixture;
static pm_info_t info;

/* The target (target.h): a root child process whose main thread relays commands to a worker; the
 * worker touches the pages it is told to. Parked threads take no user-mode page faults, so the
 * counts are exactly what the test asks for (+-2). */
static Target target;                   /* killed by each test's teardown, even after a failure */
#define PID (target.pid)
#define WORKER (target.tids[1])

static void start_target(void) {
        TargetIdentity root = TARGET_ROOT;
        assert_int_equal(target_start(&target, &root, 2), 0);
}

static void touch(size_t n) {
        assert_int_equal(target_touch(&target, 1, n), 0);
}

static int kill_target(void **state) {
        (void) state;
        target_kill(&target);
        /* pmapid drops the contexts of exited threads through their pidfds. */
        return wait_for_context_count(0, 2000);
}

/* pmctl through tool-run.c (as uid, 0: as we are; LC_ALL=C.UTF-8), with the words of format (split
 * at spaces) as its arguments; returns at once. What run held from an earlier run is freed. */
static void pmctl_start(ToolRun *run, uid_t uid, const char *format, ...)
        __attribute__((format(printf, 3, 4)));
static void pmctl_start(ToolRun *run, uid_t uid, const char *format, ...) {
        const char *pmctl = getenv("PMAPI_PMCTL");
        char words[512], *word, *next;
        const char *argv[32];
        int argc = 0;
        va_list ap;

        assert_non_null(pmctl);
        va_start(ap, format);
        vsnprintf(words, sizeof(words), format, ap);
        va_end(ap);
        argv[argc++] = pmctl;
        for (next = words; (word = strsep(&next, " ")) && argc < 31; )
                if (*word)
                        argv[argc++] = word;
        argv[argc] = NULL;
        tool_run_done(run);
        tool_run_start(run, uid, -1, argv);
}

/* Waits for the pmctl that pmctl_start() started and reads what it wrote; returns its status. */
static int pmctl_wait(ToolRun *run) {
        tool_run_wait(run);
        if (run->status != 0)
                printf("# pmctl -> %d\n# stderr: %s", run->status, run->err);
        return run->status;
}

/* Runs pmctl as uid with the words of format as its arguments. */
#define run_pmctl_as(uid, run, ...)                             \
        do {                                                    \
                pmctl_start(run, uid, __VA_ARGS__);             \
                (void) pmctl_wait(run);                         \
        } while (0)

#define run_pmctl(run, ...) run_pmctl_as(0, run, __VA_ARGS__)

/* Runs pmctl and expects it to succeed with nothing on stderr. */
#define pmctl_ok(run, ...)                                      \
        do {                                                    \
                run_pmctl(run, __VA_ARGS__);                    \
                assert_int_equal((run)->status, 0);             \
                assert_string_equal((run)->err, "");            \
        } while (0)

/* The JSON document pmctl printed; fails the test if it does not parse. */
static JsonNode *parse_json(const char *text) {
        g_autoptr(JsonParser) parser = json_parser_new();
        g_autoptr(GError) error = NULL;

        if (!json_parser_load_from_data(parser, text, -1, &error))
                fail_msg("pmctl printed no valid JSON (%s): %s", error->message, text);
        return json_node_copy(json_parser_get_root(parser));
}

static JsonObject *counter_at(JsonObject *doc, guint i) {
        JsonArray *counters = json_object_get_array_member(doc, "counters");
        assert_true(i < json_array_get_length(counters));
        return json_array_get_object_element(counters, i);
}

/* The entry of a --json list for thread tid, or NULL. */
static JsonObject *list_entry(JsonArray *list, pid_t tid) {
        for (guint i = 0; i < json_array_get_length(list); i++) {
                JsonObject *e = json_array_get_object_element(list, i);
                if (json_object_get_int_member(e, "tid") == tid)
                        return e;
        }
        return NULL;
}

static size_t count_lines(const char *s) {
        size_t n = 0;

        for (; *s; s++)
                n += *s == '\n';
        return n;
}

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
        start_target();
        pmctl_ok(&run, "set %d %d -e PM_PAGE_FLT -m user,count", PID, WORKER);
        touch(1300);
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
        static const char *const shared[] = { "PMAPI_PMCTL", NULL };
        int r;

        (void) state;
        r = bus_fixture_start(&fixture, NULL);
        if (r == 0)
                r = bus_fixture_share_programs(&fixture, shared);
        return r == 0 ? pm_init(PM_VERIFIED, &info) : r;
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

#define TEST(f) cmocka_unit_test_teardown(f, kill_target)

int main(void) {
        const struct CMUnitTest tests[] = {
                TEST(test_json_strings_are_escaped_and_parse_back),
                TEST(test_counts_have_thousands_separators),
                TEST(test_list_names_threads_and_escapes_hostile_names),
                TEST(test_output_file_and_plain_numbers),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
