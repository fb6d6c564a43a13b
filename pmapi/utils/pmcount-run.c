/* pmcount-run.c: one run of COMMAND in a counting group of its own.
 *
 * The group must outlive the command, since pmapid releases a group with its last live member: so
 * pmcount is a member itself. It makes a descendant group with its own state off and the group's
 * on, drops the few counts its own calls made, and forks; libpmapi's fork() gives the child a
 * context in the group (own state off, as pmcount's), the child starts it and executes the command.
 * Contexts follow exec, and the command's new threads and processes inherit. Where pmapid inherits
 * inside the kernel (its KernelInheritance) every one is born counting, however it was made, and
 * the command runs as it is, with nothing preloaded: it counts what perf stat counts. Elsewhere
 * they inherit before they run when libpmapi is in them (preloaded, with PMAPI_INHERIT=1 telling it
 * the main thread has a context), a few tens of microseconds after they start otherwise (pmapid's
 * fork records). When the command
 * has been waited for, the group holds what every one of its threads counted. With -I, pmcount
 * reads the group every interval while it waits: its own thread does the reading, and its own
 * state is off, so the reads add nothing to the counts. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inherit-env.h"
#include "macro.h"
#include "pmcount.h"
#include "tool-bus.h"
#include "tool-usage.h"

#define PRELOAD_NAME "libpmapi-preload.so"

/* libpmapi-preload.so: beside the libpmapi this process runs with (found by an address in it, so
 * the build tree's when run from there), or in its pmapi/ subdirectory (installed). */
static char *find_preload(void) {
        _cleanup_free_ char *lib = NULL;
        char *dir, *path;
        Dl_info dl;

        if (dladdr((void *) pm_init, &dl) == 0 || !dl.dli_fname || !*dl.dli_fname)
                return NULL;
        lib = realpath(dl.dli_fname, NULL);
        if (!lib)
                return NULL;
        dir = strrchr(lib, '/');
        if (!dir)
                return NULL;
        *dir = '\0';
        for (const char *sub = ""; sub; sub = *sub ? NULL : "/pmapi") {
                if (asprintf(&path, "%s%s/" PRELOAD_NAME, lib, sub) < 0)
                        return NULL;
                if (access(path, R_OK) == 0)
                        return path;
                free(path);
        }
        return NULL;
}

/* LD_PRELOAD for the command: what it had, then libpmapi-preload.so. NULL, after a warning,
 * where the module is not found or cannot be written in LD_PRELOAD. Returns 0 or -ENOMEM. */
static int preload_value(char **ret) {
        _cleanup_free_ char *path = find_preload();
        const char *old = getenv("LD_PRELOAD");

        *ret = NULL;
        if (!path) {
                fputs("pmcount: cannot find " PRELOAD_NAME " beside libpmapi; running COMMAND without it "
                      "(as --no-preload)\n", stderr);
                return 0;
        }
        if (strpbrk(path, " :\t\n")) {
                fprintf(stderr, "pmcount: '%s' cannot be written in LD_PRELOAD; running COMMAND without it "
                        "(as --no-preload)\n", path);
                return 0;
        }
        if (old && *old && strstr(old, path))
                return (*ret = strdup(old)) ? 0 : -ENOMEM;
        if (old && *old)
                return asprintf(ret, "%s:%s", old, path) < 0 ? -ENOMEM : 0;
        *ret = TAKE_PTR(path);
        return 0;
}

/* What the child tells the parent through a close-on-exec pipe when it fails before the exec is
 * done; an exec that works closes the pipe unwritten. */
typedef struct ChildFailure {
        int stage;                      /* 1: joining the group (code: PM_E*), 2: exec (code: errno) */
        int code;
} ChildFailure;

static _Noreturn void child_fail(int fd, int stage, int code, int status) {
        ChildFailure f = { stage, code };

        (void) !write(fd, &f, sizeof(f));
        _exit(status);
}

/* In the child: it has a context in the group already (libpmapi's fork asked pmapid for it),
 * with its own state off. The environment is set first, so that only the start call's return and
 * the exec count. */
static struct sigaction saved_sigint, saved_sigquit;      /* as pmcount got them, for the command */

static _Noreturn void child_run(const Options *o, const char *preload, bool kernel_inherits, int fd) {
        int r;

        (void) sigaction(SIGINT, &saved_sigint, NULL);
        (void) sigaction(SIGQUIT, &saved_sigquit, NULL);
        if (!kernel_inherits &&
            (setenv(PMAPI_INHERIT_ENV, "1", 1) < 0 || (preload && setenv("LD_PRELOAD", preload, 1) < 0)))
                child_fail(fd, 1, PM_ENOMEM, TOOL_EXIT_OWN);
        r = pm_start_mythread();
        if (r != 0)
                child_fail(fd, 1, r, TOOL_EXIT_OWN);
        execvp(o->command[0], o->command);
        r = errno;
        child_fail(fd, 2, r, r == ENOENT ? TOOL_EXIT_NOT_FOUND : TOOL_EXIT_CANNOT_RUN);
}

/* pmcount's group: its own state off, the group's on, and nothing of its own counted. */
static int make_group(pm_prog_t *prog) {
        int r;

        r = pm_set_program_mygroup(prog);
        if (r == PM_EEXIST || r == PM_EEXIST_AIX5) {
                fputs("pmcount: this thread is counted already (pmcount inside pmcount, or a program "
                      "that counts itself?)\n", stderr);
                return TOOL_EXIT_OWN;
        }
        if (r != 0)
                return pmcount_fail("creating the counting group", r);
        if ((r = pm_start_mygroup()) != 0 || (r = pm_stop_mythread()) != 0 || (r = pm_reset_data_mythread()) != 0) {
                (void) pm_delete_program_mygroup();
                return pmcount_fail("starting the counting group", r);
        }
        return 0;
}

/* -I's reader: the group's counts so far, and how long they were counted. */
static int read_mygroup(Report *rep, pm_data_t *ret, pm_accu_time_t *ret_time) {
        (void) rep;
        return pm_get_Tdata_mygroup(ret, ret_time);
}

int run_wait_command(Report *rep, pid_t pid, uint64_t start, ReadCounts read_counts, const char *what) {
        const Options *o = rep->options;
        uint64_t step = o->interval_ms * 1000000ULL, next = start + step;
        _cleanup_close_ int pidfd = -1;
        int r, failure = 0;

        if (o->interval_ms > 0)
                pidfd = pidfd_open(pid, 0);
        while (pidfd >= 0 && failure == 0) {
                struct pollfd p = { .fd = pidfd, .events = POLLIN };
                uint64_t now = pmcount_now_ns();
                pm_accu_time_t times;
                pm_data_t data;

                r = poll(&p, 1, now >= next ? 0 : (int) ((next - now + 999999) / 1000000));
                if (r < 0 && errno == EINTR)
                        continue;
                if (r != 0)
                        break;          /* the command exited (or poll failed: wait4 says more) */
                now = pmcount_now_ns();
                if (now < next)
                        continue;
                while (next <= now)     /* a late wake-up skips the lines it missed */
                        next += step;
                r = read_counts(rep, &data, &times);
                if (r != 0)
                        failure = pmcount_fail(what, r);
                else if ((r = report_interval(rep, &data, &times, now)) < 0) {
                        fprintf(stderr, "pmcount: cannot write the report: %s\n", strerror(-r));
                        failure = TOOL_EXIT_OWN;
                }
        }
        do
                r = wait4(pid, &rep->wait_status, 0, &rep->rusage);
        while (r < 0 && errno == EINTR);
        if (r < 0) {
                fprintf(stderr, "pmcount: wait4: %m\n");
                return TOOL_EXIT_OWN;
        }
        return failure;
}

/* Forks, runs the command in the child and waits for it; fills the run's part of the report.
 * Returns 0, or the exit status pmcount ends with when the command did not run. */
static int fork_and_wait(const Options *o, const char *preload, Report *rep) {
        int fds[2], r;
        ChildFailure f;
        uint64_t start;
        ssize_t n;
        pid_t pid;

        if (pipe2(fds, O_CLOEXEC) < 0) {
                fprintf(stderr, "pmcount: pipe: %m\n");
                return TOOL_EXIT_OWN;
        }
        (void) fflush(NULL);            /* nothing buffered is written twice */
        start = pmcount_now_ns();
        if (rep->interval_start_ns == 0)
                rep->interval_start_ns = start;
        memset(rep->last, 0, sizeof(rep->last));       /* each run's group counts from zero */
        rep->last_time = (CountTime) {};
        rep->last_line_ns = start - rep->interval_start_ns;
        pid = fork();
        if (pid < 0) {
                fprintf(stderr, "pmcount: fork: %m\n");
                close(fds[0]);
                close(fds[1]);
                return TOOL_EXIT_OWN;
        }
        if (pid == 0) {
                close(fds[0]);
                child_run(o, preload, rep->kernel_inherits, fds[1]);
        }
        close(fds[1]);
        do
                n = read(fds[0], &f, sizeof(f));
        while (n < 0 && errno == EINTR);
        close(fds[0]);

        rep->pid = pid;
        r = run_wait_command(rep, pid, start, read_mygroup, "reading the counting group");
        rep->elapsed_ns = pmcount_now_ns() - start;
        if (r != 0)
                return r;
        if (n == sizeof(f) && f.stage == 1)
                return pmcount_fail("joining the counting group", f.code);
        if (n == sizeof(f)) {
                fprintf(stderr, "pmcount: %s: %s\n", o->command[0], strerror(f.code));
                return f.code == ENOENT ? TOOL_EXIT_NOT_FOUND : TOOL_EXIT_CANNOT_RUN;
        }
        return 0;
}

/* After the command: the group's total, how long it was counted and, with --per-thread, its members. */
static int read_group(Report *rep) {
        pm_accu_time_t times;
        int r;

        r = pm_get_Tdata_mygroup(&rep->total, &times);
        if (r != 0)
                return pmcount_fail("reading the counting group", r);
        rep->total_time = count_time_from_accu(&times);
        if (rep->total.ginfo.flags.b.partial)
                rep->partial = true;
        /* Partial: the rows' call also says how many threads ran uncounted. */
        if (rep->options->per_thread || rep->total.ginfo.flags.b.partial) {
                member_rows_done(&rep->rows);
                r = member_rows_fetch(getpid(), gettid(), false, &rep->rows);
                if (r != 0)
                        return pmcount_fail("reading the group's members", r);
                rep->have_rows = rep->options->per_thread;
                if (rep->rows.n_missed > rep->threads_missed)
                        rep->threads_missed = rep->rows.n_missed;
                if (rep->rows.n_missed > 0)
                        rep->partial = true;
        }
        return 0;
}

int run_command(const Options *o, Report *rep) {
        _cleanup_free_ char *preload = NULL;
        int r;

        /* Born counting inside the kernel, the command's threads need no preloaded library: asked
         * once the group is set, since the PMU's room decides for hardware events (pmapid(8)). */
        int ids[MAX_COUNTERS];
        for (int k = 0; k < MAX_COUNTERS; k++)
                ids[k] = report_event_id(rep, k);
        if (o->preload && preload_value(&preload) < 0)
                return pmcount_fail("LD_PRELOAD", PM_ENOMEM);
        /* Like time(1): a ^C or ^\ on the terminal is for the command; pmcount still reports. */
        (void) sigaction(SIGINT, &(struct sigaction) { .sa_handler = SIG_IGN }, &saved_sigint);
        (void) sigaction(SIGQUIT, &(struct sigaction) { .sa_handler = SIG_IGN }, &saved_sigquit);
        for (unsigned i = 0; i < o->repeat; i++) {
                r = make_group(&rep->prog);
                if (r != 0)
                        return r;
                rep->kernel_inherits = tool_bus_kernel_carries(ids, MAX_COUNTERS);
                r = fork_and_wait(o, preload, rep);
                if (r == 0)
                        r = read_group(rep);
                (void) pm_delete_program_mygroup();
                if (r != 0)
                        return r;
                report_add_run(rep);
                /* ^C or ^\ at the terminal ends the repeats too, as perf stat -r: the report comes. */
                if (WIFSIGNALED(rep->wait_status) &&
                    (WTERMSIG(rep->wait_status) == SIGINT || WTERMSIG(rep->wait_status) == SIGQUIT))
                        break;
        }
        return 0;
}
