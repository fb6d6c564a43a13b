/* cycles.c: a CPU's nominal speed from the numbers the kernel already publishes, for pm_cycles(3)
 * and pmcycles(1). The first source that holds a positive number wins:
 *   1. cpufreq's base_frequency (kHz): the nominal, non-turbo speed (intel_pstate, amd-pstate),
 *      which is what AIX calls the nominal speed.
 *   2. cpufreq's cpuinfo_max_freq (kHz): the highest speed the driver may set (acpi-cpufreq counts
 *      the turbo range in it).
 *   3. The CPU's block of /proc/cpuinfo: x86's "cpu MHz" (without cpufreq, as in most VMs, the TSC
 *      speed the kernel calibrated at boot; with cpufreq the current speed, hence last) or POWER's
 *      "clock" ("3000.000000MHz"). arm64 prints neither: without cpufreq nothing is known.
 * Numbers are parsed by hand, not with strtod(), so that a caller's LC_NUMERIC cannot change them.
 * Nothing is cached: CPUs come and go, and cpufreq drivers are loaded late. */
#include <ctype.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cycles.h"
#include "macro.h"

#define MAX_KHZ 1000000000ULL           /* 1 THz: anything above is not a processor's speed */
#define MAX_MHZ 1000000ULL

DEFINE_FREEP(FILE, fclose);

static const char *const source_names[_CYCLES_SOURCE_MAX] = {
        [CYCLES_SOURCE_BASE_FREQUENCY] = "base_frequency",
        [CYCLES_SOURCE_MAX_FREQ]       = "cpuinfo_max_freq",
        [CYCLES_SOURCE_CPUINFO]        = "cpuinfo",
};

const char *cycles_source_to_string(CyclesSource s) {
        return s >= 0 && s < _CYCLES_SOURCE_MAX ? source_names[s] : NULL;
}

/* root without its trailing slashes, so that "/" and "/tmp/x/" give clean paths. */
static int root_length(const char *root) {
        size_t n = strlen(root);

        while (n > 0 && root[n - 1] == '/')
                n--;
        return (int) n;
}

char *cycles_source_path(const char *root, unsigned cpu, CyclesSource s) {
        char *p = NULL;
        int r;

        if (s == CYCLES_SOURCE_CPUINFO)
                r = asprintf(&p, "%.*s/proc/cpuinfo", root_length(root), root);
        else if (s == CYCLES_SOURCE_BASE_FREQUENCY || s == CYCLES_SOURCE_MAX_FREQ)
                r = asprintf(&p, "%.*s/sys/devices/system/cpu/cpu%u/cpufreq/%s", root_length(root), root, cpu,
                             source_names[s]);
        else
                return NULL;
        return r < 0 ? NULL : p;
}

/* A sysfs attribute, NUL-terminated; false if it cannot be read. */
static bool read_small(const char *path, char *buf, size_t size) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n;

        if (fd < 0)
                return false;
        n = read(fd, buf, size - 1);
        if (n <= 0)
                return false;
        buf[n] = '\0';
        return true;
}

static bool only_space(const char *p) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
                p++;
        return *p == '\0';
}

/* Decimal digits into *ret, stopping at max (false above it); *p moves past them. */
static bool parse_digits(const char **p, uint64_t max, uint64_t *ret) {
        uint64_t v = 0;

        if (!isdigit((unsigned char) **p))
                return false;
        for (; isdigit((unsigned char) **p); (*p)++) {
                v = v * 10 + (uint64_t) (**p - '0');
                if (v > max)
                        return false;
        }
        *ret = v;
        return true;
}

/* cpufreq's "2100000\n" (kHz). */
static bool parse_khz(const char *s, uint64_t *ret_hz) {
        uint64_t khz;

        if (!parse_digits(&s, MAX_KHZ, &khz) || khz == 0 || !only_space(s))
                return false;
        *ret_hz = khz * 1000;
        return true;
}

/* cpuinfo's " 2096.015" or " 3000.000000MHz": MHz with up to six decimals kept exactly. */
static bool parse_mhz(const char *s, uint64_t *ret_hz) {
        uint64_t mhz, hz = 0, unit = 100000;

        s += strspn(s, " \t");
        if (!parse_digits(&s, MAX_MHZ, &mhz))
                return false;
        if (*s == '.') {
                for (s++; isdigit((unsigned char) *s); s++, unit /= 10)
                        hz += (uint64_t) (*s - '0') * unit;     /* past the sixth decimal, unit is 0 */
        }
        if (strncmp(s, "MHz", 3) == 0)
                s += 3;
        hz += mhz * 1000000;
        if (hz == 0 || !only_space(s))
                return false;
        *ret_hz = hz;
        return true;
}

static bool read_cpufreq(const char *root, unsigned cpu, CyclesSource s, uint64_t *ret_hz) {
        _cleanup_free_ char *path = cycles_source_path(root, cpu, s);
        char buf[64];

        return path && read_small(path, buf, sizeof(buf)) && parse_khz(buf, ret_hz);
}

/* Splits "key\t\t: value" in place; false for a line without a colon. */
static bool split_line(char *line, const char **ret_key, const char **ret_value) {
        char *colon = strchr(line, ':'), *end = colon;

        if (!colon)
                return false;
        while (end > line && (end[-1] == ' ' || end[-1] == '\t'))
                end--;
        *end = '\0';
        *ret_key = line;
        *ret_value = colon + 1;
        return true;
}

/* The MHz line of cpu's block: the lines after "processor : <cpu>", up to the next "processor". */
static bool read_cpuinfo(const char *root, unsigned cpu, uint64_t *ret_hz) {
        _cleanup_free_ char *path = cycles_source_path(root, cpu, CYCLES_SOURCE_CPUINFO), *line = NULL;
        _cleanup_(fclosep) FILE *f = path ? fopen(path, "re") : NULL;
        bool in_block = false;
        size_t size = 0;

        if (!f)
                return false;
        while (getline(&line, &size, f) > 0) {
                const char *key, *value;
                uint64_t n;

                if (!split_line(line, &key, &value))
                        continue;
                if (strcmp(key, "processor") == 0) {
                        value += strspn(value, " \t");
                        in_block = parse_digits(&value, UINT32_MAX, &n) && n == cpu;
                } else if (in_block && (strcmp(key, "cpu MHz") == 0 || strcmp(key, "clock") == 0))
                        return parse_mhz(value, ret_hz);
        }
        return false;
}

int cycles_read(const char *root, unsigned cpu, uint64_t *ret_hz, CyclesSource *ret_source) {
        CyclesSource s;
        uint64_t hz;

        if (read_cpufreq(root, cpu, CYCLES_SOURCE_BASE_FREQUENCY, &hz))
                s = CYCLES_SOURCE_BASE_FREQUENCY;
        else if (read_cpufreq(root, cpu, CYCLES_SOURCE_MAX_FREQ, &hz))
                s = CYCLES_SOURCE_MAX_FREQ;
        else if (read_cpuinfo(root, cpu, &hz))
                s = CYCLES_SOURCE_CPUINFO;
        else
                return -ENOENT;
        *ret_hz = hz;
        if (ret_source)
                *ret_source = s;
        return 0;
}

unsigned cycles_first_cpu(const char *root) {
        _cleanup_free_ char *path = NULL;
        char buf[64];
        const char *p = buf;
        uint64_t cpu;

        /* The list ("0-3,8") is in increasing order: its first number is the lowest online CPU. */
        if (asprintf(&path, "%.*s/sys/devices/system/cpu/online", root_length(root), root) < 0) {
                path = NULL;
                return 0;
        }
        if (!read_small(path, buf, sizeof(buf)) || !parse_digits(&p, UINT32_MAX, &cpu))
                return 0;
        return (unsigned) cpu;
}

double cycles_nominal(const char *root) {
        uint64_t hz;
        int r;

        r = cycles_read(root, cycles_first_cpu(root), &hz, NULL);
        if (r < 0) {
                errno = -r;
                return 0.0;
        }
        return (double) hz;
}
