/* bench-system.c: what a system-wide read costs. Medians of pm_get_data (the sum over every CPU),
 * pm_get_data_lcpu (one CPU), pm_get_data with PM_PROCTREE and pm_get_data_wp (a cgroup context),
 * next to the raw floor measured in the same run: read() of one CPU-wide perf group per CPU (or
 * one per CPU restricted to the cgroup), as pmapid does it, and the D-Bus floor (Peer.Ping).
 * Asserts nothing. */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "bench-stats.h"
#include "bus-fixture.h"
#include "cgroup-tree.h"
#include "pmapi.h"
#include "workload.h"

#define N_RAW 20000
#define N_BUS 2000
#define N_WARM 200
#define MAX_CPUS 256

static long long samples[N_RAW];
static int cpu_fds[MAX_CPUS], cgroup_fds[MAX_CPUS];
static int n_cpu_fds, n_cgroup_fds;
static cid_t cgroup_id;

static long long measure(int n, void (*op)(void *), void *arg) {
        for (int i = 0; i < N_WARM; i++)
                op(arg);
        for (int i = 0; i < n; i++) {
                long long s = bench_now_ns();
                op(arg);
                samples[i] = bench_now_ns() - s;
        }
        return bench_median(samples, n);
}

/* One read() per CPU: the work pmapid does for pm_get_data (arg: cpu_fds) or pm_get_data_wp (arg:
 * cgroup_fds), without the bus. */
static void raw_read_all(void *arg) {
        const int *fds = arg;
        int n = fds == cgroup_fds ? n_cgroup_fds : n_cpu_fds;
        uint64_t buf[4], sum = 0;

        for (int i = 0; i < n; i++)
                if (read(fds[i], buf, sizeof(buf)) > 0)
                        sum += buf[1];
        (void) sum;
}

static void get_data_wp(void *arg) {
        pm_data_t d;
        (void) arg;
        (void) pm_get_data_wp(cgroup_id, &d);
}

static void ping(void *arg) {
        (void) sd_bus_call_method(arg, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1", "org.freedesktop.DBus.Peer",
                                  "Ping", NULL, NULL, "");
}

static void get_data(void *arg) {
        pm_data_t d;
        (void) arg;
        (void) pm_get_data(&d);
}

static void get_data_lcpu0(void *arg) {
        pm_data_t d;
        (void) arg;
        (void) pm_get_data_lcpu(0, &d);
}

static void row(const char *what, long long ns, long long floor_ns, const char *floor_name) {
        printf("%-44s %10lld ns   %8.1fx %s\n", what, ns, (double) ns / (double) floor_ns, floor_name);
}

/* One page-fault counter per CPU into fds: CPU-wide (cgroup_fd -1) or restricted to a cgroup. */
static int open_cpu_fds(int cgroup_fd, int *fds, int *n_fds) {
        struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
                                     .config = PERF_COUNT_SW_PAGE_FAULTS, .exclude_kernel = 1, .exclude_hv = 1,
                                     .read_format = PERF_FORMAT_GROUP };
        long n = sysconf(_SC_NPROCESSORS_ONLN);

        for (int c = 0; c < n && c < MAX_CPUS; c++) {
                int fd = (int) syscall(SYS_perf_event_open, &a, cgroup_fd < 0 ? -1 : cgroup_fd, c, -1,
                                       PERF_FLAG_FD_CLOEXEC | (cgroup_fd < 0 ? 0 : PERF_FLAG_PID_CGROUP));
                if (fd >= 0)
                        fds[(*n_fds)++] = fd;
        }
        return *n_fds > 0 ? 0 : -1;
}

/* A cgroup of the benchmark's own, its raw counters and a cgroup context on it: the cgroup read's
 * median next to the raw one, or -1 where cgroup v2 cannot be written. */
static int measure_cgroup(const pm_prog_t *prog, long long *ret_raw, long long *ret_wp) {
        int fd;

        if (cgroup_tree_setup() < 0 || cgroup_tree_make("bench") < 0)
                return -1;
        cgroup_id = cgroup_tree_id("bench");
        fd = open(cgroup_tree_fs_path("bench"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0 || open_cpu_fds(fd, cgroup_fds, &n_cgroup_fds) < 0 ||
            pm_set_program_wp(cgroup_id, (pm_prog_t *) prog) != 0)
                return -1;
        close(fd);
        *ret_raw = measure(N_RAW, raw_read_all, cgroup_fds);
        *ret_wp = measure(N_BUS, get_data_wp, NULL);
        (void) pm_delete_program_wp(cgroup_id);
        for (int i = 0; i < n_cgroup_fds; i++)
                close(cgroup_fds[i]);
        cgroup_tree_teardown();
        return 0;
}

int main(void) {
        BusFixture fixture = {};
        bool own_fixture = !getenv("DBUS_SYSTEM_BUS_ADDRESS");
        pm_prog_t prog;
        sd_bus *bus = NULL;
        pm_info_t info;
        int r;

        if (own_fixture) {
                r = bus_fixture_start(&fixture, NULL);
                if (r != 0)
                        return r;
        }
        if (pm_init(PM_VERIFIED, &info) != 0 || sd_bus_open_system(&bus) < 0 ||
            open_cpu_fds(-1, cpu_fds, &n_cpu_fds) < 0) {
                fprintf(stderr, "set-up failed\n");
                return 1;
        }
        program_one(&prog, PM_USER | PM_COUNT, find_event_id(&info, "PM_PAGE_FLT"));
        if (pm_set_program(&prog) != 0) {
                fprintf(stderr, "set-up failed\n");
                return 1;
        }
        long long raw = measure(N_RAW, raw_read_all, cpu_fds);
        long long floor = measure(N_BUS, ping, bus);
        long long all = measure(N_BUS, get_data, NULL);
        long long one = measure(N_BUS, get_data_lcpu0, NULL);
        (void) pm_delete_program();
        prog.mode.w |= PM_PROCTREE;
        if (pm_set_program(&prog) != 0) {
                fprintf(stderr, "set-up failed\n");
                return 1;
        }
        long long tree = measure(N_BUS, get_data, NULL);
        (void) pm_delete_program();
        prog.mode.w &= ~PM_PROCTREE;
        long long cgroup_raw = 0, cgroup_wp = 0;
        bool have_cgroup = measure_cgroup(&prog, &cgroup_raw, &cgroup_wp) == 0;

        printf("# pmapi system-wide reads: median of %d calls (raw: %d), %d CPUs\n", N_BUS, N_RAW, n_cpu_fds);
        printf("%-44s %10s      %8s\n", "operation", "median", "ratio");
        row("raw read() of one CPU-wide group per CPU", raw, raw, "raw read");
        row("D-Bus Peer.Ping to pmapid", floor, raw, "raw read");
        row("pm_get_data (every process, sum of CPUs)", all, raw, "raw read");
        row("pm_get_data (every process, sum of CPUs)", all, floor, "Peer.Ping");
        row("pm_get_data_lcpu(0)", one, floor, "Peer.Ping");
        row("pm_get_data with PM_PROCTREE", tree, floor, "Peer.Ping");
        if (have_cgroup) {
                row("raw read() of one cgroup group per CPU", cgroup_raw, cgroup_raw, "raw cgroup read");
                row("pm_get_data_wp (a cgroup, sum of CPUs)", cgroup_wp, cgroup_raw, "raw cgroup read");
                row("pm_get_data_wp (a cgroup, sum of CPUs)", cgroup_wp, floor, "Peer.Ping");
        } else
                printf("# no cgroup row: cgroup v2 is not mounted or not writable here\n");

        for (int i = 0; i < n_cpu_fds; i++)
                close(cpu_fds[i]);
        sd_bus_flush_close_unref(bus);
        if (own_fixture)
                (void) bus_fixture_stop(&fixture);
        return 0;
}
