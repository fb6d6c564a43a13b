/* pmu-budget.c: see pmu-budget.h. pmapid's loop is single-threaded: plain counts. */
#include <errno.h>
#include <stdio.h>

#include "pmapi.h"
#include "pmu-budget.h"

static unsigned counters, share, pinned;
static bool (*reclaim)(void);
static unsigned open_groups[MAX_COUNTERS + 1];  /* open perf groups by their hardware events */

unsigned pmu_budget_watchdog_pins(void) {
#if defined(__x86_64__) || defined(__i386__)
        FILE *f = fopen("/proc/sys/kernel/nmi_watchdog", "re");
        int on = 0;

        if (f) {
                if (fscanf(f, "%d", &on) != 1)
                        on = 0;
                fclose(f);
        }
        return on == 1;
#else
        /* arm64's hard-lockup detector, where it uses perf, takes the cycle counter, which the
         * catalog's counters (the general ones) do not include. */
        return 0;
#endif
}

void pmu_budget_configure(unsigned n_counters, unsigned n_share) {
        counters = n_counters;
        share = n_share < n_counters ? n_share : n_counters;
}

unsigned pmu_budget_counters(void) {
        return counters;
}

unsigned pmu_budget_share(void) {
        return share;
}

unsigned pmu_budget_pinned(void) {
        return pinned;
}

bool pmu_budget_is_hardware(const struct perf_event_attr *a) {
        return a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE || a->type == PERF_TYPE_RAW ||
               a->type >= PERF_TYPE_MAX;
}

unsigned pmu_budget_hardware_events(const struct perf_event_attr *attrs, size_t n) {
        unsigned k = 0;

        for (size_t i = 0; i < n; i++)
                k += pmu_budget_is_hardware(&attrs[i]);
        return k;
}

/* The most hardware events of any open group. */
static unsigned widest_open(void) {
        for (unsigned k = MAX_COUNTERS; k > 0; k--)
                if (open_groups[k] > 0)
                        return k;
        return 0;
}

void pmu_budget_set_reclaim(bool (*fn)(void)) {
        reclaim = fn;
}

int pmu_budget_group_opened(unsigned hardware) {
        if (hardware > MAX_COUNTERS)
                hardware = MAX_COUNTERS;
        while (hardware > 0 && counters > 0 && pinned + hardware > counters)
                if (!reclaim || !reclaim())
                        return -ENOSPC;
        open_groups[hardware]++;
        return 0;
}

void pmu_budget_group_closed(unsigned hardware) {
        if (hardware > MAX_COUNTERS)
                hardware = MAX_COUNTERS;
        if (open_groups[hardware] > 0)
                open_groups[hardware]--;
}

bool pmu_budget_may_pin(unsigned n) {
        return pinned + n <= share && pinned + n + widest_open() <= counters;
}

int pmu_budget_pin(void) {
        if (!pmu_budget_may_pin(1))
                return -ENOSPC;
        pinned++;
        return 0;
}

void pmu_budget_pinned_already(void) {
        pinned++;
}

void pmu_budget_unpin(void) {
        if (pinned > 0)
                pinned--;
}
