/* cycles.h: the processor's nominal speed as the kernel knows it (cycles.c), for pm_cycles(3) and
 * pmcycles(1). Every call reads the files under root afresh: "/" on a real system, a fake tree in
 * the unit test. Not exported from libpmapi.so. */
#pragma once

#include <errno.h>
#include <stdint.h>

/* Where a speed came from, in the order they are tried (man/pm_cycles.3 says why this order). */
typedef enum CyclesSource {
        CYCLES_SOURCE_BASE_FREQUENCY,   /* cpufreq's base_frequency, kHz */
        CYCLES_SOURCE_MAX_FREQ,         /* cpufreq's cpuinfo_max_freq, kHz */
        CYCLES_SOURCE_CPUINFO,          /* /proc/cpuinfo: "cpu MHz" (x86), "clock" (POWER), MHz */
        _CYCLES_SOURCE_MAX,
        _CYCLES_SOURCE_INVALID = -EINVAL,
} CyclesSource;

/* 0 with cpu's speed in Hz in *ret_hz and its source in *ret_source (may be NULL); -ENOENT when
 * no source holds a number (a file that is missing, unreadable or garbage passes to the next). */
int cycles_read(const char *root, unsigned cpu, uint64_t *ret_hz, CyclesSource *ret_source);
/* The lowest online CPU (root's /sys/devices/system/cpu/online), or 0 if that cannot be read. */
unsigned cycles_first_cpu(const char *root);
/* What pm_cycles() returns for root: the first online CPU's speed in Hz, or 0.0 with errno ENOENT. */
double cycles_nominal(const char *root);

/* "base_frequency", "cpuinfo_max_freq", "cpuinfo"; NULL for anything else. */
const char *cycles_source_to_string(CyclesSource s);
/* The file a source reads for cpu under root, freshly allocated; NULL on ENOMEM or a bad source. */
char *cycles_source_path(const char *root, unsigned cpu, CyclesSource s);
