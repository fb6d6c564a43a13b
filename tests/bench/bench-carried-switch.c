/* bench-carried-switch.c: what a carried program costs a context switch (issue 43). Two threads of
 * this process hand a byte back and forth over pipes, both on CPU 0, so that each round trip is two
 * switches; the threads are made after the program is set, so that they are born counting and the
 * kernel's programs end a slice at each switch. Measured in this run, each against the same
 * ping-pong with no program (the floor):
 *   - a descendants group of software events (PM_TASK_CLOCK, PM_PAGE_FLT);
 *   - a descendants group of hardware events (PM_CYC, PM_INST_CMPL), where a CPU PMU exists: the
 *     slices read pmapid's pinned per-CPU sources.
 * Prints medians and ratios; asserts nothing. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench-stats.h"
#include "bench-switch.h"
#include "bus-fixture.h"
#include "pmapi.h"
#include "workload.h"

#define N_SWITCH 20000          /* round trips */

/* The median switch of a ping-pong between this thread and a partner, both made now. */
static void *pinger(void *arg) {
        *(long long *) arg = bench_switch_ns(N_SWITCH);
        return NULL;
}

/* The median switch of a ping-pong between two threads made now (born members, where a program
 * is set), on CPU 0. */
static long long switch_ns(void) {
        long long ns = -1;
        pthread_t th;

        if (pthread_create(&th, NULL, pinger, &ns) != 0)
                return -1;
        pthread_join(th, NULL);
        return ns;
}

/* The median switch under a descendants group of events a and b, or -1 where one is missing. */
static long long switch_under(const pm_info_t *info, const char *a, const char *b, long long *ret_events) {
        int ids[2] = { find_event_id(info, a), find_event_id(info, b) };
        pm_prog_t prog = { .mode.w = PM_USER | PM_COUNT };
        long long ns;

        if (ids[0] < 0 || ids[1] < 0)
                return -1;
        for (int c = 0; c < MAX_COUNTERS; c++)
                prog.events[c] = c < 2 ? ids[c] : COUNT_NOTHING;
        if (pm_set_program_mygroup(&prog) != 0)
                return -1;
        ns = switch_ns();
        *ret_events = 2;
        (void) pm_delete_program_mygroup();
        return ns;
}

static void row(const char *what, long long ns, long long floor) {
        if (ns < 0)
                printf("%-44s %10s\n", what, "n/a");
        else
                printf("%-44s %10lld ns  %6.2fx\n", what, ns, floor > 0 ? (double) ns / (double) floor : 0);
}

int main(void) {
        BusFixture fixture;
        pm_info_t info;
        long long floor, sw, hw, n = 0;
        cpu_set_t one;

        CPU_ZERO(&one);
        CPU_SET(0, &one);
        (void) sched_setaffinity(0, sizeof(one), &one);        /* every thread made from here inherits it */
        if (bus_fixture_start(&fixture, NULL) != 0 || pm_init(PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT, &info) != 0) {
                fprintf(stderr, "bench-carried-switch: pmapid did not start\n");
                return 1;
        }
        (void) switch_ns();                                     /* warm */
        floor = switch_ns();
        sw = switch_under(&info, "PM_TASK_CLOCK", "PM_PAGE_FLT", &n);
        hw = switch_under(&info, "PM_CYC", "PM_INST_CMPL", &n);
        printf("# a context switch (pipe ping-pong, two threads on CPU 0, %d switches), median; born members "
               "of a descendants group, carried inside the kernel%s\n", 2 * N_SWITCH,
               kernel_inheritance() ? "" : " (not here: pmapid does not inherit inside the kernel)");
        row("context switch, no program (floor)", floor, floor);
        row("context switch, 2 software events carried", sw, floor);
        row("context switch, 2 hardware events carried", hw, floor);
        return bus_fixture_stop(&fixture) == 0 ? 0 : 1;
}
