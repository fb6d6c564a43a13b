/* bench-third-party.c: what the access rule costs. Median of pm_get_data_thread on another
 * process's thread, by root and by the thread's owner (whose calls read the target's credentials
 * from /proc), next to a first-party GetData over the bus (pm_get_data_thread on the calling
 * thread: pm_get_data_mythread reads in process and is no bus reference), the D-Bus floor (Peer.Ping) and the
 * raw read() of a perf group opened on that same thread, all in this run. Asserts nothing. */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "bench-stats.h"
#include "bus-fixture.h"
#include "pmapi.h"
#include "target.h"
#include "workload.h"

#define N_RAW 100000
#define N_BUS 2000
#define N_WARM 200
#define NOBODY 65534

static long long samples[N_RAW];

/* The median ns of op(arg) over n calls after a warm-up. */
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

static void raw_read(void *arg) {
        uint64_t buf[4];
        (void) !read(*(int *) arg, buf, sizeof(buf));
}

static void ping(void *arg) {
        (void) sd_bus_call_method(arg, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1", "org.freedesktop.DBus.Peer",
                                  "Ping", NULL, NULL, "");
}

static void get_data_mythread(void *arg) {
        pm_data_t d;
        (void) arg;
        (void) pm_get_data_thread(getpid(), gettid(), &d);     /* first party, through pmapid */
}

static void get_data_thread(void *arg) {
        const Target *t = arg;
        pm_data_t d;
        (void) pm_get_data_thread(t->pid, t->pid, &d);
}

static int open_raw_group(pid_t tid) {
        struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
                                     .config = PERF_COUNT_SW_PAGE_FAULTS, .exclude_kernel = 1, .exclude_hv = 1,
                                     .read_format = PERF_FORMAT_GROUP };
        return (int) syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static void row(const char *what, long long ns, long long floor_ns, const char *floor_name) {
        printf("%-44s %10lld ns   %8.1fx %s\n", what, ns, (double) ns / (double) floor_ns, floor_name);
}

/* The owner's calls, in a child that became nobody before it connected; it prints its median. */
static long long owner_median(Target *t) {
        int fds[2], status;
        long long v = -1;
        pid_t pid;

        if (pipe(fds) < 0)
                return -1;
        pid = fork();
        if (pid == 0) {
                pm_info_t info;
                if (setresgid(NOBODY, NOBODY, NOBODY) < 0 || setresuid(NOBODY, NOBODY, NOBODY) < 0 ||
                    pm_init(PM_VERIFIED, &info) != 0)
                        _exit(1);
                v = measure(N_BUS, get_data_thread, t);
                _exit(write(fds[1], &v, sizeof(v)) == sizeof(v) ? 0 : 1);
        }
        close(fds[1]);
        if (read(fds[0], &v, sizeof(v)) != sizeof(v))
                v = -1;
        close(fds[0]);
        waitpid(pid, &status, 0);
        return v;
}

int main(void) {
        BusFixture fixture = {};
        bool own_fixture = !getenv("DBUS_SYSTEM_BUS_ADDRESS");
        TargetIdentity nobody = TARGET_UID(NOBODY);
        pm_prog_t prog = { .mode.w = PM_USER };
        sd_bus *bus = NULL;
        pm_info_t info;
        Target t;
        int fd, r;

        if (own_fixture) {
                r = bus_fixture_start(&fixture, NULL);
                if (r != 0)
                        return r;
        }
        if (pm_init(PM_VERIFIED, &info) != 0 || sd_bus_open_system(&bus) < 0 || target_start(&t, &nobody, 1) < 0) {
                fprintf(stderr, "set-up failed\n");
                return 1;
        }
        for (int c = 0; c < MAX_COUNTERS; c++)
                prog.events[c] = COUNT_NOTHING;
        prog.events[0] = find_event_id(&info, "PM_PAGE_FLT");
        fd = open_raw_group(t.pid);
        if (fd < 0 || pm_set_program_mythread(&prog) != 0 || pm_set_program_thread(t.pid, t.pid, &prog) != 0) {
                fprintf(stderr, "set-up failed\n");
                return 1;
        }

        long long raw = measure(N_RAW, raw_read, &fd);
        long long floor = measure(N_BUS, ping, bus);
        long long mine = measure(N_BUS, get_data_mythread, NULL);
        long long by_root = measure(N_BUS, get_data_thread, &t);
        long long by_owner = owner_median(&t);

        printf("# pmapi third-party reads: median of %d calls (raw: %d) on a parked target of uid %d\n", N_BUS,
               N_RAW, NOBODY);
        printf("%-44s %10s      %8s\n", "operation", "median", "ratio");
        row("raw read() of a perf group on the target", raw, raw, "raw read");
        row("D-Bus Peer.Ping to pmapid", floor, raw, "raw read");
        row("pm_get_data_thread on itself (first party, bus)", mine, floor, "Peer.Ping");
        row("pm_get_data_thread by root", by_root, raw, "raw read");
        row("pm_get_data_thread by root", by_root, mine, "first party");
        row("pm_get_data_thread by the owner (/proc read)", by_owner, raw, "raw read");
        row("pm_get_data_thread by the owner (/proc read)", by_owner, mine, "first party");

        (void) pm_delete_program_thread(t.pid, t.pid);
        (void) pm_delete_program_mythread();
        close(fd);
        target_kill(&t);
        sd_bus_flush_close_unref(bus);
        if (own_fixture)
                (void) bus_fixture_stop(&fixture);
        return 0;
}
