/* pmcount-attach.c: -p PID and -t TID, perf stat's way to count what already runs. -p makes a
 * process group (PM_PROCESS) on the process: every thread it has and every later one; -t a
 * descendant group on the thread: it and the threads and processes it creates from now on. Both
 * through libpmapi's third-party calls, so the kernel's ptrace rule decides who may. Counting runs
 * until SIGINT, SIGTERM or SIGHUP, or until the target is gone; then pmcount reads the group,
 * deletes it and reports.
 *
 * pmapid releases a group with its last live member, so a target that exits takes its group with
 * it: pmcount reads the group every 100 ms (or every -I interval if shorter) and, should the read
 * after the exit find the group gone, reports the last read and says that what ran after it is
 * missing (and exits 124, as for any partial count). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "macro.h"
#include "pmcount.h"
#include "tool-usage.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

#define KEEP_MS 100U                    /* the longest a target's last counts go unread */

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) {
        stop_signal = sig;
}

static int read_target(const Options *o, pm_data_t *data, pm_accu_time_t *times) {
        return pm_get_Tdata_group(o->attach_pid, o->attach_tid, data, times);
}

/* Counts until a signal or the target's end; rep->total and total_time hold the last good read. */
static int count_until_done(const Options *o, Report *rep, int pidfd, const sigset_t *wait_mask) {
        unsigned period = o->interval_ms > 0 && o->interval_ms < KEEP_MS ? o->interval_ms : KEEP_MS;
        uint64_t next_read = rep->interval_start_ns + period * 1000000ULL;
        uint64_t next_line = rep->interval_start_ns + o->interval_ms * 1000000ULL;
        int r;

        for (;;) {
                struct pollfd p = { .fd = pidfd, .events = POLLIN };
                uint64_t now = pmcount_now_ns();
                uint64_t wait = next_read > now ? next_read - now : 0;
                struct timespec timeout = { .tv_sec = (time_t) (wait / 1000000000ULL),
                                            .tv_nsec = (long) (wait % 1000000000ULL) };
                bool done = false, gone = false;
                pm_accu_time_t times;
                pm_data_t data;

                r = ppoll(&p, 1, &timeout, wait_mask);
                if (r < 0 && errno != EINTR) {
                        fprintf(stderr, "pmcount: ppoll: %m\n");
                        return TOOL_EXIT_OWN;
                }
                if (r < 0)
                        done = stop_signal != 0;
                else if (r > 0)
                        done = gone = true;
                now = pmcount_now_ns();
                if (!done && now < next_read)
                        continue;
                r = read_target(o, &data, &times);
                if (r != 0 && gone) {
                        rep->target_gone = true;        /* its group went with it: the last read stands */
                        return 0;
                }
                if (r != 0)
                        return pmcount_fail("reading the target's group", r);
                rep->total = data;
                rep->total_time = count_time_from_accu(&times);
                if (o->interval_ms > 0 && (now >= next_line || done)) {
                        r = report_interval(rep, &data, &times, now);
                        if (r < 0) {
                                fprintf(stderr, "pmcount: cannot write the report: %s\n", strerror(-r));
                                return TOOL_EXIT_OWN;
                        }
                        while (next_line <= now)
                                next_line += o->interval_ms * 1000000ULL;
                }
                if (done)
                        return 0;
                while (next_read <= now)
                        next_read += period * 1000000ULL;
        }
}

int attach_and_count(const Options *o, Report *rep) {
        static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
        _cleanup_close_ int pidfd = -1;
        sigset_t blocked, wait_mask;
        pm_prog_t prog = rep->prog;
        uint64_t start;
        int r;

        /* Blocked but while pmcount waits in ppoll(): a signal ends the count, never a read. */
        sigemptyset(&blocked);
        for (size_t i = 0; i < ELEMENTSOF(signals); i++) {
                (void) sigaction(signals[i], &(struct sigaction) { .sa_handler = on_signal }, NULL);
                sigaddset(&blocked, signals[i]);
        }
        (void) sigprocmask(SIG_BLOCK, &blocked, &wait_mask);
        for (size_t i = 0; i < ELEMENTSOF(signals); i++)
                sigdelset(&wait_mask, signals[i]);

        pidfd = pidfd_open(o->attach_process ? o->attach_pid : o->attach_tid, o->attach_process ? 0 : PIDFD_THREAD);
        if (pidfd < 0) {
                fprintf(stderr, "pmcount: %s %d: %s\n", o->attach_process ? "process" : "thread",
                        (int) (o->attach_process ? o->attach_pid : o->attach_tid),
                        errno == ESRCH ? "no such process or thread" : strerror(errno));
                return TOOL_EXIT_OWN;
        }
        prog.mode.w |= PM_COUNT | (o->attach_process ? PM_PROCESS : 0);
        start = pmcount_now_ns();
        r = pm_set_program_group(o->attach_pid, o->attach_tid, &prog);
        if (r != 0)
                return pmcount_fail(o->attach_process ? "counting the process" : "counting the thread", r);
        rep->pid = o->attach_pid;
        rep->interval_start_ns = start;
        if (!o->output && o->format == REPORT_TEXT && isatty(STDERR_FILENO))
                fprintf(stderr, "pmcount: counting %s %d; ^C ends it\n", o->attach_process ? "process" : "thread",
                        (int) (o->attach_process ? o->attach_pid : o->attach_tid));
        r = count_until_done(o, rep, pidfd, &wait_mask);
        rep->elapsed_ns = pmcount_now_ns() - start;
        if (!rep->target_gone)
                (void) pm_delete_program_group(o->attach_pid, o->attach_tid);
        if (r != 0)
                return r;
        if (rep->total.ginfo.flags.b.partial || rep->target_gone)
                rep->partial = true;
        report_add_run(rep);
        return 0;
}
