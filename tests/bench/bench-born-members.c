/* bench-born-members.c: what a member born inside the kernel (pmapid's heirs) costs: pmapid's file
 * descriptors and resident memory per live member of a descendant group at 1, 10, 1,000 and 10,000
 * members (threads made by pthread_create, parked), and the time to read the group
 * (pm_get_data_mygroup, median of 200) against the raw floor of one read() of a perf counter. The
 * issue asked for 100,000 members too: this VM's pid_max (32,768) does not allow it. Prints numbers;
 * asserts nothing. */
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench-stats.h"
#include "bus-fixture.h"
#include "pmapi.h"
#include "thread-park.h"
#include "workload.h"

#define READS 200

static long long group_read_ns(void) {
        long long t[READS];
        pm_data_t d;

        for (int i = 0; i < READS; i++) {
                long long t0 = bench_now_ns();
                (void) pm_get_data_mygroup(&d);
                t[i] = bench_now_ns() - t0;
        }
        return bench_median(t, READS);
}

static long long raw_read_ns(void) {
        struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
                                     .config = PERF_COUNT_SW_PAGE_FAULTS, .exclude_kernel = 1 };
        int fd = (int) syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
        long long t[READS];
        uint64_t v;

        for (int i = 0; i < READS; i++) {
                long long t0 = bench_now_ns();
                (void) !read(fd, &v, sizeof(v));
                t[i] = bench_now_ns() - t0;
        }
        close(fd);
        return bench_median(t, READS);
}

int main(void) {
        static const int sizes[] = { 1, 10, 1000, 10000 };
        static BusFixture fixture;
        pm_prog_t prog;
        long long floor_ns;

        if (bus_fixture_start(&fixture, NULL) != 0)
                return 1;
        if (!kernel_inheritance()) {
                printf("# pmapid does not inherit inside the kernel here: nothing to measure\n");
                return bus_fixture_stop(&fixture);
        }
        floor_ns = raw_read_ns();
        printf("# members born inside the kernel, parked; pmapid's fds and RSS against the group alone\n");
        printf("%8s %10s %12s %12s %14s %10s\n", "members", "fds/memb", "RSS KiB", "bytes/memb", "group read us",
               "x floor");
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
                int n = sizes[s];
                ThreadPark park = {};
                long base_rss, rss, base_fds, fds;
                long long read_ns;

                if (page_fault_program(&prog, PM_USER | PM_COUNT) != 0 || pm_set_program_mygroup(&prog) != 0)
                        return 1;
                base_fds = settled_fds(fixture.daemon_pid);
                base_rss = rss_kb(fixture.daemon_pid);
                (void) thread_park_start(&park, n);
                read_ns = group_read_ns();              /* reads the fork records too: all adopted */
                fds = settled_fds(fixture.daemon_pid);
                rss = rss_kb(fixture.daemon_pid);
                printf("%8d %10.3f %12ld %12.0f %14.1f %9.1fx\n", park.n_created,
                       (double) (fds - base_fds) / park.n_created, rss,
                       (double) (rss - base_rss) * 1024.0 / park.n_created, read_ns / 1000.0,
                       (double) read_ns / floor_ns);
                thread_park_release(&park);
                (void) pm_delete_program_mygroup();
        }
        printf("# raw floor: one read() of a perf counter, %lld ns\n", floor_ns);
        return bus_fixture_stop(&fixture);
}
