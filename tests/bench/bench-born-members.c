/* bench-born-members.c: what a member born inside the kernel (pmapid's heirs) costs: pmapid's file
 * descriptors and resident memory per live member of a descendant group at 1, 10, 1,000 and 10,000
 * members (threads made by pthread_create, parked), and the time to read the group
 * (pm_get_data_mygroup, median of 200) against the raw floor of one read() of a perf counter. As
 * root it adds 100,000 members: kernel.pid_max (32,768 on Debian) and vm.max_map_count (a stack is
 * two maps) are raised for that row and put back at exit, and pmapid restarted with MaxContexts
 * large enough; PMAPI_BENCH_MEMBERS_MAX=10000 leaves it out. Then the live read: the same group read
 * with 1, 10 and 1,000 members, one spinning on each CPU (at SCHED_IDLE, so that pmapid and the
 * reader still get a CPU at once) and the others parked, against all parked: pmapid folds every
 * busy CPU before it reads (pmapid(8)), which costs an interrupt a CPU, not a member. More spinners
 * than CPUs add nothing to fold and starve the reader: 1,000 SCHED_IDLE spinners on 2 CPUs weigh
 * 3,000 to pmapid's 1,024, and under EEVDF pmapid then ran 2 ms a second (this benchmark ran past
 * its 600 s). Prints numbers; asserts nothing. */
#include <linux/perf_event.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench-stats.h"
#include "bus-fixture.h"
#include "pmapi.h"
#include "thread-park.h"
#include "workload.h"

#define READS 200

/* The median time of a group read; *last the last reading (its members and partial flag). */
static long long group_read_ns(pm_data_t *last) {
        long long t[READS];
        pm_data_t d = {};

        for (int i = 0; i < READS; i++) {
                long long t0 = bench_now_ns();
                (void) pm_get_data_mygroup(&d);
                t[i] = bench_now_ns() - t0;
        }
        *last = d;
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

#define HUGE_GROUP 100000

/* The sysctls raised for the huge row, and their values before. */
static const char *const sysctl_paths[] = { "/proc/sys/kernel/pid_max", "/proc/sys/vm/max_map_count" };
static char sysctl_saved[2][32];

/* open/write only: also called from a signal handler. */
static int sysctl_write(const char *path, const char *value) {
        int fd = open(path, O_WRONLY | O_CLOEXEC), r;

        if (fd < 0)
                return -1;
        r = write(fd, value, strlen(value)) == (ssize_t) strlen(value) ? 0 : -1;
        close(fd);
        return r;
}

static void sysctls_restore(void) {
        for (size_t i = 0; i < 2; i++)
                if (sysctl_saved[i][0] && sysctl_write(sysctl_paths[i], sysctl_saved[i]) != 0)
                        fprintf(stderr, "# could not put %s back to %s\n", sysctl_paths[i], sysctl_saved[i]);
}

/* meson's timeout sends SIGTERM: the machine gets its limits back all the same. */
static void on_fatal_signal(int sig) {
        for (size_t i = 0; i < 2; i++)
                if (sysctl_saved[i][0])
                        (void) sysctl_write(sysctl_paths[i], sysctl_saved[i]);
        signal(sig, SIG_DFL);
        raise(sig);
}

/* Room for HUGE_GROUP more threads, or false where this process may not make it. */
static bool sysctls_raise(void) {
        static bool undo_installed;

        for (size_t i = 0; i < 2; i++) {
                FILE *f = fopen(sysctl_paths[i], "r");
                long now = 0;
                if (!f || fscanf(f, "%ld", &now) != 1) {
                        if (f)
                                fclose(f);
                        return false;
                }
                fclose(f);
                if (now >= 4 * HUGE_GROUP)
                        continue;
                snprintf(sysctl_saved[i], sizeof(sysctl_saved[i]), "%ld", now);
                if (!undo_installed) {
                        undo_installed = true;
                        atexit(sysctls_restore);
                        signal(SIGTERM, on_fatal_signal);
                        signal(SIGINT, on_fatal_signal);
                }
                char want[32];
                snprintf(want, sizeof(want), "%d", 4 * HUGE_GROUP);
                if (sysctl_write(sysctl_paths[i], want) != 0)
                        return false;
        }
        return true;
}

static bool huge_row_wanted(void) {
        const char *max = getenv("PMAPI_BENCH_MEMBERS_MAX");

        return geteuid() == 0 && (!max || atoi(max) >= HUGE_GROUP);
}

typedef struct Spinners {
        pthread_t *threads;
        int n;
        volatile bool stop;
} Spinners;

static void *spin_idle(void *p) {
        Spinners *s = p;

        (void) sched_setscheduler(0, SCHED_IDLE, &(struct sched_param) { 0 });
        while (!s->stop)
                ;
        return NULL;
}

/* The group read's median with n members, one spinning on each CPU and the others parked, and
 * with n parked ones, both over the floor. */
static void live_read_row(int n, long long floor_ns) {
        int spinning = (int) sysconf(_SC_NPROCESSORS_ONLN);
        Spinners s = { .threads = calloc((size_t) n, sizeof(pthread_t)) };
        ThreadPark park = {}, rest = {};
        long long spinning_ns, parked_ns;
        pm_prog_t prog;
        pm_data_t last;

        if (spinning > n)
                spinning = n;
        if (!s.threads || page_fault_program(&prog, PM_USER | PM_COUNT) != 0 || pm_set_program_mygroup(&prog) != 0)
                return;
        for (; s.n < spinning; s.n++)
                if (pthread_create(&s.threads[s.n], NULL, spin_idle, &s) != 0)
                        break;
        if (n > s.n)
                (void) thread_park_start(&rest, n - s.n);
        (void) group_read_ns(&last);                    /* all adopted */
        spinning_ns = group_read_ns(&last);
        s.stop = true;
        for (int i = 0; i < s.n; i++)
                pthread_join(s.threads[i], NULL);
        free(s.threads);
        if (n > spinning)
                thread_park_release(&rest);
        (void) pm_delete_program_mygroup();
        if (pm_set_program_mygroup(&prog) != 0)
                return;
        (void) thread_park_start(&park, n);
        (void) group_read_ns(&last);
        parked_ns = group_read_ns(&last);
        thread_park_release(&park);
        (void) pm_delete_program_mygroup();
        printf("%8d %14.1f %9.1fx %14.1f %9.1fx %8.2fx\n", n, spinning_ns / 1000.0, (double) spinning_ns / floor_ns,
               parked_ns / 1000.0, (double) parked_ns / floor_ns, (double) spinning_ns / parked_ns);
}

int main(void) {
        static const int sizes[] = { 1, 10, 1000, 10000, HUGE_GROUP };
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
        printf("%8s %8s %10s %12s %12s %14s %10s\n", "threads", "members", "fds/memb", "RSS KiB", "bytes/memb",
               "group read us", "x floor");
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
                int n = sizes[s];
                ThreadPark park = {};
                long base_rss, rss, base_fds, fds;
                long long read_ns;
                pm_data_t last;

                if (n == HUGE_GROUP) {
                        if (!huge_row_wanted())
                                break;
                        if (!sysctls_raise() ||
                            bus_fixture_restart_with_config(&fixture, "[Limits]\nMaxContexts=150000\n") != 0) {
                                printf("# %d members: could not make room (pid_max, max_map_count, pmapid)\n", n);
                                break;
                        }
                }

                if (page_fault_program(&prog, PM_USER | PM_COUNT) != 0 || pm_set_program_mygroup(&prog) != 0)
                        return 1;
                base_fds = settled_fds(fixture.daemon_pid);
                base_rss = rss_kb(fixture.daemon_pid);
                if (thread_park_start(&park, n) != 0)
                        printf("# only %d of %d threads could be made\n", park.n_created, n);
                read_ns = group_read_ns(&last);              /* reads the fork records too: all adopted */
                fds = settled_fds(fixture.daemon_pid);
                rss = rss_kb(fixture.daemon_pid);
                printf("%8d %7d%s %10.3f %12ld %12.0f %14.1f %9.1fx\n", park.n_created, last.ginfo.members,
                       last.ginfo.flags.b.partial ? "p" : " ",
                       (double) (fds - base_fds) / park.n_created, rss,
                       (double) (rss - base_rss) * 1024.0 / park.n_created, read_ns / 1000.0,
                       (double) read_ns / floor_ns);
                thread_park_release(&park);
                (void) pm_delete_program_mygroup();
        }
        printf("# live reads: members, one spinning on each CPU (folded before each read), against all parked\n");
        printf("%8s %14s %10s %14s %10s %9s\n", "members", "spinning us", "x floor", "parked us", "x floor",
               "x parked");
        for (int n = 1; n <= 1000; n *= n == 1 ? 10 : 100)
                live_read_row(n, floor_ns);
        printf("# raw floor: one read() of a perf counter, %lld ns\n", floor_ns);
        return bus_fixture_stop(&fixture);
}
