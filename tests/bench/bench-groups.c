/* bench-groups.c: the cost of pm_get_data_mygroup against the number of live members (1, 10, 100,
 * 1,000 and 10,000 threads that inherited the group of the main thread, one software event each, so
 * that 10,000 fit in pmapid's fds here), next to the raw floor measured in the same run: one read()
 * of each of N identical perf counters opened here on the same threads. pm_get_data_mythread (one
 * member, the same bus round trip) is shown for reference, and "per member" is what each member
 * beyond it costs against one raw read: (group - mythread) / (N - 1) over raw / N. Thread creation:
 * pthread_create until the thread runs, per thread, with the group (Inherit) and without any
 * context. Prints numbers; asserts nothing. */
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench-stats.h"
#include "bus-fixture.h"
#include "pmapi.h"
#include "workload.h"

#define N_READS 200
#define N_WARM 20

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int n_ready;
static bool released;
static pid_t *member_tids;

/* Runs op N_READS times after N_WARM; returns the median ns of one op. */
#define MEASURE(op_stmt)                                                                           \
        ({                                                                                         \
                long long _t[N_READS];                                                             \
                for (int _i = 0; _i < N_WARM; _i++) {                                              \
                        op_stmt;                                                                   \
                }                                                                                  \
                for (int _i = 0; _i < N_READS; _i++) {                                             \
                        long long _s = bench_now_ns();                                             \
                        op_stmt;                                                                   \
                        _t[_i] = bench_now_ns() - _s;                                              \
                }                                                                                  \
                bench_median(_t, N_READS);                                                         \
        })

/* The group pmapid opens for PM_USER with PM_PAGE_FLT, counting from the start. */
static int raw_group_open(pid_t tid, int *fd) {
        struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
                                     .config = PERF_COUNT_SW_PAGE_FAULTS, .exclude_kernel = 1, .exclude_hv = 1,
                                     .read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                                                    PERF_FORMAT_TOTAL_TIME_RUNNING };
        *fd = (int) syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
        return *fd >= 0 ? 0 : -1;
}

static void read_all(int *fds, int n) {
        uint64_t buf[4];

        for (int i = 0; i < n; i++)
                (void) !read(fds[i], buf, sizeof(buf));
}

/* Creates n threads and waits until each runs; returns the ns per thread. Members hold until
 * release_members(). */
static long long create_threads(pthread_t *threads, int n, int *created);

/* Runs after Inherit (libpmapi calls it before the start routine): a member already. */
static void *member(void *arg) {
        pthread_mutex_lock(&lock);
        member_tids[(intptr_t) arg] = gettid();
        n_ready++;
        pthread_cond_broadcast(&changed);
        while (!released)
                pthread_cond_wait(&changed, &lock);
        pthread_mutex_unlock(&lock);
        return NULL;
}

static void release_members(void) {
        pthread_mutex_lock(&lock);
        released = true;
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&lock);
}

static long long create_threads(pthread_t *threads, int n, int *created) {
        pthread_attr_t attr;
        long long start = bench_now_ns();

        n_ready = 0;
        released = false;
        *created = 0;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 64 * 1024);
        for (; *created < n; (*created)++)
                if (pthread_create(&threads[*created], &attr, member, (void *) (intptr_t) (*created + 1)) != 0)
                        break;
        pthread_attr_destroy(&attr);
        pthread_mutex_lock(&lock);
        while (n_ready < *created)
                pthread_cond_wait(&changed, &lock);
        pthread_mutex_unlock(&lock);
        return n > 0 ? (bench_now_ns() - start) / n : 0;
}

/* Thread creation with no context anywhere, per thread. */
static long long plain_create_ns(int n) {
        pthread_t *threads = calloc(n > 0 ? n : 1, sizeof(pthread_t));
        int created;
        long long ns;

        if (!threads)
                return -1;
        ns = create_threads(threads, n, &created);
        release_members();
        for (int i = 0; i < created; i++)
                (void) pthread_join(threads[i], NULL);
        free(threads);
        return created == n ? ns : -1;
}

/* One row: n members (the main thread and n-1 threads it creates). Returns 0 or -1. */
static int measure_members(const pm_prog_t *prog, int n) {
        pthread_t *threads = calloc(n, sizeof(pthread_t));
        int *fds = calloc(n, sizeof(int));
        int n_threads = 0, n_raw = 0, r = -1;
        long long grp = 0, raw = 0, mine = 0, setup_ns, plain_ns;
        pm_prog_t p = *prog;
        pm_data_t d = {}, gd = {};

        member_tids = calloc(n, sizeof(pid_t));
        if (!threads || !fds || !member_tids)
                goto out;
        member_tids[0] = gettid();
        plain_ns = plain_create_ns(n - 1);
        if (pm_set_program_mygroup(&p) != 0) {
                fprintf(stderr, "pm_set_program_mygroup failed\n");
                goto out;
        }
        setup_ns = create_threads(threads, n - 1, &n_threads);
        if (n_threads < n - 1) {
                fprintf(stderr, "only %d of %d threads created\n", n_threads, n - 1);
                goto teardown;
        }
        for (; n_raw < n; n_raw++)
                if (raw_group_open(member_tids[n_raw], &fds[n_raw]) < 0) {
                        fprintf(stderr, "raw perf counter %d on thread %d: %m\n", n_raw, (int) member_tids[n_raw]);
                        goto teardown;
                }

        if (pm_get_data_mygroup(&gd) != 0) {
                fprintf(stderr, "pm_get_data_mygroup failed\n");
                goto teardown;
        }
        grp = MEASURE(pm_get_data_mygroup(&d));
        raw = MEASURE(read_all(fds, n));
        mine = MEASURE(pm_get_data_mythread(&d));
        printf("%8d %8d %13.1f %13.1f %8.1fx %13.1f ", n, gd.ginfo.members, grp / 1e3, raw / 1e3,
               (double) grp / raw, mine / 1e3);
        if (n > 1)
                printf("%9.2fx %11.1f %11.1f %s\n", ((double) (grp - mine) / (n - 1)) / ((double) raw / n),
                       setup_ns / 1e3, plain_ns / 1e3, gd.ginfo.flags.b.consistent ? "yes" : "no");
        else
                printf("%10s %11s %11s %s\n", "-", "-", "-", gd.ginfo.flags.b.consistent ? "yes" : "no");
        r = 0;

teardown:
        for (int i = 0; i < n_raw; i++)
                close(fds[i]);
        if (pm_delete_program_mygroup() != 0)
                fprintf(stderr, "pm_delete_program_mygroup failed\n");
        release_members();
        for (int i = 0; i < n_threads; i++)
                (void) pthread_join(threads[i], NULL);
        if (wait_for_context_count(0, 10000) < 0)
                fprintf(stderr, "# contexts left in pmapid after %d members\n", n);
out:
        free(threads);
        free(fds);
        free(member_tids);
        return r;
}

int main(void) {
        static const char *const args[] = { "--max-contexts-per-user=100000", NULL };
        static const int sizes[] = { 1, 10, 100, 1000, 10000 };
        BusFixture fixture;
        struct rlimit rl;
        pm_prog_t prog;
        int r = 0;

        /* Raw counters cost an fd each here; pmapid, started below, inherits the raised limit too. */
        if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
                rl.rlim_cur = rl.rlim_max;
                (void) setrlimit(RLIMIT_NOFILE, &rl);
        }
        if (bus_fixture_start(&fixture, args) != 0)
                return 1;
        if (page_fault_program(&prog, PM_USER | PM_COUNT) != 0) {
                fprintf(stderr, "set-up failed\n");
                (void) bus_fixture_stop(&fixture);
                return 1;
        }
        prog.events[1] = COUNT_NOTHING;                 /* one fd a member: 10,000 fit */
        printf("# pm_get_data_mygroup vs members (PM_PAGE_FLT each), median of %d after %d; raw: one read()\n"
               "# of each member's counter, opened here; per member: (group - mythread) / (N - 1) over raw / N;\n"
               "# create us: pthread_create until the thread runs, per thread, in the group (Inherit) / plain\n",
               N_READS, N_WARM);
        printf("%8s %8s %13s %13s %9s %13s %10s %11s %11s %s\n", "members", "ginfo", "group read us", "N raw us",
               "ratio", "mythread us", "per member", "create us", "plain us", "consistent");
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]) && r == 0; s++)
                r = measure_members(&prog, sizes[s]);
        if (bus_fixture_stop(&fixture) != 0)
                r = -1;
        return r == 0 ? 0 : 1;
}
