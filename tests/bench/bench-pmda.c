/* bench-pmda.c: what a PCP fetch of pmapi's metrics costs through a private pmcd and pmdapmapi,
 * against 1, 100 and 1,000 live thread contexts (threads that inherited this thread's program,
 * one software event each), next to the floor measured in the same run: a fetch of pmcd's own
 * pmcd.numagents (served inside pmcd, no agent, no bus), and pmapi.daemon.up (the agent and one
 * bus call, no context). Each context costs the agent two pipelined bus calls (its GetData and its
 * object's Events); "per context" is (fetch - daemon.up) / N. Prints numbers; asserts only that
 * every context's value came back. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "bench-stats.h"
#include "bus-fixture.h"
#include "pcp-fixture.h"
#include "pmapi.h"
#include "thread-park.h"
#include "workload.h"

#define N_FETCHES 30
#define N_WARM 5
#define MAX_CONTEXTS 1000

/* The median ns of one fetch of metric; *ret_values the values of the last one. */
static long long time_fetch(PcpFixture *pcp, const char *metric, int *ret_values) {
        static int insts[MAX_CONTEXTS + 8];
        static int64_t values[MAX_CONTEXTS + 8];
        long long t[N_FETCHES];

        for (int i = 0; i < N_WARM; i++)
                (void) pcp_fetch(pcp, metric, insts, values, MAX_CONTEXTS + 8);
        for (int i = 0; i < N_FETCHES; i++) {
                long long s = bench_now_ns();
                *ret_values = pcp_fetch(pcp, metric, insts, values, MAX_CONTEXTS + 8);
                t[i] = bench_now_ns() - s;
        }
        return bench_median(t, N_FETCHES);
}

/* The median ns of reading every context the way the agent does (ReadContexts, pages of 1,024),
 * here without pmcd and the agent. */
static long long time_read_contexts(sd_bus *bus) {
        long long t[N_FETCHES];

        for (int i = 0; i < N_FETCHES; i++) {
                uint32_t after = 0;
                int more = 1;
                long long s = bench_now_ns();
                while (more) {
                        sd_bus_message *reply = NULL;
                        int32_t pid, tid;
                        if (sd_bus_call_method(bus, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1",
                                               "org.pmapi.PerfMon1.Manager", "ReadContexts", NULL, &reply, "uu",
                                               after, 1024u) < 0)
                                return -1;
                        (void) sd_bus_message_enter_container(reply, 'a', "(iiubuaiaxtt)");
                        while (sd_bus_message_enter_container(reply, 'r', "iiubuaiaxtt") > 0) {
                                (void) sd_bus_message_read(reply, "ii", &pid, &tid);
                                (void) sd_bus_message_skip(reply, "ubuaiaxtt");
                                (void) sd_bus_message_exit_container(reply);
                        }
                        (void) sd_bus_message_exit_container(reply);
                        if (sd_bus_message_read(reply, "bu", &more, &after) < 0)
                                more = 0;
                        sd_bus_message_unref(reply);
                }
                t[i] = bench_now_ns() - s;
        }
        return bench_median(t, N_FETCHES);
}

/* One row: n contexts (this thread and n - 1 threads that inherit its program). 0 or -1. */
static int measure(PcpFixture *pcp, sd_bus *bus, const pm_prog_t *prog, int n) {
        ThreadPark park;
        pm_prog_t p = *prog;
        int n_values = 0, n_floor, n_up, r = -1;
        long long floor_ns, up_ns, fetch_ns;
        long long read_ns;

        if (pm_set_program_mythread(&p) != 0) {
                fprintf(stderr, "pm_set_program_mythread failed\n");
                return -1;
        }
        if (thread_park_start(&park, n - 1) == 0 && wait_for_context_count((unsigned) n, 10000) == 0) {
                floor_ns = time_fetch(pcp, "pmcd.numagents", &n_floor);
                up_ns = time_fetch(pcp, "pmapi.daemon.up", &n_up);
                fetch_ns = time_fetch(pcp, "pmapi.thread.counter.value", &n_values);
                read_ns = time_read_contexts(bus);
                printf("%8d %8d %12.1f %12.1f %12.1f %9.1fx %12.2f %12.1f\n", n, n_values, floor_ns / 1e3,
                       up_ns / 1e3, fetch_ns / 1e3, (double) fetch_ns / (double) floor_ns,
                       (double) (fetch_ns - up_ns) / n / 1e3, read_ns / 1e3);
                r = n_values == n && n_floor == 1 && n_up == 1 ? 0 : -1;
                if (r < 0)
                        fprintf(stderr, "%d values for %d contexts\n", n_values, n);
        } else
                fprintf(stderr, "only %d of %d threads, or pmapid did not count %d contexts\n", park.n_created, n - 1,
                        n);
        thread_park_release(&park);
        if (pm_delete_program_mythread() != 0 || wait_for_context_count(0, 10000) != 0) {
                fprintf(stderr, "contexts left after %d\n", n);
                r = -1;
        }
        return r;
}

int main(void) {
        static const int sizes[] = { 1, 100, MAX_CONTEXTS };
        BusFixture fixture;
        PcpFixture pcp;
        sd_bus *bus = NULL;
        pm_prog_t prog;
        const char *why;
        int r = 0;

        if (!pcp_available(&why)) {
                printf("# SKIP %s\n", why);
                return 77;
        }
        if (bus_fixture_start(&fixture, NULL) != 0)
                return 1;
        if (page_fault_program(&prog, PM_USER | PM_COUNT) != 0 || sd_bus_open_system(&bus) < 0 ||
            pcp_fixture_start(&pcp, getenv("PMAPI_PMDA"), fixture.address, NULL) != 0) {
                fprintf(stderr, "set-up failed\n");
                (void) bus_fixture_stop(&fixture);
                return 1;
        }
        prog.events[1] = COUNT_NOTHING;
        printf("# pmFetch through a private pmcd, median of %d after %d: pmcd.numagents (pmcd's own, the\n"
               "# floor), pmapi.daemon.up (pmdapmapi, one bus call), pmapi.thread.counter.value (every\n"
               "# context); ratio: the last over the floor; per context: (fetch - daemon.up) / N;\n"
               "# ReadContexts: what the agent's bus calls for them cost, timed here without pmcd\n",
               N_FETCHES, N_WARM);
        printf("%8s %8s %12s %12s %12s %10s %12s %12s\n", "contexts", "values", "pmcd us", "daemon.up us",
               "fetch us", "ratio", "per ctx us", "ReadContexts us");
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]) && r == 0; s++)
                r = measure(&pcp, bus, &prog, sizes[s]);
        pcp_fixture_stop(&pcp);
        sd_bus_flush_close_unref(bus);
        if (bus_fixture_stop(&fixture) != 0)
                r = -1;
        return r == 0 ? 0 : 1;
}
