/* bench-pmcount.c: what pmcount costs the command it counts. Two commands: a fork-heavy one (a shell
 * loop that runs /bin/true 300 times: every process execs and ends, and none but sh forks or
 * creates a thread; dash starts each true with vfork, which reaches no library, so pmapid attaches
 * them from their fork records) and a thread-heavy one (thread-burst: 200 threads, 20 at a time,
 * each touching 16 fresh pages). Each runs bare (wall time by the clock; page faults and CPU time
 * from wait4's rusage), bare again while pmapid counts another process (what pmapid costs everyone
 * else on the machine: every switch, fork, exec and exit), under `perf stat -e page-faults,task-clock` (its counts), and under
 * pmcount -k with PM_PAGE_FLT,PM_TASK_CLOCK in its default mode (libpmapi-preload.so in the
 * command) and with --no-preload (its counts). Medians of REPS runs, after one warm-up run of each,
 * the modes taken in turn within a round; printed as ratios against bare and against perf stat, the
 * floors of the same run, with the page faults per process or thread that pmcount adds over perf
 * stat. Prints numbers; asserts nothing. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-stats.h"
#include "bus-fixture.h"
#include "workload.h"

#define REPS 7
#define FORK_LOOP "for i in $(seq 300); do /bin/true; done"
#define FORK_PROCESSES 302              /* sh, the $(seq 300) subshell (which execs seq), 300 trues */
#define BURST_THREADS 200

typedef enum Mode {
        MODE_BARE,
        MODE_BESIDE,
        MODE_PERF,
        MODE_PMCOUNT,
        MODE_NO_PRELOAD,
        _MODE_MAX,
} Mode;

static const char *const mode_names[_MODE_MAX] = {
        [MODE_BARE] = "bare",
        [MODE_BESIDE] = "bare, pmapid busy",
        [MODE_PERF] = "perf stat",
        [MODE_PMCOUNT] = "pmcount (preload)",
        [MODE_NO_PRELOAD] = "pmcount --no-preload",
};

typedef struct Sample {
        long long wall_ns, faults, task_ns;
        long long missed;               /* threads that ended before pmapid attached them */
} Sample;

/* Runs argv with stdout on /dev/null and stderr in out (NUL-terminated); fills the wall time and
 * wait4's rusage. Its exit status, or -1 if it did not run or did not exit. */
static int run(char *const argv[], char *out, size_t size, long long *ret_wall_ns, struct rusage *ret_usage) {
        int fd = memfd_create("bench-pmcount", MFD_CLOEXEC), status;
        long long start;
        ssize_t n;
        pid_t pid;

        if (fd < 0)
                return -1;
        start = bench_now_ns();
        pid = fork();
        if (pid < 0) {
                close(fd);
                return -1;
        }
        if (pid == 0) {
                int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

                if (null < 0 || dup2(null, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
                        _exit(126);
                execvp(argv[0], argv);
                _exit(127);
        }
        if (wait4(pid, &status, 0, ret_usage) != pid) {
                close(fd);
                return -1;
        }
        *ret_wall_ns = bench_now_ns() - start;
        n = pread(fd, out, size - 1, 0);
        out[n > 0 ? n : 0] = '\0';
        close(fd);
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* perf stat -x, lines: value,unit,event,... ; task-clock's value is in msec. */
static int parse_perf(const char *out, Sample *s) {
        int found = 0;

        for (const char *line = out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
                char unit[32] = "", event[64] = "";
                double v;

                if (sscanf(line, "%lf,%31[^,],%63[^,\n]", &v, unit, event) == 3 ||
                    sscanf(line, "%lf,,%63[^,\n]", &v, event) == 2) {
                        if (strcmp(event, "page-faults") == 0)
                                s->faults = (long long) v, found |= 1;
                        else if (strcmp(event, "task-clock") == 0 && strcmp(unit, "msec") == 0)
                                s->task_ns = (long long) (v * 1e6), found |= 2;
                }
        }
        return found == 3 ? 0 : -1;
}

/* pmcount --csv rows: event,,,,,NAME,STATUS,VALUE and group,,,,,threads_missed,,N. */
static int parse_pmcount(const char *out, Sample *s) {
        int found = 0;

        for (const char *line = out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
                char name[64];
                long long v;

                if (sscanf(line, "group,,,,,threads_missed,,%lld", &v) == 1)
                        s->missed = v;

                if (sscanf(line, "event,,,,,%63[^,],%*[^,],%lld", name, &v) != 2)
                        continue;
                if (strcmp(name, "PM_PAGE_FLT") == 0)
                        s->faults = v, found |= 1;
                else if (strcmp(name, "PM_TASK_CLOCK") == 0)
                        s->task_ns = v, found |= 2;
        }
        return found == 3 ? 0 : -1;
}

/* pmcount counting a sleep, once pmapid has its context: pmapid counts something else than the
 * command. Its pid, or -1. */
static pid_t count_another(void) {
        pid_t pid = fork();

        if (pid == 0) {
                int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
                (void) setpgid(0, 0);   /* a group of its own, for the ^C that ends it */
                if (null >= 0)
                        (void) dup2(null, STDOUT_FILENO), (void) dup2(null, STDERR_FILENO);
                execl(getenv("PMAPI_PMCOUNT"), "pmcount", "-e", "PM_PAGE_FLT", "--", "sleep", "600", (char *) NULL);
                _exit(127);
        }
        for (int i = 0; pid > 0 && i < 500 && manager_property_u("ContextCount") == 0; i++)
                usleep(10 * 1000);
        return pid;
}

static void stop_another(pid_t pid) {
        if (pid <= 0)
                return;
        (void) kill(-pid, SIGINT);      /* as ^C would: the sleep ends, pmcount reports */
        (void) waitpid(pid, NULL, 0);
}

static int run_mode(Mode mode, char *const command[], Sample *s) {
        static char out[65536];
        char *argv[32];
        struct rusage ru;
        pid_t other = -1;
        int n = 0, status;

        if (mode == MODE_PERF) {
                argv[n++] = (char *) "perf";
                argv[n++] = (char *) "stat";
                argv[n++] = (char *) "-x,";
                argv[n++] = (char *) "-e";
                argv[n++] = (char *) "page-faults,task-clock";
                argv[n++] = (char *) "--";
        } else if (mode == MODE_BESIDE) {
                other = count_another();
                if (other < 0)
                        return -1;
        } else if (mode != MODE_BARE) {
                argv[n++] = getenv("PMAPI_PMCOUNT");
                argv[n++] = (char *) "-k";
                argv[n++] = (char *) "-e";
                argv[n++] = (char *) "PM_PAGE_FLT,PM_TASK_CLOCK";
                argv[n++] = (char *) "--csv";
                if (mode == MODE_NO_PRELOAD)
                        argv[n++] = (char *) "--no-preload";
                argv[n++] = (char *) "--";
        }
        for (int i = 0; command[i] && n < 31; i++)
                argv[n++] = command[i];
        argv[n] = NULL;

        /* pmcount exits 124 when a thread ended before pmapid could attach it (a vfork'd true,
         * which only its fork record names): the counts miss that thread's last instructions. */
        s->missed = 0;
        status = run(argv, out, sizeof(out), &s->wall_ns, &ru);
        stop_another(other);
        if (status != 0 && !(status == 124 && (mode == MODE_PMCOUNT || mode == MODE_NO_PRELOAD))) {
                fprintf(stderr, "# %s exited with %d: %s\n", mode_names[mode], status, out);
                return -1;
        }
        switch (mode) {
        case MODE_BARE:
        case MODE_BESIDE:
                s->faults = ru.ru_minflt + ru.ru_majflt;
                s->task_ns = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
                             (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
                return 0;
        case MODE_PERF:
                return parse_perf(out, s);
        default:
                return parse_pmcount(out, s);
        }
}

static double ratio(long long a, long long b) {
        return b > 0 ? (double) a / (double) b : 0;
}

/* Runs the command REPS times in each mode and prints a table; units: how many processes or threads
 * it makes, for the per-unit page faults. */
static int bench_command(const char *title, char *const command[], const char *unit, int n_units) {
        long long v[4][_MODE_MAX][REPS];
        Sample med[_MODE_MAX], s;

        for (Mode m = 0; m < _MODE_MAX; m++)
                if (run_mode(m, command, &s) < 0)          /* warm-up: page cache, perf's static keys */
                        return -1;
        for (int r = 0; r < REPS; r++)
                for (Mode m = 0; m < _MODE_MAX; m++) {
                        if (run_mode(m, command, &s) < 0)
                                return -1;
                        v[0][m][r] = s.wall_ns;
                        v[1][m][r] = s.faults;
                        v[2][m][r] = s.task_ns;
                        v[3][m][r] = s.missed;
                }
        for (Mode m = 0; m < _MODE_MAX; m++)
                med[m] = (Sample) { bench_median(v[0][m], REPS), bench_median(v[1][m], REPS),
                                    bench_median(v[2][m], REPS), bench_median(v[3][m], REPS) };

        printf("# %s, medians of %d runs\n", title, REPS);
        printf("# %-21s %9s %8s %9s | %8s %8s %8s | %8s %8s %8s\n", "mode", "wall ms", "faults", "task ms",
               "wall/b", "flt/b", "task/b", "wall/p", "flt/p", "task/p");
        for (Mode m = 0; m < _MODE_MAX; m++)
                printf("# %-21s %9.1f %8lld %9.1f | %7.2fx %7.2fx %7.2fx | %7.2fx %7.2fx %7.2fx\n", mode_names[m],
                       med[m].wall_ns / 1e6, med[m].faults, med[m].task_ns / 1e6,
                       ratio(med[m].wall_ns, med[MODE_BARE].wall_ns), ratio(med[m].faults, med[MODE_BARE].faults),
                       ratio(med[m].task_ns, med[MODE_BARE].task_ns),
                       ratio(med[m].wall_ns, med[MODE_PERF].wall_ns), ratio(med[m].faults, med[MODE_PERF].faults),
                       ratio(med[m].task_ns, med[MODE_PERF].task_ns));
        printf("# page faults pmcount adds over perf stat, per %s (%d): %.1f with the preload, "
               "%.1f without\n", unit, n_units, (double) (med[MODE_PMCOUNT].faults - med[MODE_PERF].faults) / n_units,
               (double) (med[MODE_NO_PRELOAD].faults - med[MODE_PERF].faults) / n_units);
        printf("# threads that ended before pmapid attached them (uncounted, pmcount's status 124), median: "
               "%lld with the preload, %lld without\n#\n", med[MODE_PMCOUNT].missed, med[MODE_NO_PRELOAD].missed);
        return 0;
}

int main(void) {
        char *fork_heavy[] = { (char *) "/bin/sh", (char *) "-c", (char *) FORK_LOOP, NULL };
        char *thread_heavy[] = { getenv("PMAPI_THREAD_BURST"), (char *) "200", (char *) "20", (char *) "16", NULL };
        BusFixture fixture;
        int r = 0;

        if (!getenv("PMAPI_PMCOUNT") || !thread_heavy[0]) {
                fprintf(stderr, "PMAPI_PMCOUNT and PMAPI_THREAD_BURST must name the programs\n");
                return 1;
        }
        if (system("perf stat -e page-faults true >/dev/null 2>&1") != 0) {
                printf("# perf stat does not run here: no floor to compare with\n");
                return 77;
        }
        if (bus_fixture_start(&fixture, NULL) != 0)
                return 1;
        printf("# pmcount -k -e PM_PAGE_FLT,PM_TASK_CLOCK against the bare command and perf stat -e "
               "page-faults,task-clock\n# (/b: ratio to bare, whose faults and CPU time are wait4's rusage; "
               "/p: ratio to perf stat)\n#\n");
        if (bench_command("fork-heavy: sh -c '" FORK_LOOP "'", fork_heavy, "process", FORK_PROCESSES) < 0 ||
            bench_command("thread-heavy: thread-burst 200 20 16 (200 threads, 20 at a time, 16 pages each)",
                          thread_heavy, "thread", BURST_THREADS) < 0)
                r = 1;
        if (bus_fixture_stop(&fixture) != 0)
                r = 1;
        return r;
}
