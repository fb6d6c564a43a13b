/* bench-system.c: what a system-wide read costs. Medians of pm_get_data (the sum over every CPU),
 * pm_get_data_lcpu (one CPU) and pm_get_data with PM_PROCTREE, next to the raw floor measured in
 * the same run: read() of one CPU-wide perf group per CPU, as pmapid does it, and the D-Bus floor
 * (Peer.Ping). Asserts nothing. */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "bench-stats.h"
#include "bus-fixture.h"
#include "pmapi.h"
#include "workload.h"

#define N_RAW 20000
#define N_BUS 2000
#define N_WARM 200
#define MAX_CPUS 256

static long long samples[N_RAW];
static int cpu_fds[MAX_CPUS];
static int n_cpu_fds;

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

/* One read() per CPU: the work pmapid does for pm_get_data, without the bus. */
static void raw_read_all(void *arg) {
        uint64_t buf[4], sum = 0;

        (void) arg;
        for (int i = 0; i < n_cpu_fds; i++)
                if (read(cpu_fds[i], buf, sizeof(buf)) > 0)
                        sum += buf[1];
        (void) sum;
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

static int open_cpu_fds(void) {
        struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
                                     .config = PERF_COUNT_SW_PAGE_FAULTS, .exclude_kernel = 1, .exclude_hv = 1,
                                     .read_format = PERF_FORMAT_GROUP };
        long n = sysconf(_SC_NPROCESSORS_ONLN);

        for (int c = 0; c < n && c < MAX_CPUS; c++) {
                int fd = (int) syscall(SYS_perf_event_open, &a, -1, c, -1, PERF_FLAG_FD_CLOEXEC);
                if (fd >= 0)
                        cpu_fds[n_cpu_fds++] = fd;
        }
        return n_cpu_fds > 0 ? 0 : -1;
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
        if (pm_init(PM_VERIFIED, &info) != 0 || sd_bus_open_system(&bus) < 0 || open_cpu_fds() < 0) {
                fprintf(stderr, "set-up failed\n");
                return 1;
        }
        program_one(&prog, PM_USER | PM_COUNT, find_event_id(&info, "PM_PAGE_FLT"));
        if (pm_set_program(&prog) != 0) {
                fprintf(stderr, "set-up failed\n");
                return 1;
        }
        long long raw = measure(N_RAW, raw_read_all, NULL);
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

        printf("# pmapi system-wide reads: median of %d calls (raw: %d), %d CPUs\n", N_BUS, N_RAW, n_cpu_fds);
        printf("%-44s %10s      %8s\n", "operation", "median", "ratio");
        row("raw read() of one CPU-wide group per CPU", raw, raw, "raw read");
        row("D-Bus Peer.Ping to pmapid", floor, raw, "raw read");
        row("pm_get_data (every process, sum of CPUs)", all, raw, "raw read");
        row("pm_get_data (every process, sum of CPUs)", all, floor, "Peer.Ping");
        row("pm_get_data_lcpu(0)", one, floor, "Peer.Ping");
        row("pm_get_data with PM_PROCTREE", tree, floor, "Peer.Ping");

        for (int i = 0; i < n_cpu_fds; i++)
                close(cpu_fds[i]);
        sd_bus_flush_close_unref(bus);
        if (own_fixture)
                (void) bus_fixture_stop(&fixture);
        return 0;
}
