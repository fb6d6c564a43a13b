/* pmcount-cgroup.c: pmcount --cgroup PATH -- COMMAND, perf stat -a -G's counterpart. A cgroup
 * context (pm_set_program_wp(3)) counts, on every CPU, what the tasks of cgroup PATH and of its
 * descendants do, from just before COMMAND starts until it has been waited for. COMMAND runs where
 * pmcount runs, in no counting group and not moved into the cgroup: it marks the span of the count.
 * pmapid decides who may (root, or the owner of a delegated cgroup). With -I, pmcount reads the
 * cgroup's total every interval. A cgroup removed meanwhile keeps the counts it had (pmapid's
 * rule): pmcount reports them and says so. This file also writes the report's lines about the
 * cgroup, which take the place of the counting group's. */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "macro.h"
#include "pmcount.h"
#include "tool-usage.h"

extern char **environ;

/* Starts COMMAND with SIGINT and SIGQUIT as pmcount got them (it ignores them itself while the
 * command runs, as time(1) does); 0 or posix_spawn's errno. posix_spawn rather than fork: pmcount
 * is in no group here, and its exec failure comes back as the errno. */
static int spawn_command(char **command, const struct sigaction *saved_int, const struct sigaction *saved_quit,
                         pid_t *ret_pid) {
        posix_spawnattr_t attr;
        sigset_t defaults;
        int r;

        sigemptyset(&defaults);
        if (saved_int->sa_handler == SIG_DFL)
                sigaddset(&defaults, SIGINT);
        if (saved_quit->sa_handler == SIG_DFL)
                sigaddset(&defaults, SIGQUIT);
        r = posix_spawnattr_init(&attr);
        if (r != 0)
                return r;
        r = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
        if (r == 0)
                r = posix_spawnattr_setsigdefault(&attr, &defaults);
        if (r == 0)
                r = posix_spawnp(ret_pid, command[0], NULL, &attr, command, environ);
        posix_spawnattr_destroy(&attr);
        return r;
}

static int read_cgroup_counts(Report *rep, pm_data_t *ret, pm_accu_time_t *ret_time) {
        return pm_get_Tdata_wp(rep->cgroup.id, ret, ret_time);
}

/* After the command: whether the cgroup is gone, then its counts, stopped so that they hold still.
 * Asked before the stop: "removed" means removed while it was counted. */
static int read_cgroup(Report *rep) {
        pm_accu_time_t times;
        int r;

        r = cgroup_target_removed(&rep->cgroup, &rep->cgroup_removed);
        if (r != 0)
                return pmcount_fail("pm_get_wplist", r);
        (void) pm_stop_wp(rep->cgroup.id);      /* a failure leaves it counting: the read below still holds */
        r = pm_get_Tdata_wp(rep->cgroup.id, &rep->total, &times);
        if (r != 0)
                return pmcount_fail("reading the cgroup", r);
        rep->total_time = count_time_from_accu(&times);
        return 0;
}

static int count_while_running(const Options *o, Report *rep, const struct sigaction *saved_int,
                               const struct sigaction *saved_quit) {
        pm_prog_t prog = rep->prog;
        char where[4200];
        uint64_t start;
        pid_t pid;
        int r;

        prog.mode.w |= PM_COUNT;
        r = pm_set_program_wp(rep->cgroup.id, &prog);
        if (r != 0) {
                snprintf(where, sizeof(where), "cgroup '%s'", rep->cgroup.path);
                (void) pmcount_fail(where, r);
                cgroup_target_hint("pmcount", r);
                return TOOL_EXIT_OWN;
        }
        (void) fflush(NULL);
        start = pmcount_now_ns();
        rep->interval_start_ns = start;
        r = spawn_command(o->command, saved_int, saved_quit, &pid);
        if (r != 0) {
                fprintf(stderr, "pmcount: %s: %s\n", o->command[0], strerror(r));
                return r == ENOENT ? TOOL_EXIT_NOT_FOUND : TOOL_EXIT_CANNOT_RUN;
        }
        rep->pid = pid;
        r = run_wait_command(rep, pid, start, read_cgroup_counts, "reading the cgroup");
        rep->elapsed_ns = pmcount_now_ns() - start;
        if (r != 0)
                return r;
        return read_cgroup(rep);
}

int cgroup_count_command(const Options *o, Report *rep) {
        struct sigaction saved_int, saved_quit;
        char where[4200];
        int r;

        r = cgroup_target_find(o->cgroup, &rep->cgroup);
        if (r != 0) {
                snprintf(where, sizeof(where), "cgroup '%s'", o->cgroup);
                return pmcount_fail(where, r);
        }
        /* Like time(1): a ^C or ^\ on the terminal is for the command; pmcount still reports. */
        (void) sigaction(SIGINT, &(struct sigaction) { .sa_handler = SIG_IGN }, &saved_int);
        (void) sigaction(SIGQUIT, &(struct sigaction) { .sa_handler = SIG_IGN }, &saved_quit);
        r = count_while_running(o, rep, &saved_int, &saved_quit);
        (void) pm_delete_program_wp(rep->cgroup.id);
        if (r != 0)
                return r;
        report_add_run(rep);
        return 0;
}
