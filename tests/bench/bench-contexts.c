/* bench-contexts.c: what a context costs pmapid: file descriptors and resident memory with 1, 100
 * and 1,000 live thread contexts (2 events each), and that both return to the baseline once the
 * threads exit; and what the program holds: one fd per thread that reads its counters in process. Also the time to create a context, against the raw perf open of the same group.
 * Prints numbers; asserts nothing. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench-stats.h"
#include "bus-fixture.h"
#include "pmapi.h"
#include "workload.h"

static pm_prog_t prog;
static pthread_barrier_t programmed, release;
static long long set_ns_total;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static long long now_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *holder(void *arg) {
        long long start = now_ns();
        int r = pm_set_program_mythread(&prog);
        long long took = now_ns() - start;
        pm_data_t d;

        /* Two reads: the first over the bus asks for the thread's own counters, the second is
         * local (pmapi/local.h): what a program that reads its threads' counts holds. */
        if (r == 0)
                r = pm_get_data_mythread(&d) || pm_get_data_mythread(&d);
        (void) arg;
        pthread_mutex_lock(&lock);
        set_ns_total += took;
        pthread_mutex_unlock(&lock);
        pthread_barrier_wait(&programmed);
        pthread_barrier_wait(&release);
        return (void *) (intptr_t) r;
}

static int wait_fds(pid_t pid, int want) {
        for (int i = 0; i < 500 && count_fds(pid) != want; i++)
                usleep(10000);
        return count_fds(pid);
}

int main(void) {
        static const int sizes[] = { 1, 100, 1000 };
        BusFixture fixture;
        pm_info_t info;
        int base_fds;
        long base_rss;

        static const char *const args[] = { "--max-contexts-per-user=2000", NULL };

        if (bus_fixture_start(&fixture, args) != 0 || pm_init(PM_VERIFIED, &info) != 0)
                return 1;
        prog.mode.w = PM_USER | PM_COUNT;
        for (int c = 0; c < MAX_COUNTERS; c++)
                prog.events[c] = COUNT_NOTHING;
        prog.events[0] = find_event_id(&info, "PM_PAGE_FLT");
        prog.events[1] = find_event_id(&info, "PM_MINOR_FLT");
        base_fds = count_fds(fixture.daemon_pid);
        base_rss = rss_kb(fixture.daemon_pid);
        int base_client_fds = count_fds(getpid());

        printf("# pmapid cost per live thread context (2 events), baseline %d fds, %ld kB RSS\n", base_fds, base_rss);
        printf("%8s %12s %14s %14s %16s %14s %12s\n", "contexts", "daemon fds", "fds/context", "RSS kB",
               "set_program avg", "after exit", "client fds");
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
                int n = sizes[s], fds, failed = 0;
                pthread_t *t = calloc(n, sizeof(pthread_t));
                long rss;

                set_ns_total = 0;
                pthread_barrier_init(&programmed, NULL, n + 1);
                pthread_barrier_init(&release, NULL, n + 1);
                for (int i = 0; i < n; i++)
                        pthread_create(&t[i], NULL, holder, NULL);
                pthread_barrier_wait(&programmed);
                fds = count_fds(fixture.daemon_pid);
                rss = rss_kb(fixture.daemon_pid);
                int client_fds = count_fds(getpid()) - base_client_fds;       /* the threads' handles */
                pthread_barrier_wait(&release);
                for (int i = 0; i < n; i++) {
                        void *r;
                        pthread_join(t[i], &r);
                        failed += r != NULL;
                }
                printf("%8d %12d %14.2f %14ld %13lld us %11d fds %12d%s\n", n, fds, (double) (fds - base_fds) / n,
                       rss, set_ns_total / n / 1000, wait_fds(fixture.daemon_pid, base_fds), client_fds,
                       failed ? " (set_program failed in some threads)" : "");
                pthread_barrier_destroy(&programmed);
                pthread_barrier_destroy(&release);
                free(t);
        }
        printf("# RSS after all threads exited: %ld kB (baseline %ld kB)\n", rss_kb(fixture.daemon_pid), base_rss);
        (void) bus_fixture_stop(&fixture);
        return 0;
}
