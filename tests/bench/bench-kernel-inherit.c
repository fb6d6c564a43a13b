/* bench-kernel-inherit.c: what the kernel's own inheritance costs (issue 31's floor for "counted
 * from its first instruction, at the cost of a plain thread creation"). A thread opens a group of
 * N software events on itself with perf's inherit bit; every thread and process it then creates
 * gets its own copy of the group inside clone(), and its counts fold into the group at its exit.
 * Measured in this run, each against the same operation with no counters (the floor):
 *   - pthread_create + join of an empty thread, and fork + waitpid of a child that exits at once,
 *     with groups of 1, 2 and 8 events (the inherited copies are made and torn down each time);
 *   - a context switch (two threads of this process handing a byte back and forth over pipes,
 *     both on one CPU), with the inherited group on both;
 *   - a read() of the group (which sums every live child's copy) with 0 and 64 live threads.
 * No pmapid, no bus: the kernel alone. Prints medians and ratios; asserts nothing. */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-stats.h"
#include "bench-switch.h"

#define N_CREATE 2000
#define N_FORK 500
#define N_SWITCH 20000
#define N_READ 20000
#define N_WARM 100
#define MAX_EVENTS 8
#define N_LIVE 64

static const uint64_t software[MAX_EVENTS] = {
        PERF_COUNT_SW_PAGE_FAULTS, PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_COUNT_SW_TASK_CLOCK,
        PERF_COUNT_SW_PAGE_FAULTS_MIN, PERF_COUNT_SW_PAGE_FAULTS_MAJ, PERF_COUNT_SW_CPU_MIGRATIONS,
        PERF_COUNT_SW_ALIGNMENT_FAULTS, PERF_COUNT_SW_EMULATION_FAULTS,
};

typedef struct Group {
        int fds[MAX_EVENTS];
        int n;
} Group;

/* n events on the calling thread, inherited by what it creates; 0 or -errno. */
static int group_open(Group *g, int n) {
        g->n = 0;
        for (int i = 0; i < n; i++) {
                struct perf_event_attr a = {
                        .size = sizeof(a), .type = PERF_TYPE_SOFTWARE, .config = software[i],
                        .inherit = 1, .exclude_kernel = 1, .exclude_hv = 1,
                        .read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                                       PERF_FORMAT_TOTAL_TIME_RUNNING,
                };
                int fd = (int) syscall(SYS_perf_event_open, &a, 0, -1, i == 0 ? -1 : g->fds[0], 0);

                if (fd < 0)
                        return -errno;
                g->fds[g->n++] = fd;
        }
        return 0;
}

static void group_close(Group *g) {
        while (g->n > 0)
                close(g->fds[--g->n]);
}

static void *empty(void *arg) {
        return arg;
}

static long long create_join(int n) {
        long long t[N_CREATE];

        for (int i = 0; i < N_WARM + n; i++) {
                pthread_t th;
                long long s = bench_now_ns();

                if (pthread_create(&th, NULL, empty, NULL) != 0)
                        return -1;
                pthread_join(th, NULL);
                if (i >= N_WARM)
                        t[i - N_WARM] = bench_now_ns() - s;
        }
        return bench_median(t, n);
}

static long long fork_wait(int n) {
        long long t[N_FORK];

        for (int i = 0; i < N_WARM / 10 + n; i++) {
                long long s = bench_now_ns();
                pid_t pid = fork();

                if (pid == 0)
                        _exit(0);
                if (pid < 0 || waitpid(pid, NULL, 0) != pid)
                        return -1;
                if (i >= N_WARM / 10)
                        t[i - N_WARM / 10] = bench_now_ns() - s;
        }
        return bench_median(t, n);
}

/* A ping-pong of n round trips between this thread and a partner on CPU 0: each round trip is two
 * context switches. */
static long long switch_ns(int n) {
        cpu_set_t one;
        long long ns;

        CPU_ZERO(&one);
        CPU_SET(0, &one);
        (void) sched_setaffinity(0, sizeof(one), &one);        /* the partner inherits it */
        ns = bench_switch_ns(n);
        CPU_ZERO(&one);
        for (int i = 0; i < CPU_SETSIZE && i < 1024; i++)
                CPU_SET(i, &one);
        (void) sched_setaffinity(0, sizeof(one), &one);
        return ns;
}

static pthread_barrier_t live_done;

static void *parked(void *arg) {
        (void) arg;
        pthread_barrier_wait(&live_done);
        return NULL;
}

/* A read() of the group while n_live inherited copies are alive. */
static long long read_ns(const Group *g, int n_live) {
        long long t[N_READ];
        pthread_t th[N_LIVE];
        uint64_t buf[3 + MAX_EVENTS];

        pthread_barrier_init(&live_done, NULL, (unsigned) n_live + 1);
        for (int i = 0; i < n_live; i++)
                if (pthread_create(&th[i], NULL, parked, NULL) != 0)
                        return -1;
        for (int i = 0; i < N_WARM + N_READ; i++) {
                long long s = bench_now_ns();

                if (read(g->fds[0], buf, sizeof(buf)) <= 0)
                        return -1;
                if (i >= N_WARM)
                        t[i - N_WARM] = bench_now_ns() - s;
        }
        pthread_barrier_wait(&live_done);
        for (int i = 0; i < n_live; i++)
                pthread_join(th[i], NULL);
        pthread_barrier_destroy(&live_done);
        return bench_median(t, N_READ);
}

#define ROUNDS 5
#define N_SIZES 3

/* What one round measures, with no counters (size 0) or a group of that size. */
typedef struct Round {
        long long create, fork, sw;
} Round;

static int measure(int size, Round *ret) {
        Group g = { .n = 0 };
        int r = size > 0 ? group_open(&g, size) : 0;

        if (r < 0)
                return r;
        *ret = (Round) { create_join(N_CREATE / ROUNDS), fork_wait(N_FORK / ROUNDS), switch_ns(N_SWITCH / ROUNDS) };
        group_close(&g);
        return 0;
}

static long long median_of(Round *rounds, size_t offset) {
        long long v[ROUNDS];

        for (int i = 0; i < ROUNDS; i++)
                v[i] = *(long long *) ((char *) &rounds[i] + offset);
        return bench_median(v, ROUNDS);
}

static void row(const char *what, int size, long long v, long long floor) {
        char name[64];

        (void) snprintf(name, sizeof(name), size ? "%s, %d inherited event%s" : "%s, no counters", what, size,
                        size > 1 ? "s" : "");
        printf("%-44s %10lld ns %9.1fx\n", name, v, (double) v / (double) floor);
}

int main(void) {
        static const int sizes[N_SIZES + 1] = { 0, 1, 2, 8 };
        Round rounds[N_SIZES + 1][ROUNDS];
        long long floor_create, floor_fork, floor_switch, r0, r64;
        Group g;
        int r;

        /* Rounds interleave the cases, so that the machine's drift weighs on each alike. */
        for (int k = 0; k < ROUNDS; k++)
                for (int s = 0; s <= N_SIZES; s++) {
                        r = measure(sizes[s], &rounds[s][k]);
                        if (r < 0) {
                                printf("# a group of %d inherited events does not open here: %s\n", sizes[s],
                                       strerror(-r));
                                return 0;
                        }
                }
        floor_create = median_of(rounds[0], offsetof(Round, create));
        floor_fork = median_of(rounds[0], offsetof(Round, fork));
        floor_switch = median_of(rounds[0], offsetof(Round, sw));
        printf("# the kernel's inheritance (perf inherit bit): medians of %d interleaved rounds, against no "
               "counters in this run\n", ROUNDS);
        printf("operation                                        median      ratio\n");
        for (int s = 0; s <= N_SIZES; s++)
                row("pthread_create+join", sizes[s], median_of(rounds[s], offsetof(Round, create)), floor_create);
        for (int s = 0; s <= N_SIZES; s++)
                row("fork+waitpid", sizes[s], median_of(rounds[s], offsetof(Round, fork)), floor_fork);
        for (int s = 0; s <= N_SIZES; s++)
                row("context switch", sizes[s], median_of(rounds[s], offsetof(Round, sw)), floor_switch);
        if (group_open(&g, 2) < 0)
                return 0;
        r0 = read_ns(&g, 0);
        r64 = read_ns(&g, N_LIVE);
        group_close(&g);
        printf("%-44s %10lld ns %9.1fx\n", "read() of a 2-event group, no live copy", r0, 1.0);
        printf("%-44s %10lld ns %9.1fx\n", "read() of it, 64 live inherited copies", r64, (double) r64 / (double) r0);
        return 0;
}
