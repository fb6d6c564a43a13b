/* pmcount.c: pmcount, AIX hpmcount's counterpart (and perf stat's): runs a command in a counting
 * group of its own and reports the group's counts, the time and the resource usage, and with
 * --per-thread one row per thread that ever ran in it; or, with -p/-t, counts a process or thread
 * that already runs; or, with --cgroup, counts a cgroup while the command runs. This file holds the
 * command line and picks the program (-e, the default events or -g's event group); the run is
 * pmcount-run.c, -p/-t pmcount-attach.c, --cgroup pmcount-cgroup.c, the report pmcount-report.c,
 * the contract man/pmcount.1 and the conventions shared with the other tools man/pmapi-tools.7. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "event-group.h"
#include "macro.h"
#include "pmcount.h"
#include "prog-text.h"
#include "text-table.h"
#include "tool-usage.h"

#define ALL_STATUSES (PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT)
#define MIN_INTERVAL_MS 10
#define MAX_INTERVAL_MS (24U * 3600U * 1000U)
#define MAX_REPEAT 100000U

DEFINE_FREEP(FILE, fclose);

/* perf stat's default events where this machine has them, whatever the mode: switches and
 * migrations happen in the kernel and count nothing in user mode, so the page faults take their
 * place (the report's resource usage has the switches either way). */
static const char *const default_events[] = {
        "PM_TASK_CLOCK", "PM_PAGE_FLT", "PM_MINOR_FLT", "PM_MAJOR_FLT",
        "PM_CYC", "PM_INST_CMPL", "PM_BR_CMPL", "PM_BR_MPRED",
};

static void help(void) {
        printf("Usage: pmcount [OPTIONS...] [--] COMMAND [ARGUMENTS...]\n"
               "       pmcount [OPTIONS...] -p PID | -t TID\n"
               "       pmcount [OPTIONS...] --cgroup=PATH [--] COMMAND [ARGUMENTS...]\n\n"
               "Run COMMAND and count events in it and in every thread and process it\n"
               "creates; print each event's total, the elapsed time and the resource usage.\n"
               "With -p or -t, count a running process or thread until it ends or ^C.\n"
               "With --cgroup, count what runs in cgroup PATH and below it, on every CPU,\n"
               "while COMMAND runs (COMMAND itself stays where pmcount runs); root or the\n"
               "cgroup's delegated owner.\n\n"
               "Options:\n"
               "  -e --events=LIST   Events per counter from 0, by name or id; '-' for none\n"
               "                     (default: PM_TASK_CLOCK,PM_PAGE_FLT,PM_MINOR_FLT,PM_MAJOR_FLT,\n"
               "                     then PM_CYC,PM_INST_CMPL,PM_BR_CMPL,PM_BR_MPRED where present)\n"
               "  -g --group=ID      Count predefined event group ID instead ('pmlist -g' lists\n"
               "                     them); not with -e\n"
               "  -u --user          Count user mode (the default)\n"
               "  -k --kernel        Count kernel mode too\n"
               "     --mode=LIST     The modes exactly: user, kernel or user,kernel\n"
               "  -m --metrics       Also show the derived metrics whose events are all counted\n"
               "                     (CPUs utilized, page faults per second, ...)\n"
               "  -r --repeat=N      Run COMMAND N times; report the mean and the variation\n"
               "  -I --interval=MS   Also print what each event counted every MS milliseconds\n"
               "  -p --pid=PID       Count running process PID (every thread of it)\n"
               "  -t --tid=TID       Count running thread TID and what it creates from now on\n"
               "     --cgroup=PATH   Count cgroup PATH (from the cgroup v2 root, or under its\n"
               "                     mount point) while COMMAND runs; not with -r, -p, -t,\n"
               "                     --per-thread\n"
               "     --per-thread    One row per thread that ran, exited ones included\n"
               "  -o --output=FILE   Write the report to FILE instead of standard error\n"
               "     --csv           The report as CSV\n"
               "  -x --field-separator=SEP  The report as CSV with SEP between fields\n"
               "  -j --json          The report as one JSON document (JSON Lines with -I)\n"
               "     --no-big-num    Counts without thousands separators\n"
               "     --no-preload    Do not preload libpmapi into COMMAND (its new threads are\n"
               "                     then attached a little after they start)\n"
               "  -h --help          Show this help\n"
               "  -V --version       Show the version\n\n"
               "Exit status: COMMAND's (128+N if signal N killed it); 124 if threads ran\n"
               "uncounted, 125 if pmcount failed, 126 if COMMAND could not be executed,\n"
               "127 if it was not found. See pmcount(1) and pmapi-tools(7).\n");
}

#define usage_error(...) tool_usage_error("pmcount", __VA_ARGS__)

static int parse_id(const char *s, const char *option, pid_t *ret) {
        unsigned v;

        if (!tool_parse_uint(s, 1, INT_MAX, &v))
                return usage_error("invalid %s '%s' (a process or thread id)", option, s);
        *ret = (pid_t) v;
        return 0;
}

/* -t TID's process, from /proc/TID/status. */
static int thread_process(pid_t tid, pid_t *ret) {
        char path[64], line[256];
        _cleanup_(fclosep) FILE *f = NULL;

        snprintf(path, sizeof(path), "/proc/%d/status", (int) tid);
        f = fopen(path, "re");
        if (!f) {
                fprintf(stderr, "pmcount: thread %d: %s\n", (int) tid,
                        errno == ENOENT ? "no such thread" : strerror(errno));
                return -errno;
        }
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "Tgid: %d", ret) == 1)
                        return 0;
        fprintf(stderr, "pmcount: thread %d: its process is not in %s\n", (int) tid, path);
        return -EIO;
}

/* 0 to run, 1 when --help or --version was answered, -EINVAL after a usage message. */
static int parse_argv(int argc, char *argv[], Options *o) {
        enum { ARG_CSV = 0x100, ARG_NO_PRELOAD, ARG_MODE, ARG_PER_THREAD, ARG_NO_BIG_NUM, ARG_CGROUP };
        static const struct option options[] = {
                { "events",          required_argument, NULL, 'e' },
                { "group",           required_argument, NULL, 'g' },
                { "user",            no_argument,       NULL, 'u' },
                { "kernel",          no_argument,       NULL, 'k' },
                { "mode",            required_argument, NULL, ARG_MODE },
                { "metrics",         no_argument,       NULL, 'm' },
                { "repeat",          required_argument, NULL, 'r' },
                { "interval",        required_argument, NULL, 'I' },
                { "pid",             required_argument, NULL, 'p' },
                { "tid",             required_argument, NULL, 't' },
                { "per-thread",      no_argument,       NULL, ARG_PER_THREAD },
                { "cgroup",          required_argument, NULL, ARG_CGROUP },
                { "output",          required_argument, NULL, 'o' },
                { "csv",             no_argument,       NULL, ARG_CSV },
                { "field-separator", required_argument, NULL, 'x' },
                { "json",            no_argument,       NULL, 'j' },
                { "no-big-num",      no_argument,       NULL, ARG_NO_BIG_NUM },
                { "no-preload",      no_argument,       NULL, ARG_NO_PRELOAD },
                { "help",            no_argument,       NULL, 'h' },
                { "version",         no_argument,       NULL, 'V' },
                {}
        };
        bool csv = false, json = false, user = false, kernel = false;
        const char *mode = NULL;
        char error[PROG_TEXT_ERROR_MAX];
        int c;

        o->repeat = 1;
        o->separator = ",";
        /* '+': the options end at COMMAND, whose own options are its business. */
        while ((c = getopt_long(argc, argv, "+:e:g:ukmr:I:p:t:o:x:jhV", options, NULL)) >= 0)
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
                case 'm':
                        o->metrics = true;
                        break;
                case 'r':
                        if (!tool_parse_uint(optarg, 1, MAX_REPEAT, &o->repeat))
                                return usage_error("invalid repeat count '%s' (1 to %u)", optarg, MAX_REPEAT);
                        break;
                case 'I':
                        if (!tool_parse_uint(optarg, MIN_INTERVAL_MS, MAX_INTERVAL_MS, &o->interval_ms))
                                return usage_error("invalid interval '%s' (milliseconds, %d to %u)", optarg,
                                                   MIN_INTERVAL_MS, MAX_INTERVAL_MS);
                        break;
                case 'p':
                        if (parse_id(optarg, "PID", &o->attach_pid) < 0)
                                return -EINVAL;
                        o->attach_tid = o->attach_pid;
                        o->attach_process = true;
                        break;
                case 't':
                        if (parse_id(optarg, "TID", &o->attach_tid) < 0)
                                return -EINVAL;
                        o->attach_process = false;
                        break;
                case ARG_PER_THREAD:
                        o->per_thread = true;
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
                case ARG_NO_PRELOAD:
                        o->preload = false;
                        break;
                case 'h':
                        help();
                        return 1;
                case 'V':
                        printf("pmcount (pmapi) %s\n", PMAPI_VERSION);
                        return 1;
                default:
                        return tool_option_error("pmcount", c, argv);
                }
        if (csv && json)
                return usage_error("CSV (--csv, -x) and --json exclude each other");
        if (o->events && o->group_id >= 0)
                return usage_error("-e and -g exclude each other: a group brings its own events");
        o->format = csv ? REPORT_CSV : json ? REPORT_JSON : REPORT_TEXT;
        /* With no mode option: user mode, as AIX hpmcount counts. */
        if (prog_text_resolve_mode(user, kernel, mode, PM_USER, &o->mode, error) < 0)
                return usage_error("%s", error);

        /* A cgroup is counted as a whole, for as long as COMMAND runs: it has no threads to list, and
         * what else runs in it does not repeat with COMMAND. */
        if (o->cgroup) {
                if (o->attach_tid > 0)
                        return usage_error("--cgroup counts while a COMMAND runs: not with -p or -t");
                if (o->per_thread)
                        return usage_error("--per-thread lists a counting group's threads: not with --cgroup");
                if (o->repeat > 1)
                        return usage_error("-r repeats a COMMAND in a group of its own: not with --cgroup");
        }
        if (o->attach_tid > 0) {
                if (optind < argc)
                        return usage_error("-p and -t count what already runs: no COMMAND with them");
                if (o->per_thread)
                        return usage_error("--per-thread is for a COMMAND's threads: not with -p or -t");
                if (o->repeat > 1)
                        return usage_error("-r repeats a COMMAND: not with -p or -t");
                if (!o->attach_process && thread_process(o->attach_tid, &o->attach_pid) < 0)
                        return -EINVAL;
                return 0;
        }
        if (optind >= argc)
                return usage_error("no command given (or -p PID, -t TID)");
        o->command = argv + optind;
        return 0;
}

/* The default program: each default event that this machine has, in the next counter that offers
 * it. */
static void default_program(const pm_info_t *info, int events[MAX_COUNTERS]) {
        int c = 0;

        for (int k = 0; k < MAX_COUNTERS; k++)
                events[k] = COUNT_NOTHING;
        for (size_t i = 0; i < ELEMENTSOF(default_events) && c < MAX_COUNTERS; i++) {
                const pm_events_t *e = prog_text_event_by_name(info, c, default_events[i]);
                if (e)
                        events[c++] = e->event_id;
        }
}

/* -g: the program that counts group o->group_id, and its events for the report; TOOL_EXIT_OWN after
 * saying why when this machine has no such group. */
static int group_program(const Options *o, const pm_info_t *info, const pm_groups_info_t *groups, Report *rep) {
        const pm_groups_t *g = event_group_find(groups, o->group_id);

        if (!g) {
                fprintf(stderr, "pmcount: no event group has id %d on this machine ('pmlist -g' lists those it "
                        "has)\n", o->group_id);
                return TOOL_EXIT_OWN;
        }
        event_group_program(g, o->mode, &rep->prog);
        event_group_events(g, info->maxpmcs, rep->group_events);
        rep->group = g;
        return 0;
}

static int run(const Options *o, const pm_info_t *info, const pm_groups_info_t *groups) {
        _cleanup_(fclosep) FILE *out = NULL;
        Report rep = { .options = o, .info = info, .prog.mode.w = o->mode };
        char error[PROG_TEXT_ERROR_MAX];
        int r, status;

        if (o->group_id >= 0) {
                r = group_program(o, info, groups, &rep);
                if (r != 0)
                        return r;
        } else if (o->events) {
                r = prog_text_parse_events(info, o->events, rep.prog.events, error);
                if (r == -ENOMEM)
                        return pmcount_fail("events", PM_ENOMEM);
                if (r < 0) {
                        fprintf(stderr, "pmcount: %s\n", error);
                        return TOOL_EXIT_OWN;
                }
        } else
                default_program(info, rep.prog.events);
        /* Opened before the command runs, as perf stat does: a report that cannot be written is
         * known before the work is done. */
        if (o->output) {
                out = fopen(o->output, "we");
                if (!out) {
                        fprintf(stderr, "pmcount: %s: %m\n", o->output);
                        return TOOL_EXIT_OWN;
                }
        }
        rep.f = out ? out : stderr;
        /* -m: pmapid's metrics, asked for before the command runs, as the output file is opened. */
        if (o->metrics) {
                r = metric_list_fetch(&rep.metric_list);
                if (r != 0)
                        return pmcount_fail("GetMetrics", r);
        }

        r = o->attach_tid > 0 ? attach_and_count(o, &rep) : o->cgroup ? cgroup_count_command(o, &rep) :
                                                                       run_command(o, &rep);
        if (r != 0) {
                member_rows_done(&rep.rows);
                cgroup_target_done(&rep.cgroup);
                metric_list_free(rep.metric_list);
                return r;
        }
        status = o->attach_tid > 0 ? 0 : report_exit_code(&rep);
        r = report_write(&rep);
        rep.metric_list = metric_list_free(rep.metric_list);
        if (r == 0 && out)
                r = fclose(TAKE_PTR(out)) == 0 ? 0 : -errno;
        member_rows_done(&rep.rows);
        if (r < 0) {
                fprintf(stderr, "pmcount: cannot write the report: %s\n", strerror(-r));
                cgroup_target_done(&rep.cgroup);
                return TOOL_EXIT_OWN;
        }
        /* The report says so too; these lines are for a report in a file, which nobody may read
         * before the exit status (a report on stderr stays one document). */
        if (rep.cgroup_removed && o->output)
                fprintf(stderr, "pmcount: cgroup %s was removed during the run: see %s\n", rep.cgroup.path,
                        o->output);
        cgroup_target_done(&rep.cgroup);
        if (rep.partial && o->output)
                fprintf(stderr, "pmcount: the counts are partial (%s): see %s\n",
                        rep.target_gone ? "the target exited after the last read" :
                                          "threads ran uncounted, pmapid's limits", o->output);
        return rep.partial ? TOOL_EXIT_PARTIAL : status;
}

int main(int argc, char *argv[]) {
        Options o = { .preload = true, .group_id = -1 };
        pm_info_t info = {};
        pm_groups_info_t groups = {};
        int r;

        tool_setup_locale();
        r = parse_argv(argc, argv, &o);
        if (r < 0)
                return TOOL_EXIT_OWN;
        if (r > 0)
                return fflush(stdout) == 0 ? EXIT_SUCCESS : TOOL_EXIT_OWN;
        /* Every status: the user picks the events, and the report shows each one's. */
        r = pm_init(ALL_STATUSES | (o.group_id >= 0 ? PM_GET_GROUPS : 0), &info, &groups);
        if (r != 0)
                return pmcount_fail("pm_init", r);
        return run(&o, &info, &groups);
}
