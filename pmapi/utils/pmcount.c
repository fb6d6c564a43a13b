/* pmcount.c: pmcount, AIX hpmcount's counterpart (and perf stat's): runs a command in a counting
 * group of its own and reports the group's counts, the time and the resource usage, and with
 * --per-thread one row per thread that ever ran in it. This file holds the command line and the
 * run; the report is pmcount-report.c, the rows' bus call pmcount-members.c, the contract
 * man/pmcount.1.
 *
 * The group must outlive the command, since pmapid releases a group with its last live member: so
 * pmcount is a member itself. It makes a descendant group with its own state off and the group's
 * on, drops the few counts its own calls made, and forks; libpmapi's fork() gives the child a
 * context in the group (own state off, as pmcount's), the child starts it and executes the command.
 * Contexts follow exec, and the command's new threads and processes inherit: before they run when
 * libpmapi is in them (preloaded, with PMAPI_INHERIT=1 telling it the main thread has a context),
 * a few tens of microseconds after they start otherwise (pmapid's fork records). When the command
 * has been waited for, the group holds what every one of its threads counted. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "inherit.h"
#include "macro.h"
#include "pmcount.h"
#include "prog-text.h"
#include "tool-usage.h"

#define ALL_STATUSES (PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT)

DEFINE_FREEP(FILE, fclose);

/* perf stat's default events where this machine has them. Switches and migrations happen in the
 * kernel: in user mode alone they count nothing, so the page faults take their place there. */
static const char *const default_events_kernel[] = {
        "PM_TASK_CLOCK", "PM_CTX_SW", "PM_CPU_MIGR", "PM_PAGE_FLT",
        "PM_CYC", "PM_INST_CMPL", "PM_BR_CMPL", "PM_BR_MPRED",
};
static const char *const default_events_user[] = {
        "PM_TASK_CLOCK", "PM_PAGE_FLT", "PM_MINOR_FLT", "PM_MAJOR_FLT",
        "PM_CYC", "PM_INST_CMPL", "PM_BR_CMPL", "PM_BR_MPRED",
};

static void help(void) {
        printf("Usage: pmcount [OPTIONS...] [--] COMMAND [ARGUMENTS...]\n\n"
               "Run COMMAND and count events in it and in every thread and process it\n"
               "creates; print each event's total, the elapsed time and the resource usage.\n\n"
               "Options:\n"
               "  -e --events=LIST   Events per counter from 0, by name or id; '-' for none\n"
               "                     (default: PM_TASK_CLOCK,PM_PAGE_FLT,PM_MINOR_FLT,PM_MAJOR_FLT,\n"
               "                     with -k PM_TASK_CLOCK,PM_CTX_SW,PM_CPU_MIGR,PM_PAGE_FLT; then\n"
               "                     PM_CYC,PM_INST_CMPL,PM_BR_CMPL,PM_BR_MPRED where present)\n"
               "  -k --kernel        Count kernel mode as well as user mode\n"
               "  -t --per-thread    One row per thread that ran, exited ones included\n"
               "  -o --output=FILE   Write the report to FILE instead of standard error\n"
               "     --csv           The report as CSV\n"
               "     --json          The report as one JSON document\n"
               "     --no-preload    Do not preload libpmapi into COMMAND (its new threads are\n"
               "                     then attached a little after they start)\n"
               "  -h --help          Show this help\n"
               "  -V --version       Show the version\n\n"
               "Exit status: COMMAND's (128+N if signal N killed it); 125 if pmcount failed,\n"
               "126 if COMMAND could not be executed, 127 if it was not found. See pmcount(1).\n");
}

#define usage_error(...) tool_usage_error("pmcount", __VA_ARGS__)

static int fail(const char *what, int pm_code) {
        fprintf(stderr, "pmcount: %s: %s\n", what, pm_strerror(NULL, pm_code));
        return EXIT_PMCOUNT_FAILED;
}

/* 0 to run, 1 when --help or --version was answered, -EINVAL after a usage message. */
static int parse_argv(int argc, char *argv[], Options *o) {
        enum { ARG_CSV = 0x100, ARG_JSON, ARG_NO_PRELOAD };
        static const struct option options[] = {
                { "events",     required_argument, NULL, 'e' },
                { "kernel",     no_argument,       NULL, 'k' },
                { "per-thread", no_argument,       NULL, 't' },
                { "output",     required_argument, NULL, 'o' },
                { "csv",        no_argument,       NULL, ARG_CSV },
                { "json",       no_argument,       NULL, ARG_JSON },
                { "no-preload", no_argument,       NULL, ARG_NO_PRELOAD },
                { "help",       no_argument,       NULL, 'h' },
                { "version",    no_argument,       NULL, 'V' },
                {}
        };
        bool csv = false, json = false;
        int c;

        /* '+': the options end at COMMAND, whose own options are its business. */
        while ((c = getopt_long(argc, argv, "+:e:kto:hV", options, NULL)) >= 0)
                switch (c) {
                case 'e':
                        o->events = optarg;
                        break;
                case 'k':
                        o->kernel = true;
                        break;
                case 't':
                        o->per_thread = true;
                        break;
                case 'o':
                        o->output = optarg;
                        break;
                case ARG_CSV:
                        csv = true;
                        break;
                case ARG_JSON:
                        json = true;
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
                return usage_error("--csv and --json exclude each other");
        o->format = csv ? REPORT_CSV : json ? REPORT_JSON : REPORT_TEXT;
        if (optind >= argc)
                return usage_error("no command given");
        o->command = argv + optind;
        return 0;
}

/* The default program: each default event that this machine has, in the next counter that offers
 * it. */
static void default_program(const pm_info_t *info, bool kernel, int events[MAX_COUNTERS]) {
        const char *const *names = kernel ? default_events_kernel : default_events_user;
        int c = 0;

        for (int k = 0; k < MAX_COUNTERS; k++)
                events[k] = COUNT_NOTHING;
        for (size_t i = 0; i < ELEMENTSOF(default_events_user) && c < MAX_COUNTERS; i++) {
                const pm_events_t *e = prog_text_event_by_name(info, c, names[i]);
                if (e)
                        events[c++] = e->event_id;
        }
}

static uint64_t now_ns(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

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
static _Noreturn void child_run(const Options *o, const char *preload, int fd) {
        int r;

        if (setenv(PMAPI_INHERIT_ENV, "1", 1) < 0 || (preload && setenv("LD_PRELOAD", preload, 1) < 0))
                child_fail(fd, 1, PM_ENOMEM, EXIT_PMCOUNT_FAILED);
        r = pm_start_mythread();
        if (r != 0)
                child_fail(fd, 1, r, EXIT_PMCOUNT_FAILED);
        execvp(o->command[0], o->command);
        r = errno;
        child_fail(fd, 2, r, r == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_INVOKE);
}

/* pmcount's group: its own state off, the group's on, and nothing of its own counted. */
static int make_group(const Options *o, pm_prog_t *prog) {
        int r;

        prog->mode.w = PM_USER | (o->kernel ? PM_KERNEL : 0);
        r = pm_set_program_mygroup(prog);
        if (r == PM_EEXIST) {
                fputs("pmcount: this thread is counted already (pmcount inside pmcount, or a program "
                      "that counts itself?)\n", stderr);
                return EXIT_PMCOUNT_FAILED;
        }
        if (r != 0)
                return fail("creating the counting group", r);
        if ((r = pm_start_mygroup()) != 0 || (r = pm_stop_mythread()) != 0 || (r = pm_reset_data_mythread()) != 0) {
                (void) pm_delete_program_mygroup();
                return fail("starting the counting group", r);
        }
        return 0;
}

/* Forks, runs the command in the child and waits for it; fills the run's part of the report.
 * Returns 0, or the exit status pmcount ends with when the command did not run. */
static int run_command(const Options *o, const char *preload, Report *rep) {
        int fds[2], r;
        ChildFailure f;
        uint64_t start;
        ssize_t n;
        pid_t pid;

        if (pipe2(fds, O_CLOEXEC) < 0) {
                fprintf(stderr, "pmcount: pipe: %m\n");
                return EXIT_PMCOUNT_FAILED;
        }
        (void) fflush(NULL);            /* nothing buffered is written twice */
        start = now_ns();
        pid = fork();
        if (pid < 0) {
                fprintf(stderr, "pmcount: fork: %m\n");
                close(fds[0]);
                close(fds[1]);
                return EXIT_PMCOUNT_FAILED;
        }
        if (pid == 0) {
                close(fds[0]);
                child_run(o, preload, fds[1]);
        }
        close(fds[1]);
        /* Like time(1): a ^C or ^\ on the terminal is for the command; pmcount still reports. */
        (void) signal(SIGINT, SIG_IGN);
        (void) signal(SIGQUIT, SIG_IGN);
        do
                n = read(fds[0], &f, sizeof(f));
        while (n < 0 && errno == EINTR);
        close(fds[0]);

        rep->pid = pid;
        do
                r = wait4(pid, &rep->wait_status, 0, &rep->rusage);
        while (r < 0 && errno == EINTR);
        rep->elapsed_ns = now_ns() - start;
        if (r < 0) {
                fprintf(stderr, "pmcount: wait4: %m\n");
                return EXIT_PMCOUNT_FAILED;
        }
        if (n == sizeof(f) && f.stage == 1)
                return fail("joining the counting group", f.code);
        if (n == sizeof(f)) {
                fprintf(stderr, "pmcount: %s: %s\n", o->command[0], strerror(f.code));
                return f.code == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_INVOKE;
        }
        return 0;
}

/* After the command: the group's total and, with --per-thread, its members. */
static int read_group(Report *rep) {
        int r;

        r = pm_get_data_mygroup(&rep->total);
        if (r != 0)
                return fail("reading the counting group", r);
        if (rep->options->per_thread) {
                r = member_rows_fetch(getpid(), gettid(), &rep->rows);
                if (r != 0)
                        return fail("reading the group's members", r);
                rep->have_rows = true;
        }
        return 0;
}

static int run(const Options *o, const pm_info_t *info) {
        _cleanup_free_ char *preload = NULL;
        _cleanup_(fclosep) FILE *out = NULL;
        Report rep = { .options = o, .info = info };
        char error[PROG_TEXT_ERROR_MAX];
        int r, status;

        if (o->events) {
                r = prog_text_parse_events(info, o->events, rep.prog.events, error);
                if (r == -ENOMEM)
                        return fail("events", PM_ENOMEM);
                if (r < 0) {
                        fprintf(stderr, "pmcount: %s\n", error);
                        return EXIT_PMCOUNT_FAILED;
                }
        } else
                default_program(info, o->kernel, rep.prog.events);
        /* Opened before the command runs, as perf stat does: a report that cannot be written is
         * known before the work is done. */
        if (o->output) {
                out = fopen(o->output, "we");
                if (!out) {
                        fprintf(stderr, "pmcount: %s: %m\n", o->output);
                        return EXIT_PMCOUNT_FAILED;
                }
        }
        if (o->preload && preload_value(&preload) < 0)
                return fail("LD_PRELOAD", PM_ENOMEM);

        r = make_group(o, &rep.prog);
        if (r != 0)
                return r;
        r = run_command(o, preload, &rep);
        if (r == 0)
                r = read_group(&rep);
        (void) pm_delete_program_mygroup();
        if (r != 0) {
                member_rows_done(&rep.rows);
                return r;
        }
        status = report_exit_code(&rep);
        r = report_write(&rep, out ? out : stderr);
        if (r == 0 && out)
                r = fclose(TAKE_PTR(out)) == 0 ? 0 : -errno;
        member_rows_done(&rep.rows);
        if (r < 0) {
                fprintf(stderr, "pmcount: cannot write the report: %s\n", strerror(-r));
                return EXIT_PMCOUNT_FAILED;
        }
        return status;
}

int main(int argc, char *argv[]) {
        Options o = { .preload = true };
        pm_info_t info = {};
        int r;

        r = parse_argv(argc, argv, &o);
        if (r < 0)
                return EXIT_PMCOUNT_FAILED;
        if (r > 0)
                return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_PMCOUNT_FAILED;
        /* Every status: the user picks the events, and the report shows each one's. */
        r = pm_init(ALL_STATUSES, &info);
        if (r != 0)
                return fail("pm_init", r);
        return run(&o, &info);
}
