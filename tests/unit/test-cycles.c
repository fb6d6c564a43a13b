/* test-cycles.c: the processor speed of pm_cycles() (pmapi/cycles.c). Each test builds a fake root
 * in a fresh temporary directory (cpufreq files, /proc/cpuinfo, the online list) and expects the
 * exact Hz of the first source that holds a number, in the documented order, or the failure value
 * 0.0. The last test compares pm_cycles() on this machine with what the kernel shows. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "cycles.h"
#include "macro.h"
#include "pmapi.h"

#define BASE(cpu) "sys/devices/system/cpu/cpu" #cpu "/cpufreq/base_frequency"
#define MAX(cpu)  "sys/devices/system/cpu/cpu" #cpu "/cpufreq/cpuinfo_max_freq"
#define ONLINE    "sys/devices/system/cpu/online"
#define CPUINFO   "proc/cpuinfo"

/* As x86 prints it without cpufreq: the TSC speed. */
static const char cpuinfo_x86[] =
        "processor\t: 0\n"
        "vendor_id\t: GenuineIntel\n"
        "model name\t: Intel Xeon Processor (Cascadelake)\n"
        "cpu MHz\t\t: 2096.015\n"
        "flags\t\t: fpu vme de pse tsc msr\n"
        "\n"
        "processor\t: 1\n"
        "vendor_id\t: GenuineIntel\n"
        "cpu MHz\t\t: 1999.999\n"
        "\n";

/* An LPAR: POWER's "clock" line, no cpufreq. */
static const char cpuinfo_power[] =
        "processor\t: 0\n"
        "cpu\t\t: POWER9 (architected), altivec supported\n"
        "clock\t\t: 3000.000000MHz\n"
        "revision\t: 2.2 (pvr 004e 0202)\n"
        "\n"
        "timebase\t: 512000000\n"
        "platform\t: pSeries\n";

/* arm64 prints no speed at all. */
static const char cpuinfo_arm64[] =
        "processor\t: 0\n"
        "BogoMIPS\t: 50.00\n"
        "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid\n"
        "CPU implementer\t: 0x41\n"
        "\n";

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

static int setup_root(void **state) {
        char *root = strdup("/tmp/test-cycles-XXXXXX");

        if (!root || !mkdtemp(root))
                return -1;
        *state = root;
        return 0;
}

static int teardown_root(void **state) {
        char *root = *state;
        int r = nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);

        free(root);
        return r;
}

/* Writes root/rel with its parent directories. */
static void put(const char *root, const char *rel, const char *content) {
        _cleanup_free_ char *path = NULL;
        FILE *f;

        assert_true(asprintf(&path, "%s/%s", root, rel) > 0);
        for (char *s = strchr(path + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = '\0';
                assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
                *s = '/';
        }
        f = fopen(path, "we");
        assert_non_null(f);
        assert_int_equal(fputs(content, f) >= 0, 1);
        assert_int_equal(fclose(f), 0);
}

/* cycles_read for cpu: expects success with hz from source. */
static void expect_hz(const char *root, unsigned cpu, uint64_t hz, CyclesSource source) {
        CyclesSource s = _CYCLES_SOURCE_INVALID;
        uint64_t got = 0;

        assert_int_equal(cycles_read(root, cpu, &got, &s), 0);
        assert_int_equal(got, hz);
        assert_int_equal(s, source);
}

static void test_base_frequency_comes_first(void **state) {
        const char *root = *state;

        put(root, BASE(0), "2100000\n");
        put(root, MAX(0), "3900000\n");
        put(root, CPUINFO, cpuinfo_x86);
        expect_hz(root, 0, UINT64_C(2100000000), CYCLES_SOURCE_BASE_FREQUENCY);
        assert_true(cycles_nominal(root) == 2100000000.0);
}

static void test_max_freq_without_base_frequency(void **state) {
        const char *root = *state;

        put(root, MAX(0), "3500000\n");
        put(root, CPUINFO, cpuinfo_x86);
        expect_hz(root, 0, UINT64_C(3500000000), CYCLES_SOURCE_MAX_FREQ);
        assert_true(cycles_nominal(root) == 3500000000.0);
}

static void test_cpuinfo_mhz_without_cpufreq(void **state) {
        const char *root = *state;

        put(root, CPUINFO, cpuinfo_x86);
        /* Kept to the kHz: 2096.015 MHz is 2096015000 Hz, not a double's nearest neighbour. */
        expect_hz(root, 0, UINT64_C(2096015000), CYCLES_SOURCE_CPUINFO);
        assert_true(cycles_nominal(root) == 2096015000.0);
}

static void test_cpuinfo_reads_the_block_of_the_cpu_asked(void **state) {
        const char *root = *state;

        put(root, CPUINFO, cpuinfo_x86);
        expect_hz(root, 1, UINT64_C(1999999000), CYCLES_SOURCE_CPUINFO);
        assert_int_equal(cycles_read(root, 2, &(uint64_t) {0}, NULL), -ENOENT);
}

static void test_cpuinfo_power_clock_line(void **state) {
        const char *root = *state;

        put(root, CPUINFO, cpuinfo_power);
        expect_hz(root, 0, UINT64_C(3000000000), CYCLES_SOURCE_CPUINFO);
}

static void test_nothing_found_is_zero_with_enoent(void **state) {
        const char *root = *state;
        uint64_t hz = 42;

        assert_int_equal(cycles_read(root, 0, &hz, NULL), -ENOENT);
        assert_int_equal(hz, 42);               /* untouched on failure */
        errno = 0;
        assert_true(cycles_nominal(root) == 0.0);
        assert_int_equal(errno, ENOENT);
}

static void test_arm64_cpuinfo_without_cpufreq_is_zero(void **state) {
        const char *root = *state;

        put(root, CPUINFO, cpuinfo_arm64);
        assert_int_equal(cycles_read(root, 0, &(uint64_t) {0}, NULL), -ENOENT);
        assert_true(cycles_nominal(root) == 0.0);
}

static void test_garbage_passes_to_the_next_source(void **state) {
        const char *root = *state;

        put(root, BASE(0), "fast\n");
        put(root, MAX(0), "3500000\n");
        expect_hz(root, 0, UINT64_C(3500000000), CYCLES_SOURCE_MAX_FREQ);

        put(root, MAX(0), "0\n");               /* zero is no speed */
        put(root, CPUINFO, cpuinfo_x86);
        expect_hz(root, 0, UINT64_C(2096015000), CYCLES_SOURCE_CPUINFO);

        put(root, MAX(0), "3500000 kHz\n");     /* trailing words are garbage too */
        expect_hz(root, 0, UINT64_C(2096015000), CYCLES_SOURCE_CPUINFO);

        put(root, MAX(0), "99999999999999999999999\n");
        expect_hz(root, 0, UINT64_C(2096015000), CYCLES_SOURCE_CPUINFO);

        put(root, CPUINFO, "processor\t: 0\ncpu MHz\t\t: unknown\n");
        assert_int_equal(cycles_read(root, 0, &(uint64_t) {0}, NULL), -ENOENT);
        put(root, CPUINFO, "processor\t: 0\ncpu MHz\t\t: 2096.015.5\n");
        assert_int_equal(cycles_read(root, 0, &(uint64_t) {0}, NULL), -ENOENT);
}

static void test_nominal_reads_the_first_online_cpu(void **state) {
        const char *root = *state;

        put(root, CPUINFO, cpuinfo_x86);
        put(root, BASE(0), "2100000\n");
        put(root, ONLINE, "1,3-5\n");
        assert_int_equal(cycles_first_cpu(root), 1);
        assert_true(cycles_nominal(root) == 1999999000.0);

        put(root, ONLINE, "garbage\n");
        assert_int_equal(cycles_first_cpu(root), 0);
        assert_true(cycles_nominal(root) == 2100000000.0);
}

static void test_source_names_and_paths(void **state) {
        _cleanup_free_ char *a = cycles_source_path("/", 3, CYCLES_SOURCE_BASE_FREQUENCY);
        _cleanup_free_ char *b = cycles_source_path("/tmp/x/", 0, CYCLES_SOURCE_CPUINFO);

        assert_string_equal(a, "/sys/devices/system/cpu/cpu3/cpufreq/base_frequency");
        assert_string_equal(b, "/tmp/x/proc/cpuinfo");
        assert_null(cycles_source_path("/", 0, _CYCLES_SOURCE_MAX));
        assert_string_equal(cycles_source_to_string(CYCLES_SOURCE_MAX_FREQ), "cpuinfo_max_freq");
        assert_null(cycles_source_to_string(_CYCLES_SOURCE_INVALID));
}

/* This file's own reading of a kHz file, or 0. */
static double read_khz_file(const char *path) {
        FILE *f = fopen(path, "re");
        double khz = 0;

        if (f) {
                if (fscanf(f, "%lf", &khz) != 1)
                        khz = 0;
                fclose(f);
        }
        return khz;
}

/* pm_cycles() against the kernel's numbers for the first processor, read here independently:
 * cpufreq's where it exists, else /proc/cpuinfo's first "cpu MHz" (this VM has no cpufreq). */
static void test_pm_cycles_matches_this_machine(void **state) {
        _cleanup_free_ char *base = NULL, *max = NULL, *line = NULL;
        unsigned cpu = cycles_first_cpu("/");
        double expect = 0, got = pm_cycles();
        size_t size = 0;
        FILE *f;

        assert_true(asprintf(&base, "/sys/devices/system/cpu/cpu%u/cpufreq/base_frequency", cpu) > 0);
        assert_true(asprintf(&max, "/sys/devices/system/cpu/cpu%u/cpufreq/cpuinfo_max_freq", cpu) > 0);
        expect = read_khz_file(base) * 1e3;
        if (expect == 0)
                expect = read_khz_file(max) * 1e3;
        if (expect == 0 && (f = fopen("/proc/cpuinfo", "re"))) {
                double mhz;

                while (getline(&line, &size, f) > 0)
                        if (sscanf(line, "cpu MHz : %lf", &mhz) == 1 ||
                            sscanf(line, "clock : %lf", &mhz) == 1) {
                                expect = mhz * 1e6;
                                break;
                        }
                fclose(f);
        }
        print_message("pm_cycles() = %.0f Hz, the kernel says %.0f Hz\n", got, expect);
        if (expect == 0)
                assert_true(got == 0.0);        /* e.g. arm64 without cpufreq: the failure value */
        else {
                assert_true(got > expect * 0.99);
                assert_true(got < expect * 1.01);
        }
}

#define WITH_ROOT(t) cmocka_unit_test_setup_teardown(t, setup_root, teardown_root)

int main(void) {
        const struct CMUnitTest tests[] = {
                WITH_ROOT(test_base_frequency_comes_first),
                WITH_ROOT(test_max_freq_without_base_frequency),
                WITH_ROOT(test_cpuinfo_mhz_without_cpufreq),
                WITH_ROOT(test_cpuinfo_reads_the_block_of_the_cpu_asked),
                WITH_ROOT(test_cpuinfo_power_clock_line),
                WITH_ROOT(test_nothing_found_is_zero_with_enoent),
                WITH_ROOT(test_arm64_cpuinfo_without_cpufreq_is_zero),
                WITH_ROOT(test_garbage_passes_to_the_next_source),
                WITH_ROOT(test_nominal_reads_the_first_online_cpu),
                cmocka_unit_test(test_source_names_and_paths),
                cmocka_unit_test(test_pm_cycles_matches_this_machine),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
