/* pmu-workload.h: what the tests of a real PMU share (test-hardware-counts.c, test-pmu-tools.c): a
 * loop of exactly 2n user-mode instructions, and the PMU's own events from the catalog. */
#pragma once

#include <stdint.h>
#include <string.h>

#include "pmapi.h"

/* Exactly 2n user-mode instructions, n >= 1: subs/b.ne on arm64, dec/jnz on x86-64. */
static inline void known_loop(uint64_t n) {
#if defined(__aarch64__)
        __asm__ volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#elif defined(__x86_64__)
        __asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#else
#error "known_loop: no loop for this architecture"
#endif
}

/* The first max PMU events of the catalog (libpfm4's pmu::NAME rows: not perf's software events,
 * its raw pseudo-PMU or the curated rows), other than skip_a and skip_b: ids in ret_ids, names in
 * ret_names (may be NULL). Returns how many. */
static inline int pmu_natives(const pm_info_t *info, int skip_a, int skip_b, int *ret_ids, const char **ret_names,
                              int max) {
        int n = 0;

        for (int i = 0; i < info->maxevents[0] && n < max; i++) {
                const pm_events_t *e = &info->list_events[0][i];

                if (!strstr(e->short_name, "::") || strncmp(e->short_name, "perf::", 6) == 0 ||
                    strncmp(e->short_name, "perf_raw::", 10) == 0 || e->event_id == skip_a || e->event_id == skip_b)
                        continue;
                if (ret_names)
                        ret_names[n] = e->short_name;
                ret_ids[n++] = e->event_id;
        }
        return n;
}
