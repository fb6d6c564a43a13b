/* pmstat.c: pmstat, AIX hpmstat's counterpart (and perf stat -a -I's): the system-wide counts of
 * every CPU, interval after interval, through libpmapi's system scope (pm_set_program(3)). Without
 * --proctree it counts everything that runs, which is root's alone; with --proctree it runs a
 * command as its child and counts only pmstat and that command's process tree, which any user may;
 * with --cgroup, the tasks of one cgroup v2 and its descendants (pmstat-cgroup.c).
 * This file holds the command line, the program, the timing loop, the command and the signals;
 * the reads are pmstat-sample.c, the output pmstat-report.c, the contract man/pmstat.1. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "event-group.h"
#include "macro.h"
#include "pmstat.h"
#include "prog-text.h"
#include "text-table.h"
#include "tool-usage.h"

#define ALL_STATUSES (PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT)
#define MIN_INTERVAL_MS 10
#define MAX_INTERVAL_MS (24U * 3600U * 1000U)

extern char **environ;

DEFINE_FREEP(FILE, fclose);

/* perf stat's default software events, those that this machine's catalog has, in this order. */
static const char *const default_events[] = { "PM_TASK_CLOCK", "PM_CTX_SW", "PM_CPU_MIGR", "PM_PAGE_FLT" };

/* The signals pmstat waits for: blocked but while it sleeps in ppoll(). */
static const int watched_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static volatile sig_atomic_t last_signal;

static void on_signal(int sig) {
        last_signal = sig;
}

static void help(void) {
        printf("Usage: pmstat [OPTIONS...] [COUNT]\n"
               "       pmstat --cgroup=PATH [OPTIONS...] [COUNT]\n"
               "       pmstat --proctree [OPTIONS...] [--] COMMAND [ARGUMENTS...]\n\n"
               "Print what each CPU counted in every interval, then the total of the CPUs.\n"
               "Without --proctree: everything every CPU runs, COUNT intervals (default 1,\n"
               "0 until interrupted); root only. With --cgroup: only the tasks of cgroup PATH\n"
               "and its descendants, until COUNT or the cgroup's removal; root or the cgroup's\n"
               "delegated owner. With --proctree: run COMMAND and count only it and what it\n"
               "starts (and pmstat), until it exits; any user.\n\n"
               "Options:\n"
               "  -e --events=LIST    Events per counter from 0, by name or id; '-' for none\n"
               "                      (default: PM_TASK_CLOCK,PM_CTX_SW,PM_CPU_MIGR,PM_PAGE_FLT)\n"
               "  -g --group=ID       Count predefined event group ID instead ('pmlist -g'\n"
               "                      lists them); not with -e\n"
               "  -u --user           Count user mode (with neither -u nor -k: user and kernel)\n"
               "  -k --kernel         Count kernel mode too\n"
               "     --mode=LIST      The modes exactly: user, kernel or user,kernel\n"
               "  -I --interval=MS    Milliseconds per interval (default 1000, at least 10)\n"
               "  -m --metrics        Also show each interval's derived metrics whose events are\n"
               "                      all counted (CPUs utilized, page faults per second, ...)\n"
               "     --cgroup=PATH    Count cgroup PATH (from the cgroup v2 root, or under its\n"
               "                      mount point) and its descendants instead of every process\n"
               "     --proctree       Count COMMAND's process tree instead of every process\n"
               "  -o --output=FILE    Write the report to FILE (default: standard output, or\n"
               "                      standard error with --proctree)\n"
               "     --csv            The report as CSV, one row per interval and CPU\n"
               "  -x --field-separator=SEP  CSV with SEP between fields\n"
               "  -j --json           The report as JSON Lines: a header, then one per interval\n"
               "     --no-big-num     Counts without thousands separators\n"
               "  -h --help           Show this help\n"
               "  -V --version        Show the version\n\n"
               "Exit status without --proctree: 0 success (also when the cgroup was removed),\n"
               "1 refused or failed, 2 bad usage.\n"
               "With --proctree: COMMAND's (128+N if signal N killed it), 125 if pmstat failed,\n"
               "126 if COMMAND could not be executed, 127 if it was not found.\n"
               "See pmstat(1) and pmapi-tools(7).\n");
}

/* Usage errors say so with pmstat's failure status: 2, or 125 with --proctree. */
static int usage_status;

#define usage_error(...) tool_usage_error("pmstat", __VA_ARGS__)

/* Fills o; returns 0 to run, 1 when --help or --version was answered, -EINVAL after a message. */
static int parse_argv(int argc, char *argv[], Options *o) {
        enum { ARG_PROCTREE = 0x100, ARG_CGROUP, ARG_CSV, ARG_MODE, ARG_NO_BIG_NUM };
        static const struct option options[] = {
                { "events",   required_argument, NULL, 'e' },
                { "group",    required_argument, NULL, 'g' },
                { "user",     no_argument,       NULL, 'u' },
                { "kernel",   no_argument,       NULL, 'k' },
                { "mode",     required_argument, NULL, ARG_MODE },
                { "interval", required_argument, NULL, 'I' },
                { "metrics",  no_argument,       NULL, 'm' },
                { "proctree", no_argument,       NULL, ARG_PROCTREE },
                { "cgroup",   required_argument, NULL, ARG_CGROUP },
                { "output",   required_argument, NULL, 'o' },
                { "csv",      no_argument,       NULL, ARG_CSV },
                { "field-separator", required_argument, NULL, 'x' },
                { "json",     no_argument,       NULL, 'j' },
                { "no-big-num", no_argument,     NULL, ARG_NO_BIG_NUM },
                { "help",     no_argument,       NULL, 'h' },
                { "version",  no_argument,       NULL, 'V' },
                {}
        };
        bool csv = false, json = false, user = false, kernel = false;
        const char *mode = NULL;
        char error[PROG_TEXT_ERROR_MAX];
        int c;

        /* Known before anything else can go wrong: it decides the exit status of a usage error. */
        usage_status = TOOL_EXIT_USAGE;
        for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
                if (strcmp(argv[i], "--proctree") == 0)
                        usage_status = TOOL_EXIT_OWN;
        o->separator = ",";

        o->interval_ms = 1000;
        o->count = 1;
        /* With --proctree the options end at the first operand, COMMAND, whose own options are its
         * business ('+'); without, they may come after COUNT too. ':' keeps getopt quiet, as
         * usage_error() speaks. */
        while ((c = getopt_long(argc, argv,
                                usage_status == TOOL_EXIT_OWN ? "+:e:g:ukI:mo:x:jhV" : ":e:g:ukI:mo:x:jhV",
                                options, NULL)) >= 0)
                switch (c) {
                case 'e':
                        o->events = optarg;
                        break;
                case 'g':
                        if (!event_group_parse_id(optarg, &o->group_id))
                                return usage_error("invalid event group '%s' (a group id, as 'pmlist -g' lists "
                                                   "them)", optarg);
                        break;
                case 'u':
                        user = true;
                        break;
                case 'k':
                        kernel = true;
                        break;
                case ARG_MODE:
                        mode = optarg;
                        break;
                case 'I':
                        if (!tool_parse_uint(optarg, MIN_INTERVAL_MS, MAX_INTERVAL_MS, &o->interval_ms))
                                return usage_error("invalid interval '%s' (milliseconds, %d to %u)", optarg,
                                                   MIN_INTERVAL_MS, MAX_INTERVAL_MS);
                        break;
                case 'm':
                        o->metrics = true;
                        break;
                case ARG_PROCTREE:
                        o->proctree = true;
                        break;
                case ARG_CGROUP:
                        o->cgroup = optarg;
                        break;
                case 'o':
                        o->output = optarg;
                        break;
                case ARG_CSV:
                        csv = true;
                        break;
                case 'x':
                        if (!tool_separator_valid(optarg))
                                return usage_error("invalid field separator '%s' (not empty, no quote, CR or LF)",
                                                   optarg);
                        csv = true;
                        o->separator = optarg;
                        break;
                case 'j':
                        json = true;
                        break;
                case ARG_NO_BIG_NUM:
                        number_format_plain(true);
                        break;
                case 'h':
                        help();
                        return 1;
                case 'V':
                        printf("pmstat (pmapi) %s\n", PMAPI_VERSION);
                        return 1;
                default:
                        return tool_option_error("pmstat", c, argv);
                }

        if (csv && json)
                return usage_error("CSV (--csv, -x) and --json exclude each other");
        if (o->events && o->group_id >= 0)
                return usage_error("-e and -g exclude each other: a group brings its own events");
        o->format = csv ? FORMAT_CSV : json ? FORMAT_JSON : FORMAT_TEXT;
        /* With no mode option: user and kernel mode, as AIX hpmstat counts. */
        if (prog_text_resolve_mode(user, kernel, mode, PM_USER | PM_KERNEL, &o->mode, error) < 0)
                return usage_error("%s", error);
        /* One scope: a cgroup context cannot be limited to a process tree as well (PM_PROCTREE). */
        if (o->proctree && o->cgroup)
                return usage_error("--cgroup and --proctree exclude each other");
        if (o->proctree) {
                if (optind >= argc)
                        return usage_error("--proctree needs a COMMAND to run");
                o->command = argv + optind;
                return 0;
        }
        if (argc - optind > 1)
                return usage_error("too many arguments (a COMMAND needs --proctree)");
        if (argc - optind == 1 && !tool_parse_uint(argv[optind], 0, UINT_MAX, &o->count))
                return usage_error("invalid COUNT '%s' (a number of intervals; 0: until interrupted)",
                                   argv[optind]);
        return 0;
}

/* The program of -e (or the default set, or -g's group) into prog, and the events it counts, each
 * on its counter, into events; -EINVAL with a message. */
static int make_program(const Options *o, const pm_info_t *info, pm_prog_t *prog, Event events[MAX_COUNTERS],
                        size_t *ret_n_events, char error[static PROG_TEXT_ERROR_MAX]) {
        int mode = o->mode | PM_COUNT | (o->proctree ? PM_PROCTREE : 0);
        int counted[MAX_COUNTERS];      /* what each counter counts: prog's events, or the group's */
        size_t n = 0;
        int r;

        *prog = (pm_prog_t) { .mode.w = mode };
        for (int c = 0; c < MAX_COUNTERS; c++)
                prog->events[c] = COUNT_NOTHING;
        if (o->group) {
                event_group_program(o->group, mode, prog);
                event_group_events(o->group, info->maxpmcs, counted);
        } else if (!o->events) {
                int next = 0;

                for (size_t i = 0; i < ELEMENTSOF(default_events) && next < MAX_COUNTERS; i++) {
                        const pm_events_t *e = prog_text_event_by_name(info, next, default_events[i]);
                        if (e)
                                prog->events[next++] = e->event_id;
                }
        } else {
                r = prog_text_parse_events(info, o->events, prog->events, error);
                if (r < 0)
                        return r;
        }
        if (!o->group)
                memcpy(counted, prog->events, sizeof(counted));
        for (int c = 0; c < MAX_COUNTERS; c++) {
                const pm_events_t *e;

                if (counted[c] == COUNT_NOTHING)
                        continue;
                e = prog_text_event_by_id(info, c, counted[c]);
                if (!e) {
                        snprintf(error, PROG_TEXT_ERROR_MAX, "no event has id %d on counter %d", counted[c], c);
                        return -EINVAL;
                }
                /* Columns and JSON members are named after the events: one of each. */
                for (size_t k = 0; k < n; k++)
                        if (events[k].desc->event_id == e->event_id) {
                                snprintf(error, PROG_TEXT_ERROR_MAX, "%s is given twice", e->short_name);
                                return -EINVAL;
                        }
                events[n++] = (Event) { .counter = c, .desc = e };
        }
        if (n == 0) {
                snprintf(error, PROG_TEXT_ERROR_MAX, "no event to count");
                return -EINVAL;
        }
        *ret_n_events = n;
        return 0;
}

static unsigned long long now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (unsigned long long) ts.tv_sec * 1000000000ULL + (unsigned long long) ts.tv_nsec;
}

/* Starts COMMAND with default signal handling; returns 0, or a positive errno (posix_spawn's). */
static int spawn_command(char **command, pid_t *ret_pid) {
        posix_spawnattr_t attr;
        sigset_t none, defaults;
        int r;

        sigemptyset(&none);
        sigemptyset(&defaults);
        for (size_t i = 0; i < ELEMENTSOF(watched_signals); i++)
                sigaddset(&defaults, watched_signals[i]);
        r = posix_spawnattr_init(&attr);
        if (r != 0)
                return r;
        r = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
        if (r == 0)
                r = posix_spawnattr_setsigmask(&attr, &none);
        if (r == 0)
                r = posix_spawnattr_setsigdefault(&attr, &defaults);
        /* A vfork-like start: no copy-on-write faults in pmstat, which is counted too. */
        if (r == 0)
                r = posix_spawnp(ret_pid, command[0], NULL, &attr, command, environ);
        posix_spawnattr_destroy(&attr);
        return r;
}

typedef struct Run {
        const Options *o;
        Report *report;
        unsigned long long start_ns;
        pid_t child;                    /* --proctree */
        int pidfd;
        CommandEnd end;
} Run;

/* Reads every CPU into now; says why on stderr when it cannot. */
static int take_sample(Run *run, Sample *now) {
        const CgroupTarget *target = run->o->target;
        int r = sample_read(now, target ? target->id : 0, now_ns() - run->start_ns);

        if (r != 0)
                pm_error((char *) (target ? "pmstat: pm_get_Tdata_lcpu_wp" : "pmstat: pm_get_Tdata_lcpu"), r);
        return r;
}

/* The intervals, until COUNT of them, a signal, or COMMAND's end. Returns 0, a PM_E* code from
 * libpmapi or a negative errno, having said why on stderr. */
static int run_intervals(Run *run, const sigset_t *waiting_mask, int n_cpus) {
        _cleanup_(sample_freep) Sample *before = NULL, *now = NULL;
        unsigned long long interval_ns = run->o->interval_ms * 1000000ULL;
        unsigned long long deadline = interval_ns;
        unsigned index = 0;
        int r;

        if (sample_new(n_cpus, &before) < 0 || sample_new(n_cpus, &now) < 0) {
                fprintf(stderr, "pmstat: out of memory\n");
                return -ENOMEM;
        }
        for (;;) {
                struct pollfd pfd = { .fd = run->pidfd, .events = POLLIN };
                unsigned long long elapsed = now_ns() - run->start_ns;
                unsigned long long wait = deadline > elapsed ? deadline - elapsed : 0;
                struct timespec timeout = { .tv_sec = (time_t) (wait / 1000000000ULL),
                                            .tv_nsec = (long) (wait % 1000000000ULL) };
                bool last = false, removed = false;
                Sample *t;

                r = ppoll(&pfd, run->pidfd >= 0 ? 1 : 0, &timeout, waiting_mask);
                if (r < 0 && errno != EINTR) {
                        r = -errno;
                        perror("pmstat: ppoll");
                        return r;
                }
                if (r < 0) {
                        int sig = last_signal;

                        if (!run->o->proctree) {
                                if (sig == SIGQUIT)
                                        continue;
                                last = true;    /* interrupted: the partial interval, and done */
                        } else {
                                /* The terminal sends SIGINT and SIGQUIT to COMMAND itself. */
                                if (sig == SIGTERM || sig == SIGHUP)
                                        (void) kill(run->child, sig);
                                continue;
                        }
                } else if (r > 0) {
                        siginfo_t info = {};

                        if (waitid(P_PIDFD, (id_t) run->pidfd, &info, WEXITED) < 0) {
                                r = -errno;
                                perror("pmstat: waitid");
                                return r;
                        }
                        run->end.exit_status = info.si_code == CLD_EXITED ? info.si_status : -1;
                        run->end.signal = info.si_code == CLD_EXITED ? 0 : info.si_status;
                        /* Stopped, the CPUs all hold the run's final counts while they are read. */
                        r = pm_stop();
                        if (r != 0) {
                                pm_error((char *) "pmstat: pm_stop", r);
                                return r;
                        }
                        last = true;
                }
                /* Asked before the read: a cgroup removed by then has all its counts in it. */
                if (run->o->target) {
                        r = cgroup_scope_removed(run->o->target, &removed);
                        if (r != 0)
                                return r;
                }
                r = take_sample(run, now);
                if (r != 0)
                        return r;
                report_interval(run->report, ++index, before, now);
                if (removed) {
                        report_cgroup_removed(run->report, now);
                        return 0;
                }
                if (run->o->proctree && last) {
                        report_run(run->report, now, &run->end);
                        return 0;
                }
                if (last || (!run->o->proctree && run->o->count > 0 && index >= run->o->count))
                        return 0;
                t = before, before = now, now = t;
                deadline += interval_ns;
        }
}

/* Exit status of a --proctree run's COMMAND, as a shell gives it. */
static int command_status(const CommandEnd *end) {
        return end->signal ? 128 + end->signal : end->exit_status;
}

static int set_program(const Options *o, pm_prog_t *prog) {
        int r;

        if (o->target)
                return cgroup_scope_set_program(o->target, prog);
        r = pm_set_program(prog);

        if (r == 0)
                return 0;
        pm_error((char *) "pmstat", r);
        if (r == PM_ESYSROOT)
                fprintf(stderr, "pmstat: only root may count every process; to count a command and what "
                                "it starts, run: pmstat --proctree [OPTIONS] -- COMMAND\n");
        else if (r == PM_EKERNELMODE)
                fprintf(stderr, "pmstat: add -u to count user mode only, which needs no privilege\n");
        return r;
}

int main(int argc, char *argv[]) {
        _cleanup_(report_freep) Report *report = NULL;
        _cleanup_(fclosep) FILE *output_file = NULL;
        _cleanup_(cgroup_target_done) CgroupTarget target = {};
        _cleanup_(metric_list_freep) MetricList *metric_list = NULL;
        _cleanup_close_ int pidfd = -1;
        char error[PROG_TEXT_ERROR_MAX];
        Event events[MAX_COUNTERS];
        sigset_t blocked, waiting_mask;
        Options o = { .group_id = -1 };
        pm_groups_info_t groups = {};
        pm_info_t info;
        pm_prog_t prog;
        size_t n_events;
        int n_cpus, r, written, failure;
        Run run = { .o = &o, .pidfd = -1 };
        FILE *out;

        tool_setup_locale();
        r = parse_argv(argc, argv, &o);
        if (r < 0)
                return usage_status;
        if (r > 0)
                return fflush(stdout) == 0 ? EXIT_SUCCESS : TOOL_EXIT_FAILED;
        failure = o.proctree ? TOOL_EXIT_OWN : TOOL_EXIT_FAILED;

        r = pm_init(ALL_STATUSES | (o.group_id >= 0 ? PM_GET_GROUPS : 0), &info, &groups);
        if (r != 0) {
                pm_error((char *) "pmstat: pm_init", r);
                return failure;
        }
        /* An unknown group is refused as an unknown event is. */
        if (o.group_id >= 0 && !(o.group = event_group_find(&groups, o.group_id))) {
                fprintf(stderr, "pmstat: no event group has id %d on this machine ('pmlist -g' lists those it "
                        "has)\n", o.group_id);
                return usage_status;
        }
        r = make_program(&o, &info, &prog, events, &n_events, error);
        if (r < 0) {
                fprintf(stderr, "pmstat: %s\n", error);
                return r == -ENOMEM ? failure : usage_status;
        }
        if (o.cgroup) {
                if (cgroup_scope_find(o.cgroup, &target) != 0)
                        return failure;
                o.target = &target;
        }
        if (o.metrics) {
                r = metric_list_fetch(&metric_list);
                if (r != 0) {
                        pm_error((char *) "pmstat: GetMetrics", r);
                        return failure;
                }
                o.metric_list = metric_list;
        }
        n_cpus = (int) sysconf(_SC_NPROCESSORS_CONF);
        if (n_cpus <= 0)
                n_cpus = 1;
        if (o.output) {
                output_file = fopen(o.output, "we");
                if (!output_file) {
                        fprintf(stderr, "pmstat: %s: %s\n", o.output, strerror(errno));
                        return failure;
                }
        }
        out = output_file ? output_file : o.proctree ? stderr : stdout;
        if (report_new(&o, out, events, n_events, &report) < 0) {
                fprintf(stderr, "pmstat: out of memory\n");
                return failure;
        }

        /* The signals wait, blocked, for ppoll(); COMMAND gets them back unblocked. */
        sigemptyset(&blocked);
        for (size_t i = 0; i < ELEMENTSOF(watched_signals); i++) {
                struct sigaction sa = { .sa_handler = on_signal };

                sigaddset(&blocked, watched_signals[i]);
                (void) sigaction(watched_signals[i], &sa, NULL);
        }
        (void) sigprocmask(SIG_BLOCK, &blocked, &waiting_mask);
        for (size_t i = 0; i < ELEMENTSOF(watched_signals); i++)
                sigdelset(&waiting_mask, watched_signals[i]);

        if (set_program(&o, &prog) != 0)
                return failure;
        run.report = report;
        run.start_ns = now_ns();
        if (o.proctree) {
                r = spawn_command(o.command, &run.child);
                if (r != 0) {
                        fprintf(stderr, "pmstat: %s: %s\n", o.command[0], strerror(r));
                        (void) pm_delete_program();
                        return r == ENOENT ? TOOL_EXIT_NOT_FOUND : TOOL_EXIT_CANNOT_RUN;
                }
                run.end.pid = run.child;
                pidfd = pidfd_open(run.child, 0);
                if (pidfd < 0) {
                        perror("pmstat: pidfd_open");
                        (void) kill(run.child, SIGKILL);
                        (void) waitpid(run.child, NULL, 0);
                        (void) pm_delete_program();
                        return failure;
                }
                run.pidfd = pidfd;
        }

        report_begin(report, run.child);
        r = run_intervals(&run, &waiting_mask, n_cpus);
        (void) (o.target ? pm_delete_program_wp(target.id) : pm_delete_program());
        if (r != 0 && o.proctree) {
                /* pmstat failed, COMMAND runs on: its status is what the caller waits for. */
                siginfo_t info_child = {};

                (void) waitid(P_PIDFD, (id_t) pidfd, &info_child, WEXITED);
        }
        written = report_finish(report, r > 0 ? pm_strerror(NULL, r) : r < 0 ? strerror(-r) : NULL);
        if (written < 0)
                fprintf(stderr, "pmstat: cannot write the report: %s\n", strerror(-written));
        if (r != 0 || written < 0)
                return failure;
        return o.proctree ? command_status(&run.end) : EXIT_SUCCESS;
}
