/* bench-reexec.c: what a planned restart (SIGHUP: pmapid re-executes itself with its state) costs,
 * with 1, 100 and 1,000 live thread contexts, medians of 5: from the signal until the old image
 * gives the name up (release_ms), and until a pm_get_data_mythread made at that moment is answered
 * by the new image (answer_ms: it waits for the name), against the median call before (call_us): a
 * GetData over the bus (pm_get_data_thread on the calling thread; pm_get_data_mythread would read in
 * process and not reach pmapid at all). Also pmapid's fds and RSS
 * before and after, and that every context is still there. Prints numbers; asserts nothing. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "bench-stats.h"
#include "bus-fixture.h"
#include "pmapi.h"
#include "workload.h"

#define ROUNDS 5
#define CALLS 200

static pm_prog_t prog;
static pthread_barrier_t programmed, release;

static void *holder(void *arg) {
        (void) arg;
        (void) pm_set_program_mythread(&prog);
        pthread_barrier_wait(&programmed);
        pthread_barrier_wait(&release);
        return NULL;
}

static unsigned context_count(sd_bus *bus) {
        uint32_t n = 0;

        (void) sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1",
                                           "org.pmapi.PerfMon1.Manager", "ContextCount", NULL, 'u', &n);
        return n;
}

static int has_owner(sd_bus *bus) {
        sd_bus_message *reply = NULL;
        int has = 0;

        if (sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "NameHasOwner", NULL, &reply, "s", "org.pmapi.PerfMon1") >= 0)
                (void) sd_bus_message_read(reply, "b", &has);
        sd_bus_message_unref(reply);
        return has;
}

/* From the signal: until the old image gave the name up, and until a call made at that moment was
 * answered by the new image (it waits for the name: libpmapi polls every 10 ms). */
static int one_reexec(BusFixture *f, sd_bus *bus, long long *ret_released, long long *ret_call) {
        long long start;
        pm_data_t d;

        start = bench_now_ns();
        if (kill(f->daemon_pid, SIGHUP) < 0)
                return -1;
        while (has_owner(bus))
                usleep(100);
        *ret_released = bench_now_ns() - start;
        /* A call that goes to pmapid: pm_get_data_mythread reads in process and sees no restart. */
        if (pm_get_data_thread(getpid(), gettid(), &d) != 0)
                return -1;
        *ret_call = bench_now_ns() - start;
        return 0;
}

int main(void) {
        static const int sizes[] = { 1, 100, 1000 };
        static const char *const args[] = { "--max-contexts-per-user=2000", NULL };
        BusFixture fixture;
        sd_bus *bus = NULL;
        pm_info_t info;

        if (bus_fixture_start(&fixture, args) != 0 || pm_init(PM_VERIFIED, &info) != 0 ||
            sd_bus_open_system(&bus) < 0)
                return 1;
        program_one(&prog, PM_USER | PM_COUNT, find_event_id(&info, "PM_PAGE_FLT"));
        prog.events[1] = find_event_id(&info, "PM_TASK_CLOCK");
        if (pm_set_program_mythread(&prog) != 0)
                return 1;
        printf("# pmapid re-executing itself (SIGHUP) with its state; %d rounds each\n", ROUNDS);
        printf("%8s %12s %12s %12s %10s %10s %12s\n", "contexts", "release_ms", "answer_ms", "call_us_base",
               "fds", "rss_kb", "kept");
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
                int n = sizes[s] - 1;           /* the main thread holds one */
                pthread_t *t = calloc(n > 0 ? n : 1, sizeof(pthread_t));
                long long released[ROUNDS], calls[ROUNDS], base[CALLS];
                unsigned before, after;
                int fds_before, fds_after;
                long rss_before, rss_after;

                pthread_barrier_init(&programmed, NULL, n + 1);
                pthread_barrier_init(&release, NULL, n + 1);
                for (int i = 0; i < n; i++)
                        pthread_create(&t[i], NULL, holder, NULL);
                pthread_barrier_wait(&programmed);
                for (int i = 0; i < CALLS; i++) {
                        pm_data_t d;
                        long long start = bench_now_ns();
                        (void) pm_get_data_thread(getpid(), gettid(), &d);
                        base[i] = bench_now_ns() - start;
                }
                before = context_count(bus);
                fds_before = settled_fds(fixture.daemon_pid);
                rss_before = rss_kb(fixture.daemon_pid);
                for (int r = 0; r < ROUNDS; r++)
                        if (one_reexec(&fixture, bus, &released[r], &calls[r]) < 0)
                                return 1;
                after = context_count(bus);
                fds_after = settled_fds(fixture.daemon_pid);
                rss_after = rss_kb(fixture.daemon_pid);
                printf("%8d %12.2f %12.2f %12.1f %4d->%-5d %5ld->%-6ld %5u/%-5u\n", sizes[s],
                       bench_median(released, ROUNDS) / 1e6, bench_median(calls, ROUNDS) / 1e6,
                       bench_median(base, CALLS) / 1e3, fds_before, fds_after, rss_before, rss_after, after, before);
                pthread_barrier_wait(&release);
                for (int i = 0; i < n; i++)
                        pthread_join(t[i], NULL);
                free(t);
        }
        sd_bus_flush_close_unref(bus);
        return bus_fixture_stop(&fixture);
}
