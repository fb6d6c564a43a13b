/* test-pmcount-spawns.c: pmcount against perf stat on ordinary commands that spawn (issue 31): a
 * `make -j2` of 24 small C files, a Python loop of 100 subprocess.run(), a dash loop of 300
 * /bin/true. Both count the same run: pmcount runs `perf stat -- COMMAND`, so its count is perf
 * stat's plus perf's own process, which a run of `perf stat -- true` under pmcount measures. The
 * two must agree within 0.5 %, pmcount's status must be the command's (0), and its counts must not
 * be partial. Where pmapid does not inherit inside the kernel the test is skipped: after the fact,
 * pmcount was 17 % short on the same make (docs/tools.md). Root only: perf stat counts kernel-mode page
 * faults only for root at perf_event_paranoid 2. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-glib/json-glib.h>

#include "bus-fixture.h"
#include "tool-run.h"
#include "workload.h"

static BusFixture fixture;
static char dir[] = "/tmp/pmcount-spawns-XXXXXX";

/* The number in field `field` (1-based, comma-separated) of the first line of path holding key. */
static long long csv_number(const char *path, const char *key, int field) {
        char line[1024];
        long long v = -1;
        FILE *f = fopen(path, "re");

        while (f && fgets(line, sizeof(line), f)) {
                char *p = line;

                if (!strstr(line, key))
                        continue;
                for (int i = 1; i < field && p; i++) {
                        p = strchr(p, ',');
                        if (p)
                                p++;
                }
                if (p && *p >= '0' && *p <= '9')
                        v = atoll(p);
                break;
        }
        if (f)
                fclose(f);
        return v;
}

/* pmcount's and perf stat's page faults of one run of argv under both; pmcount's status in ret. */
static void count_both(const char *const *command, long long *ret_pmcount, long long *ret_perf, int *ret_status,
                       bool *ret_partial) {
        char pm_out[256], perf_out[256];
        const char *argv[64];
        size_t n = 0;
        ToolRun r = {};

        snprintf(pm_out, sizeof(pm_out), "%s/pmcount.csv", dir);
        snprintf(perf_out, sizeof(perf_out), "%s/perf.csv", dir);
        argv[n++] = getenv("PMAPI_PMCOUNT");
        argv[n++] = "-x,";
        argv[n++] = "-k";
        argv[n++] = "-e";
        argv[n++] = "PM_PAGE_FLT";
        argv[n++] = "-o";
        argv[n++] = pm_out;
        argv[n++] = "--";
        argv[n++] = "perf";
        argv[n++] = "stat";
        argv[n++] = "-x,";
        argv[n++] = "-e";
        argv[n++] = "page-faults";
        argv[n++] = "-o";
        argv[n++] = perf_out;
        argv[n++] = "--";
        for (size_t i = 0; command[i] && n < 63; i++)
                argv[n++] = command[i];
        argv[n] = NULL;
        assert_non_null(argv[0]);
        tool_run(&r, 0, argv);
        *ret_status = r.status;
        *ret_pmcount = csv_number(pm_out, "PM_PAGE_FLT", 8);
        *ret_perf = csv_number(perf_out, "page-faults", 1);
        *ret_partial = csv_number(pm_out, "partial", 8) > 0;
        tool_run_done(&r);
        assert_true(*ret_pmcount > 0 && *ret_perf > 0);
}

/* perf's own process, as pmcount counts it: the difference on `true`, whose own faults both count. */
static long long perf_overhead(void) {
        static const char *const t[] = { "true", NULL };
        long long pm, perf, sum = 0;
        int status;
        bool partial;

        for (int i = 0; i < 3; i++) {
                count_both(t, &pm, &perf, &status, &partial);
                assert_int_equal(status, 0);
                sum += pm - perf;
        }
        return sum / 3;
}

static void check_command(const char *what, const char *const *command) {
        long long overhead, pm, perf, diff;
        int status;
        bool partial;

        if (!kernel_inheritance())
                skip();
        overhead = perf_overhead();
        count_both(command, &pm, &perf, &status, &partial);
        diff = pm - overhead - perf;
        print_message("# %s: perf stat %lld page faults, pmcount %lld less perf's own %lld: %+lld (%.3f %%)\n",
                      what, perf, pm, overhead, diff, 100.0 * (double) diff / (double) perf);
        assert_int_equal(status, 0);
        assert_false(partial);
        assert_true(llabs(diff) * 200 <= perf);         /* within 0.5 % */
}

static void test_make_j2(void **state) {
        char makefile[300];
        static const char *command[] = { "make", "-s", "-j2", "-C", dir, NULL };
        FILE *f;

        (void) state;
        if (system("command -v make >/dev/null 2>&1") != 0)
                skip();
        for (int i = 1; i <= 24; i++) {
                char path[300];

                snprintf(path, sizeof(path), "%s/f%d.c", dir, i);
                f = fopen(path, "we");
                assert_non_null(f);
                fprintf(f, "int f%d(int x) { return x * %d + 1; }\n", i, i);
                fclose(f);
        }
        snprintf(makefile, sizeof(makefile), "%s/Makefile", dir);
        f = fopen(makefile, "we");
        assert_non_null(f);
        fputs("OBJS=$(patsubst %.c,%.o,$(wildcard f*.c))\nall: $(OBJS)\n%.o: %.c\n\t$(CC) -O1 -c $< -o $@\n", f);
        fclose(f);
        check_command("make -j2 of 24 C files", command);
}

static void test_python_subprocess_loop(void **state) {
        static const char *const command[] = {
                "python3", "-c", "import subprocess\nfor i in range(100): subprocess.run(['/bin/true'])", NULL };

        (void) state;
        check_command("Python, 100 subprocess.run()", command);
}

static void test_dash_loop(void **state) {
        static const char *const command[] = {
                "dash", "-c", "i=0; while [ $i -lt 300 ]; do /bin/true; i=$((i+1)); done", NULL };

        (void) state;
        check_command("dash, 300 /bin/true", command);
}

static int setup(void **state) {
        (void) state;
        if (!mkdtemp(dir))
                return -1;
        if (system("perf stat -e page-faults true >/dev/null 2>&1") != 0) {
                fprintf(stderr, "# perf stat does not run here\n");
                return -1;
        }
        return bus_fixture_start(&fixture, NULL);
}

static int teardown(void **state) {
        (void) state;
        tool_scratch_remove(dir);
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_make_j2),
                cmocka_unit_test(test_python_subprocess_loop),
                cmocka_unit_test(test_dash_loop),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
