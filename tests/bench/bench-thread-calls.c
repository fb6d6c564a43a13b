/* bench-thread-calls.c: median cost of the first-party thread calls through pmapid, next to the
 * raw perf_event floor (read()/ioctl()/open of an identical perf group on the same thread) and the
 * D-Bus floor (Peer.Ping to pmapid), all measured in this run. Prints ratios; asserts nothing. */
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "bench-stats.h"
#include "bus-fixture.h"
#include "pmapi.h"
#include "workload.h"

#define N_RAW 100000
#define N_BUS 2000
#define N_WARM 200

/* Runs op n times after warm-up; returns the median ns of one op (a pair counts as one). */
#define MEASURE(n, setup_stmt, op_stmt)                                                            \
        ({                                                                                         \
                static long long _t[N_RAW];                                                        \
                for (int _i = 0; _i < N_WARM; _i++) {                                              \
                        setup_stmt;                                                                \
                        op_stmt;                                                                   \
                }                                                                                  \
                for (int _i = 0; _i < (n); _i++) {                                                 \
                        setup_stmt;                                                                \
                        long long _s = bench_now_ns();                                             \
                        op_stmt;                                                                   \
                        _t[_i] = bench_now_ns() - _s;                                              \
                }                                                                                  \
                bench_median(_t, (n));                                                             \
        })

static int raw_group_open(int fds[2]) {
        struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
                                     .config = PERF_COUNT_SW_PAGE_FAULTS, .disabled = 1, .exclude_kernel = 1,
                                     .exclude_hv = 1,
                                     .read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                                                    PERF_FORMAT_TOTAL_TIME_RUNNING };
        fds[0] = (int) syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
        a.config = PERF_COUNT_SW_PAGE_FAULTS_MIN;
        a.disabled = 0;
        fds[1] = (int) syscall(SYS_perf_event_open, &a, 0, -1, fds[0], PERF_FLAG_FD_CLOEXEC);
        return fds[0] >= 0 && fds[1] >= 0 ? 0 : -1;
}

static void raw_group_close(int fds[2]) {
        close(fds[1]);
        close(fds[0]);
}

static void row(const char *what, long long ns, long long floor_ns, const char *floor_name) {
        printf("%-40s %10lld ns   %8.1fx %s\n", what, ns, (double) ns / (double) floor_ns, floor_name);
}

/* A thread born counting inside the kernel (its creator's program passes on): its own reads, the
 * first over the bus (it gets counters of its own), the rest in process with what the kernel had
 * counted carried; and a raw read() of the fd it was handed, the floor. -1 where not born. */
typedef struct BornReads {
        long long local, raw;
} BornReads;

static void *born_reads(void *arg) {
        BornReads *r = arg;
        int fds[8], n, handed = -1, before = perf_fds_of(getpid(), fds, 8);
        uint64_t buf[8];
        pm_data_t d;

        (void) pm_get_data_mythread(&d);
        n = perf_fds_of(getpid(), fds, 8);
        for (int i = 0; i < n && i < 8; i++)
                handed = fds[i] > handed ? fds[i] : handed;
        if (n != before + 1 || handed < 0)
                return NULL;
        r->raw = MEASURE(N_RAW, , (void) !read(handed, buf, sizeof(buf)));
        r->local = MEASURE(N_RAW, , pm_get_data_mythread(&d));
        return NULL;
}

/* The perf fd pmapid handed this thread: the one this process holds besides its own two groups,
 * the newest (highest number). */
static int handed_fd(void) {
        int fds[8], n = perf_fds_of(getpid(), fds, 8), found = -1;

        for (int i = 0; i < n && i < 8; i++)
                found = fds[i] > found ? fds[i] : found;
        return n == 5 ? found : -1;     /* keeper and fds (2 + 2), and the handed one */
}

int main(void) {
        BusFixture fixture = {};
        bool own_fixture = !getenv("DBUS_SYSTEM_BUS_ADDRESS");
        uint64_t buf[8];
        int fds[2], r;
        pm_info_t info;
        pm_prog_t prog = { .mode.w = PM_USER };
        pm_data_t d;
        sd_bus *bus = NULL;

        if (own_fixture) {
                r = bus_fixture_start(&fixture, NULL);
                if (r != 0)
                        return r;
        }
        /* One idle counter stays open all along, as pmapid's always are: otherwise each open after
         * the last close pays the kernel's static-key switch (~8 ms), not the open itself. */
        int keeper[2];
        if (pm_init(PM_VERIFIED, &info) != 0 || raw_group_open(keeper) < 0 || raw_group_open(fds) < 0 || sd_bus_open_system(&bus) < 0) {
                fprintf(stderr, "set-up failed\n");
                return 1;
        }
        for (int c = 0; c < MAX_COUNTERS; c++)
                prog.events[c] = COUNT_NOTHING;
        prog.events[0] = find_event_id(&info, "PM_PAGE_FLT");
        prog.events[1] = find_event_id(&info, "PM_MINOR_FLT");

        long long raw_read = MEASURE(N_RAW, , (void) !read(fds[0], buf, sizeof(buf)));
        /* Each a real switch, as pm_start/stop_mythread's below: enabling an enabled group costs less. */
        long long raw_enable = MEASURE(N_RAW, ioctl(fds[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP),
                                       ioctl(fds[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP));
        long long raw_disable = MEASURE(N_RAW, ioctl(fds[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP),
                                        ioctl(fds[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP));
        long long raw_reset = MEASURE(N_RAW, , ioctl(fds[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP));
        long long raw_open = MEASURE(N_BUS * 5, , (raw_group_close(fds), raw_group_open(fds)));
        long long ping = MEASURE(N_BUS, , sd_bus_call_method(bus, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1",
                                                             "org.freedesktop.DBus.Peer", "Ping", NULL, NULL, ""));

        if (pm_set_program_mythread(&prog) != 0)
                return 1;
        /* The first read goes over the bus and asks for the thread's own counters; the rest are
         * local (pmapi/local.h). Against the raw read of the very fd pmapid handed over, too. */
        (void) pm_get_data_mythread(&d);
        int handed = handed_fd();
        long long raw_handed = handed >= 0 ? MEASURE(N_RAW, , (void) !read(handed, buf, sizeof(buf))) : -1;
        long long get_data = MEASURE(N_RAW, , pm_get_data_mythread(&d));
        long long get_data_bus = MEASURE(N_BUS, , pm_get_data_thread(getpid(), gettid(), &d));
        /* With the counted time: in process too (the base of the last reset is in the page). */
        pm_accu_time_t times;
        long long get_tdata = MEASURE(N_RAW, , pm_get_Tdata_mythread(&d, &times));
        timebasestruct_t tb;
        long long tstart = MEASURE(N_RAW, pm_stop_mythread(), pm_tstart_mythread(&tb));
        /* In process too, for a context outside groups (pmapi/local.h). */
        long long start = MEASURE(N_RAW, pm_stop_mythread(), pm_start_mythread());
        long long stop = MEASURE(N_RAW, pm_start_mythread(), pm_stop_mythread());
        long long reset = MEASURE(N_RAW, , pm_reset_data_mythread());
        (void) pm_delete_program_mythread();
        long long set_delete = MEASURE(N_BUS, , (pm_set_program_mythread(&prog), pm_delete_program_mythread()));

        /* A multiplexed context of 2 and of 4 sets (the same 2 events each): always over the bus. */
        pm_events_prog_t sets[4];
        pm_prog_mx_t mx = { .mode = prog.mode, .slice_duration = 100, .events_set = sets };
        pm_data_mx_t dmx;
        long long get_mx[2];

        for (int k = 0; k < 4; k++)
                memcpy(sets[k], prog.events, sizeof(sets[k]));
        for (int i = 0; i < 2; i++) {
                mx.nb_events_prog = i == 0 ? 2 : 4;
                if (pm_set_program_mythread_mx(&mx) != 0)
                        return 1;
                get_mx[i] = MEASURE(N_BUS, , (pm_get_data_mythread_mx(&dmx), free(dmx.accu_set)));
                (void) pm_delete_program_mythread();
        }

        printf("# pmapi first-party thread calls, median of %d calls (raw: %d), group of 2 software events\n",
               N_BUS, N_RAW);
        printf("%-40s %10s      %8s\n", "operation", "median", "ratio");
        row("raw read() of the perf group", raw_read, raw_read, "raw read");
        row("raw ioctl(ENABLE|GROUP)", raw_enable, raw_enable, "raw enable");
        row("raw ioctl(DISABLE|GROUP)", raw_disable, raw_disable, "raw disable");
        row("raw ioctl(RESET|GROUP)", raw_reset, raw_reset, "raw reset");
        row("raw open+close of the group", raw_open, raw_open, "raw open+close");
        row("D-Bus Peer.Ping to pmapid", ping, raw_read, "raw read");
        if (raw_handed > 0)
                row("raw read() of the handed fd (local)", raw_handed, raw_read, "raw read");
        row("pm_get_data_mythread (local)", get_data, raw_read, "raw read");
        if (raw_handed > 0)
                row("pm_get_data_mythread (local)", get_data, raw_handed, "raw read of it");
        row("pm_get_data_thread on itself (bus)", get_data_bus, raw_read, "raw read");
        row("pm_get_data_thread on itself (bus)", get_data_bus, ping, "Peer.Ping");
        row("pm_get_Tdata_mythread (local)", get_tdata, raw_read, "raw read");
        row("pm_start_mythread", start, raw_enable, "raw enable");
        row("pm_tstart_mythread", tstart, raw_enable, "raw enable");
        row("pm_stop_mythread", stop, raw_disable, "raw disable");
        row("pm_reset_data_mythread", reset, raw_reset, "raw reset");
        row("pm_set_program + pm_delete_program", set_delete, raw_open, "raw open+close");
        row("pm_set_program + pm_delete_program", set_delete, 2 * ping, "2 x Peer.Ping");
        row("pm_get_data_mythread_mx, 2 sets (bus)", get_mx[0], get_data_bus, "1-set bus read");
        row("pm_get_data_mythread_mx, 2 sets (bus)", get_mx[0], 2 * raw_read, "2 raw reads");
        row("pm_get_data_mythread_mx, 4 sets (bus)", get_mx[1], get_data_bus, "1-set bus read");
        row("pm_get_data_mythread_mx, 4 sets (bus)", get_mx[1], 4 * raw_read, "4 raw reads");

        /* A born thread's reads (where pmapid inherits inside the kernel). */
        BornReads born = { -1, -1 };
        pthread_t t;

        if (pm_set_program_mythread(&prog) == 0 && pthread_create(&t, NULL, born_reads, &born) == 0)
                (void) pthread_join(t, NULL);
        (void) pm_delete_program_mythread();
        if (born.local > 0) {
                row("pm_get_data_mythread, born thread (local)", born.local, raw_read, "raw read");
                row("pm_get_data_mythread, born thread (local)", born.local, born.raw, "raw read of it");
        } else
                printf("# a born thread's reads: not in process (pmapid does not inherit in the kernel)\n");

        raw_group_close(fds);
        raw_group_close(keeper);
        sd_bus_flush_close_unref(bus);
        if (own_fixture)
                (void) bus_fixture_stop(&fixture);
        return 0;
}
