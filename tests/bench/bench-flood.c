/* bench-flood.c: what one user's flood of calls does to another user. Root's GetData on its own
 * thread over the bus (pm_get_data_thread; pm_get_data_mythread reads in process and sees no flood),
 * median and p99 of 1000 calls, alone and while uid 65534 keeps K connections x N calls in flight
 * (raw clients, raw-bus.c: GetData on their own threads, each answered call sent again at once),
 * with what the flood got (answers per second), pmapid's CPU (percent of one CPU) while root
 * measured, and its RSS before, during and after. Ratios are against root's unloaded median of the
 * same run. Asserts nothing. */
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-stats.h"
#include "bus-fixture.h"
#include "pmapi.h"
#include "raw-bus.h"
#include "workload.h"

#define N_CALLS 1000
#define NOBODY 65534

static long long samples[N_CALLS];

typedef struct FloodResult {
        long long answered;
} FloodResult;

/* utime + stime of pid, in clock ticks. */
static long long cpu_ticks(pid_t pid) {
        char path[64], buf[1024], *p;
        unsigned long long utime = 0, stime = 0;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
        f = fopen(path, "re");
        if (!f || !fgets(buf, sizeof(buf), f)) {
                if (f)
                        fclose(f);
                return -1;
        }
        fclose(f);
        p = strrchr(buf, ')');          /* the name may hold spaces */
        if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
                return -1;
        return (long long) (utime + stime);
}

/* One flooding connection as uid 65534: N calls in flight until stop_ns, then its tallies. */
static int flooder(int in_flight, long long stop_ns, int report, int page_flt) {
        const RawArg self[] = { { 'i', getpid() }, { 'i', getpid() } };
        const RawArg program[] = { { 'i', getpid() }, { 'i', getpid() }, { 'i', PM_USER }, { 'a', page_flt } };
        FloodResult res = {};
        char name[256];
        int fd;

        if (setgroups(0, NULL) < 0 || setresgid(NOBODY, NOBODY, NOBODY) < 0 || setresuid(NOBODY, NOBODY, NOBODY) < 0)
                return 126;
        fd = raw_bus_connect();
        /* The context inherited from root's benchmark thread goes: the flood counts on its own. */
        if (fd >= 0)
                (void) raw_bus_call(fd, "DeleteProgram", self, 2, name, sizeof(name));
        if (fd < 0 || raw_bus_call(fd, "SetProgram", program, 4, name, sizeof(name)) != 0) {
                fprintf(stderr, "flooder: cannot connect or set a program (%s)\n", fd < 0 ? "connect" : name);
                return 1;
        }
        for (int i = 0; i < in_flight; i++)
                if (raw_bus_send(fd, "GetData", self, 2) < 0)
                        return 1;
        while (bench_now_ns() < stop_ns) {
                int r = raw_bus_read_answer(fd, name, sizeof(name));
                if (r < 0)
                        return 1;
                res.answered += r == 0;
                if (raw_bus_send(fd, "GetData", self, 2) < 0)
                        return 1;
        }
        return write(report, &res, sizeof(res)) == sizeof(res) ? 0 : 1;
}

/* A GetData round trip: pm_get_data_mythread itself reads in process now (pmapi/local.h), which no
 * flood touches; the same read through the bus is what the flood competes with. */
static void measure(long long *median, long long *p99) {
        pm_data_t d;

        for (int i = 0; i < N_CALLS; i++) {
                long long s = bench_now_ns();
                (void) pm_get_data_thread(getpid(), gettid(), &d);
                samples[i] = bench_now_ns() - s;
        }
        *median = bench_median(samples, N_CALLS);
        *p99 = bench_percentile(samples, N_CALLS, 99);
}

static void flood(const BusFixture *f, int connections, int in_flight, int page_flt, long long unloaded) {
        long long median, p99, start = bench_now_ns(), stop, total_answered = 0;
        long rss_before = rss_kb(f->daemon_pid), rss_during, rss_after;
        pid_t *pids = calloc((size_t) connections, sizeof(pid_t));
        int p[2];

        if (!pids || pipe(p) < 0)
                return;
        stop = start + 4000000000LL;                    /* long enough for root's calls under load */
        for (int i = 0; i < connections; i++) {
                pids[i] = fork();
                if (pids[i] == 0)
                        _exit(flooder(in_flight, stop, p[1], page_flt));
        }
        close(p[1]);
        usleep(500000);                                 /* the flood at full strength */
        long long t0 = bench_now_ns(), c0 = cpu_ticks(f->daemon_pid);
        pm_info_t info;
        int init_rc = pm_init(PM_VERIFIED, &info);      /* a new client's first call, under the flood */
        long long init_ns = bench_now_ns() - t0;
        measure(&median, &p99);
        long long t1 = bench_now_ns();
        int init2_rc = pm_init(PM_VERIFIED, &info);     /* and once the flood runs steadily */
        long long init2_ns = bench_now_ns() - t1;
        long long busy = (cpu_ticks(f->daemon_pid) - c0) * (1000000000LL / sysconf(_SC_CLK_TCK)) * 100 /
                         (bench_now_ns() - t0);
        rss_during = rss_kb(f->daemon_pid);
        for (int i = 0; i < connections; i++) {
                FloodResult r;
                if (read(p[0], &r, sizeof(r)) == sizeof(r))
                        total_answered += r.answered;
        }
        for (int i = 0; i < connections; i++)
                waitpid(pids[i], NULL, 0);
        close(p[0]);
        usleep(1000000);
        rss_after = rss_kb(f->daemon_pid);
        printf("%4d x %-4d %10lld %9.1fx %10lld %12lld %6lld%% %8ld %8ld %8ld %11lld %10lld%s\n",
               connections, in_flight, median / 1000, (double) median / (double) unloaded, p99 / 1000,
               total_answered * 1000000000LL / (stop - start), busy, rss_before, rss_during, rss_after,
               init_ns / 1000, init2_ns / 1000, init_rc == 0 && init2_rc == 0 ? "" : "  (pm_init failed)");
        free(pids);
}

int main(void) {
        BusFixture f;
        pm_info_t info;
        pm_prog_t prog;
        long long median, p99;
        int page_flt;

        if (bus_fixture_start(&f, NULL) != 0)
                return 1;
        if (bus_fixture_share_programs(&f, NULL) != 0 || pm_init(PM_VERIFIED, &info) != 0)
                return 1;
        page_flt = find_event_id(&info, "PM_PAGE_FLT");
        program_one(&prog, PM_USER | PM_COUNT, page_flt);
        if (pm_set_program_mythread(&prog) != 0)
                return 1;
        measure(&median, &p99);                         /* warm-up */
        measure(&median, &p99);
        printf("# root's GetData over the bus (median and p99 of %d calls, us) while uid 65534 keeps\n"
               "# CONNxIN_FLIGHT GetData calls in flight; the flood's answers/s; pmapid's CPU meanwhile;\n"
               "# pmapid RSS (KB) before, during, 1 s after; root's pm_init (us) 0.5 s into the flood, while\n"
               "# its first burst is still queued, and later. Unloaded: median %lld us, p99 %lld us.\n",
               N_CALLS, median / 1000, p99 / 1000);
        printf("%-11s %10s %10s %10s %12s %7s %8s %8s %8s %11s %10s\n", "flood", "median_us", "ratio", "p99_us",
               "answered/s", "pmapid", "rss0", "rss1", "rss2", "init_0.5s", "init_late");
        flood(&f, 8, 64, page_flt, median);
        flood(&f, 64, 128, page_flt, median);
        flood(&f, 240, 64, page_flt, median);          /* the 240 connections */
        (void) pm_delete_program_mythread();
        return bus_fixture_stop(&f);
}
