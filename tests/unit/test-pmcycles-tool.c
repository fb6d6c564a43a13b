/* test-pmcycles-tool.c: the built pmcycles ($PMAPI_PMCYCLES) as a user runs it: AIX's line with
 * pm_cycles()'s speed rounded to the MHz, one line per online CPU with -m, the -d and -j forms,
 * -o FILE, and exit status 2 with the usual complaint for a bad command line. It needs no bus:
 * pmcycles reads sysfs and /proc like pm_cycles() does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <glib.h>
#include <json-glib/json-glib.h>

#include "pmapi.h"

typedef struct Run {
        int status;                     /* exit status, -1 if it did not exit */
        char *out, *err;
} Run;

/* Runs pmcycles with the NULL-terminated arguments that follow. */
static void run(Run *r, ...) {
        const char *argv[16] = { getenv("PMAPI_PMCYCLES") };
        g_autoptr(GError) error = NULL;
        size_t n = 1;
        va_list ap;
        int wait_status;

        assert_non_null(argv[0]);
        va_start(ap, r);
        while (n < G_N_ELEMENTS(argv) - 1 && (argv[n] = va_arg(ap, const char *)))
                n++;
        va_end(ap);
        argv[n] = NULL;
        g_free(r->out);
        g_free(r->err);
        if (!g_spawn_sync(NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &r->out, &r->err,
                          &wait_status, &error))
                fail_msg("cannot run %s: %s", argv[0], error->message);
        r->status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
}

static void run_done(Run *r) {
        g_free(r->out);
        g_free(r->err);
}

/* pm_cycles() as pmcycles prints it: the nearest MHz. */
static unsigned long long expected_mhz(void) {
        double hz = pm_cycles();

        if (hz == 0.0)
                skip();                 /* no speed to compare: pmcycles must fail, tested below */
        return (unsigned long long) ((hz + 500000) / 1e6);
}

static void test_prints_the_aix_line_with_pm_cycles_speed(void **state) {
        Run r = {};
        char expect[64];

        if (pm_cycles() == 0.0) {
                /* No speed known here: pmcycles says so and fails. */
                run(&r, NULL);
                assert_int_equal(r.status, 1);
                assert_string_equal(r.out, "");
                assert_non_null(strstr(r.err, "is unknown"));
                run_done(&r);
                return;
        }
        (void) snprintf(expect, sizeof(expect), "This machine runs at %llu MHz\n", expected_mhz());
        run(&r, NULL);
        assert_int_equal(r.status, 0);
        assert_string_equal(r.out, expect);
        assert_string_equal(r.err, "");
        run_done(&r);
}

static void test_each_cpu_prints_one_line_per_online_cpu(void **state) {
        long n_online = sysconf(_SC_NPROCESSORS_ONLN);
        unsigned long long mhz = expected_mhz();
        Run r = {};
        g_auto(GStrv) lines = NULL;
        long previous = -1;
        guint n;

        run(&r, "-m", NULL);
        assert_int_equal(r.status, 0);
        lines = g_strsplit(r.out, "\n", -1);
        n = g_strv_length(lines);
        assert_string_equal(lines[n - 1], "");  /* ends with a newline */
        assert_int_equal(n - 1, n_online);
        for (guint i = 0; i + 1 < n; i++) {
                unsigned long long line_mhz;
                long cpu;
                int end = 0;

                assert_int_equal(sscanf(lines[i], "CPU %ld runs at %llu MHz%n", &cpu, &line_mhz, &end), 2);
                assert_int_equal(lines[i][end], '\0');
                assert_true(cpu > previous);    /* each CPU once, in order */
                previous = cpu;
                /* Every CPU of this machine runs at the same nominal speed. */
                assert_int_equal(line_mhz, mhz);
        }
        run_done(&r);
}

static void test_decrementer_names_the_clock_source(void **state) {
        Run r = {};
        g_auto(GStrv) lines = NULL;

        (void) expected_mhz();          /* skips where no speed is known (arm64 without cpufreq) */
        run(&r, "-d", NULL);
        assert_int_equal(r.status, 0);
        lines = g_strsplit(r.out, "\n", -1);
        assert_int_equal(g_strv_length(lines), 3);
        assert_true(g_str_has_prefix(lines[0], "This machine runs at "));
        assert_true(g_str_has_prefix(lines[1], "Linux has no decrementer: the clock source is "));
        assert_true(strlen(lines[1]) > strlen("Linux has no decrementer: the clock source is "));
        run_done(&r);
}

static void test_verbose_names_the_file(void **state) {
        Run r = {};

        (void) expected_mhz();          /* skips where no speed is known (arm64 without cpufreq) */
        run(&r, "--verbose", NULL);
        assert_int_equal(r.status, 0);
        assert_true(g_str_has_prefix(r.out, "This machine runs at "));
        assert_true(strstr(r.out, " MHz (from /sys/devices/system/cpu/") ||
                    strstr(r.out, " MHz (from /proc/cpuinfo, processor "));
        run_done(&r);
}

static void test_json_carries_hz_and_each_cpu(void **state) {
        unsigned long long mhz = expected_mhz();
        g_autoptr(JsonParser) parser = json_parser_new();
        g_autoptr(GError) error = NULL;
        JsonObject *o;
        JsonArray *cpus;
        Run r = {};

        run(&r, "-j", "-m", NULL);
        assert_int_equal(r.status, 0);
        if (!json_parser_load_from_data(parser, r.out, -1, &error))
                fail_msg("not JSON: %s: %s", error->message, r.out);
        o = json_node_get_object(json_parser_get_root(parser));
        assert_int_equal(json_object_get_int_member(o, "mhz"), mhz);
        assert_true(json_object_get_int_member(o, "hz") == (gint64) pm_cycles());
        cpus = json_object_get_array_member(o, "cpus");
        assert_int_equal(json_array_get_length(cpus), sysconf(_SC_NPROCESSORS_ONLN));
        run_done(&r);
}

static void test_output_file_gets_the_line(void **state) {
        char path[] = "/tmp/test-pmcycles-XXXXXX";
        g_autofree char *text = NULL;
        Run r = {};
        int fd;

        (void) expected_mhz();          /* skips where no speed is known (arm64 without cpufreq) */
        fd = mkstemp(path);
        assert_true(fd >= 0);
        close(fd);
        run(&r, "-o", path, NULL);
        assert_int_equal(r.status, 0);
        assert_string_equal(r.out, "");
        assert_true(g_file_get_contents(path, &text, NULL, NULL));
        assert_true(g_str_has_prefix(text, "This machine runs at "));
        unlink(path);
        run_done(&r);
}

static void test_bad_command_line_exits_2(void **state) {
        static const char *const bad[][3] = {
                { "-x", NULL },                 /* unknown option */
                { "--each", "x", NULL },        /* an argument it takes none of */
                { "-o", NULL },                 /* -o without its file */
                { "-M", NULL },                 /* AIX 7.3's measured speed: refused by name */
        };
        Run r = {};

        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
                run(&r, bad[i][0], bad[i][1], NULL);
                assert_int_equal(r.status, 2);
                assert_string_equal(r.out, "");
                assert_true(g_str_has_prefix(r.err, "pmcycles: "));
                assert_non_null(strstr(r.err, "Try 'pmcycles --help'."));
        }
        run_done(&r);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_prints_the_aix_line_with_pm_cycles_speed),
                cmocka_unit_test(test_each_cpu_prints_one_line_per_online_cpu),
                cmocka_unit_test(test_decrementer_names_the_clock_source),
                cmocka_unit_test(test_verbose_names_the_file),
                cmocka_unit_test(test_json_carries_hz_and_each_cpu),
                cmocka_unit_test(test_output_file_gets_the_line),
                cmocka_unit_test(test_bad_command_line_exits_2),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
