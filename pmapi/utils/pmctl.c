/* pmctl.c: pmctl, the command line over libpmapi's third-party calls, for people and debuggers
 * (`shell pmctl data PID TID` in gdb): its options and arguments (man/pmapi-tools.7 sets the
 * letters the tools share), the commands that change a thread's or a group's state (set, start,
 * stop, reset, delete), the output file, and how failures are reported. What it prints is in
 * pmctl-show.c (list, program, data), pmctl-members.c and pmctl-watch.c (data -I); the contract is
 * man/pmctl.1. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-writer.h"
#include "macro.h"
#include "pmctl.h"
#include "prog-text.h"
#include "text-table.h"
#include "tool-usage.h"

#define ALL_STATUSES (PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT)

static void help(void) {
        printf("Usage: pmctl [--json] list\n"
               "       pmctl [--json] [--group] program PID [TID]\n"
               "       pmctl [--json] [--group] data PID [TID] [-I MS [-c N]]\n"
               "       pmctl [--json] members PID [TID]\n"
               "       pmctl [--json] [--group] set PID [TID] -e EVENTS [-m MODE]\n"
               "       pmctl [--json] [--group] start|stop|reset|delete PID [TID]\n\n"
               "Show and control the pmapi counting context of thread TID of process PID\n"
               "(TID defaults to PID, the main thread), or with --group its counting group.\n\n"
               "Commands:\n"
               "  list          The contexts pmapid shows you (root: all), with thread names\n"
               "  program       Events per counter, mode and counting state\n"
               "  data          One read of the counters, with its CLOCK_MONOTONIC time;\n"
               "                with -I, a read every MS milliseconds, as changes\n"
               "  members       The members of the thread's counting group, with their counts\n"
               "  set           Create the context (--group: the group) with a program\n"
               "  start, stop   Switch counting on or off\n"
               "  reset         Set the counts to zero\n"
               "  delete        Delete the context (--group: every member's)\n\n"
               "Options:\n"
               "  -j --json          JSON on one line (with -I: a line per read)\n"
               "  -g --group         Act on the thread's counting group\n"
               "  -e --events=LIST   set: events per counter from 0, by name or id; '-' for none\n"
               "  -m --mode=LIST     set: user, kernel, count, process, no-inherit (default: user)\n"
               "  -I --interval=MS   data: read every MS milliseconds (at least 10) until\n"
               "                     interrupted or the context goes away\n"
               "  -c --count=N       data -I: stop after N reads\n"
               "     --no-big-num    Counts without thousands separators\n"
               "  -o --output=FILE   Write the output to FILE instead of standard output\n"
               "  -h --help          Show this help\n"
               "  -V --version       Show the version\n\n"
               "Exit status: 0 success, 1 refused or failed, 2 bad usage, 3 data or members\n"
               "of a group whose counts are partial. See pmctl(1) and pmapi-tools(7).\n");
}

#define usage_error(...) tool_usage_error("pmctl", __VA_ARGS__)

/* A thread or process id: decimal digits only, 1 to INT_MAX. */
static int parse_id(const char *s, const char *what, pid_t *ret) {
        char *end;
        long v;

        errno = 0;
        v = (*s >= '0' && *s <= '9') ? strtol(s, &end, 10) : 0;
        if (v <= 0 || errno != 0 || *end != '\0' || v > INT_MAX)
                return usage_error("invalid %s '%s'", what, s);
        *ret = (pid_t) v;
        return 0;
}

typedef struct Verb Verb;
struct Verb {
        const char *name;
        bool targeted;                                  /* takes PID [TID]; only list does not */
        int (*run)(const Verb *v, const Options *o, const pm_info_t *info);
        int (*thread_call)(pid_t pid, tid_t tid);       /* start, stop, reset, delete */
        int (*group_call)(pid_t pid, tid_t tid);
};

/* {"ok":true} for --json; nothing otherwise. */
static int succeed(const Options *o) {
        JsonWriter w;
        int r;

        if (!o->json)
                return 0;
        json_writer_init(&w, o->out);
        json_open_object(&w, NULL);
        json_bool(&w, "ok", true);
        json_close_object(&w);
        r = json_writer_finish(&w);
        return r < 0 ? pmctl_fail_output(o, r) : 0;
}

static int run_list(const Verb *v, const Options *o, const pm_info_t *info) {
        return pmctl_show_list(o);
}

static int run_program(const Verb *v, const Options *o, const pm_info_t *info) {
        return pmctl_show_program(o, info);
}

static int run_data(const Verb *v, const Options *o, const pm_info_t *info) {
        return o->interval_ms > 0 ? pmctl_watch_data(o, info) : pmctl_show_data(o, info);
}

static int run_members(const Verb *v, const Options *o, const pm_info_t *info) {
        return pmctl_show_members(o, info);
}

static int run_set(const Verb *v, const Options *o, const pm_info_t *info) {
        char error[PROG_TEXT_ERROR_MAX];
        pm_prog_t prog = { .mode.w = o->mode_bits };
        int r;

        r = prog_text_parse_events(info, o->events, prog.events, error);
        if (r == -ENOMEM)
                return pmctl_fail(o, PM_ENOMEM);
        if (r < 0) {
                /* A usage error, but one that needs the catalog: found only now, after pm_init. */
                fprintf(stderr, "pmctl: set %d/%d: %s\n", (int) o->pid, (int) o->tid, error);
                return TOOL_EXIT_USAGE;
        }
        r = o->group ? pm_set_program_group(o->pid, o->tid, &prog)
                     : pm_set_program_thread(o->pid, o->tid, &prog);
        return r != 0 ? pmctl_fail(o, r) : succeed(o);
}

static int run_call(const Verb *v, const Options *o, const pm_info_t *info) {
        int r = (o->group ? v->group_call : v->thread_call)(o->pid, o->tid);
        return r != 0 ? pmctl_fail(o, r) : succeed(o);
}

static const Verb verbs[] = {
        { "list",    false, run_list },
        { "program", true,  run_program },
        { "data",    true,  run_data },
        { "members", true,  run_members },
        { "set",     true,  run_set },
        { "start",   true,  run_call, pm_start_thread,          pm_start_group },
        { "stop",    true,  run_call, pm_stop_thread,           pm_stop_group },
        { "reset",   true,  run_call, pm_reset_data_thread,     pm_reset_data_group },
        { "delete",  true,  run_call, pm_delete_program_thread, pm_delete_program_group },
};
static const size_t n_verbs = ELEMENTSOF(verbs);

/* Fills o and *ret_verb; returns 0 to run, 1 when --help or --version was answered, -EINVAL after a
 * usage message. */
static int parse_argv(int argc, char *argv[], Options *o, const Verb **ret_verb) {
        enum { ARG_NO_BIG_NUM = 0x100 };
        static const struct option options[] = {
                { "json",       no_argument,       NULL, 'j' },
                { "group",      no_argument,       NULL, 'g' },
                { "events",     required_argument, NULL, 'e' },
                { "mode",       required_argument, NULL, 'm' },
                { "interval",   required_argument, NULL, 'I' },
                { "count",      required_argument, NULL, 'c' },
                { "no-big-num", no_argument,       NULL, ARG_NO_BIG_NUM },
                { "output",     required_argument, NULL, 'o' },
                { "help",       no_argument,       NULL, 'h' },
                { "version",    no_argument,       NULL, 'V' },
                {}
        };
        const Verb *verb = NULL;
        int c, n_args;

        /* The leading ':' makes getopt quiet, as usage_error() speaks; GNU getopt still moves the
         * options after the operands, so `pmctl set 42 -e PM_CYC` works too. */
        while ((c = getopt_long(argc, argv, ":jge:m:I:c:o:hV", options, NULL)) >= 0)
                switch (c) {
                case 'j':
                        o->json = true;
                        break;
                case 'g':
                        o->group = true;
                        break;
                case 'e':
                        o->events = optarg;
                        break;
                case 'm':
                        o->mode = optarg;
                        break;
                case 'I':
                        /* A day at most: a longer interval is a typo, not a plan. */
                        if (!tool_parse_uint(optarg, 10, 86400000, &o->interval_ms))
                                return usage_error("invalid interval '%s': milliseconds, at least 10",
                                                   optarg);
                        break;
                case 'c':
                        if (!tool_parse_uint(optarg, 1, UINT_MAX, &o->count))
                                return usage_error("invalid count '%s': a number of reads, at least 1",
                                                   optarg);
                        break;
                case ARG_NO_BIG_NUM:
                        number_format_plain(true);
                        break;
                case 'o':
                        if (*optarg == '\0')
                                return usage_error("-o needs a file name");
                        o->output = optarg;
                        break;
                case 'h':
                        help();
                        return 1;
                case 'V':
                        printf("pmctl (pmapi) %s\n", PMAPI_VERSION);
                        return 1;
                default:
                        return tool_option_error("pmctl", c, argv);
                }

        if (optind >= argc)
                return usage_error("no command given");
        o->verb = argv[optind++];
        for (size_t i = 0; i < n_verbs && !verb; i++)
                if (strcmp(o->verb, verbs[i].name) == 0)
                        verb = &verbs[i];
        if (!verb)
                return usage_error("unknown command '%s'", o->verb);
        if ((o->events || o->mode) && strcmp(o->verb, "set") != 0)
                return usage_error("%s takes no -e or -m", o->verb);
        if ((o->interval_ms > 0 || o->count > 0) && strcmp(o->verb, "data") != 0)
                return usage_error("%s takes no -I or -c", o->verb);
        if (o->count > 0 && o->interval_ms == 0)
                return usage_error("-c needs -I MS");
        n_args = argc - optind;

        if (!verb->targeted) {
                if (o->group)
                        return usage_error("%s takes no --group", o->verb);
                if (n_args > 0)
                        return usage_error("%s takes no arguments", o->verb);
                *ret_verb = verb;
                return 0;
        }
        if (n_args < 1 || n_args > 2)
                return usage_error("%s takes PID [TID]", o->verb);
        if (parse_id(argv[optind], "PID", &o->pid) < 0)
                return -EINVAL;
        o->tid = o->pid;
        if (n_args == 2 && parse_id(argv[optind + 1], "TID", &o->tid) < 0)
                return -EINVAL;
        if (strcmp(o->verb, "members") == 0)
                o->group = true;                /* members are a group's: --group says nothing more */
        if (strcmp(o->verb, "set") == 0) {
                char error[PROG_TEXT_ERROR_MAX];

                if (!o->events)
                        return usage_error("set needs -e EVENTS");
                if (prog_text_parse_mode(o->mode ? o->mode : "user", &o->mode_bits, error) < 0)
                        return usage_error("set %d/%d: %s", (int) o->pid, (int) o->tid, error);
        }
        *ret_verb = verb;
        return 0;
}

static void fclosep(FILE **f) {
        if (*f && *f != stdout)
                (void) fclose(*f);      /* what matters was flushed and checked before */
}

int main(int argc, char *argv[]) {
        _cleanup_(fclosep) FILE *out = NULL;
        const Verb *verb = NULL;
        Options o = { .out = stdout };
        pm_groups_info_t groups = {};
        pm_info_t info = {};
        int r;

        tool_setup_locale();
        r = parse_argv(argc, argv, &o, &verb);
        if (r < 0)
                return TOOL_EXIT_USAGE;
        if (r > 0)
                return fflush(stdout) == 0 ? EXIT_SUCCESS : TOOL_EXIT_FAILED;
        /* Opened before anything is asked of pmapid, so that an unwritable file is known first. */
        if (o.output) {
                out = fopen(o.output, "we");
                if (!out) {
                        fprintf(stderr, "pmctl: cannot open '%s' for writing: %m\n", o.output);
                        return TOOL_EXIT_FAILED;
                }
                o.out = out;
        }
        /* libpmapi's calls need pm_init first; with every status, since a context someone else set
         * may count any event. list asks the bus itself and needs no catalog. */
        if (verb->targeted) {
                r = pm_init(ALL_STATUSES | PM_GET_GROUPS, &info, &groups);
                if (r != 0)
                        return pmctl_fail(&o, r);
                o.groups = &groups;
        }
        r = verb->run(verb, &o, &info);
        if (out && fclose(TAKE_PTR(out)) != 0 && r != TOOL_EXIT_FAILED)
                r = pmctl_fail_output(&o, -errno);
        return r;
}
