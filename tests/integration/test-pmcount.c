/* test-pmcount.c: the pmcount binary against a real pmapid, on thread-pages, a workload not linked
 * with libpmapi whose threads touch known numbers of fresh pages. Checked: pmcount's page-fault
 * total equals perf stat's on the same command within 0.1 % (user mode, and user and kernel mode);
 * each worker's row is its known page count within 2, every thread that ran has a row, exited
 * ones included, named as it named itself (the main thread after the command, not pmcount), and
 * the rows add up to the total; the text, CSV (RFC 4180, read back by csv-read.c) and JSON (json-glib)
 * forms agree with themselves; -o writes the report to a file and leaves the command's stdout
 * alone; the command's exit status and death by signal come back as a shell would give them, and
 * pmcount's own failures as 125, 126 and 127; an unprivileged user gets the same rows. -g's event
 * groups are test-tool-groups.c's, -m's metrics test-pmcount-metrics.c's. */
#include <ctype.h>
#include <grp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-glib/json-glib.h>
#include <systemd/sd-bus.h>

#include "bus-fixture.h"
#include "bus-names.h"
#include "csv-read.h"
#include "macro.h"
#include "pmapi.h"
#include "workload.h"

/* thread-pages THREADS PAGES ROUNDS: worker i touches (i + 1) * PAGES * ROUNDS pages, in all
 * PAGES * ROUNDS * THREADS * (THREADS + 1) / 2 = 250,000 here, plus the main thread's 25,000. */
#define THREADS 4
#define PAGES 2500
#define ROUNDS 10
#define WORKER_PAGES(i) ((long long) ((i) + 1) * PAGES * ROUNDS)
#define WORKLOAD_ARGS "4", "2500", "10"

static BusFixture fixture;

/* One run of pmcount: its exit status and what it wrote. */
typedef struct Run {
        int status;                     /* exit status; -1 if it did not exit */
        char out[65536];
        char err[65536];
} Run;

static void read_back(int fd, char *buf, size_t size) {
        ssize_t n = pread(fd, buf, size - 1, 0);
        buf[n > 0 ? n : 0] = '\0';
        close(fd);
}

/* Runs pmcount as uid (0: as we are) with the NULL-terminated arguments. */
static void run_pmcount_as(uid_t uid, Run *run, ...) {
        const char *pmcount = getenv("PMAPI_PMCOUNT");
        const char *argv[64];
        int argc = 0, out, err, status;
        va_list ap;
        pid_t pid;

        assert_non_null(pmcount);
        argv[argc++] = pmcount;
        va_start(ap, run);
        while (argc < 63 && (argv[argc] = va_arg(ap, const char *)))
                argc++;
        va_end(ap);
        argv[argc] = NULL;

        out = memfd_create("pmcount-out", MFD_CLOEXEC);
        err = memfd_create("pmcount-err", MFD_CLOEXEC);
        assert_true(out >= 0 && err >= 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                if (dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0)
                        _exit(99);
                if (uid != 0 && (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 ||
                                 setresuid(uid, uid, uid) < 0))
                        _exit(98);
                execv(pmcount, (char **) argv);
                _exit(97);
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        run->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        read_back(out, run->out, sizeof(run->out));
        read_back(err, run->err, sizeof(run->err));
}

#define run_pmcount(run, ...) run_pmcount_as(0, run, __VA_ARGS__, NULL)

static JsonObject *parse_json(JsonParser *parser, const char *text) {
        g_autoptr(GError) error = NULL;

        if (!json_parser_load_from_data(parser, text, -1, &error))
                fail_msg("pmcount printed no valid JSON (%s): %s", error->message, text);
        return json_node_get_object(json_parser_get_root(parser));
}

/* The thread-pages workload as pmcount reports it in JSON, checked against what it is known to do:
 * THREADS workers, a warm-up thread and the main thread, all exited; worker i's page count (where
 * rows_exact: a switch the kernel's tracepoint did not show may hand a few faults from one born
 * thread's row to another's, which pmapid's AmbiguousSlices counts); each thread's name; the rows'
 * sum is the total. Returns the total. */
static long long check_workload_json(const char *text, pid_t *ret_pid, bool rows_exact) {
        g_autoptr(JsonParser) parser = json_parser_new();
        JsonObject *doc = parse_json(parser, text), *ev;
        JsonArray *events, *rows;
        long long total, sum = 0;
        bool seen[THREADS] = {}, main_seen = false;
        pid_t pid;

        assert_int_equal(json_object_get_int_member(doc, "exit_code"), 0);
        assert_int_equal(json_object_get_int_member(doc, "exit_status"), 0);
        assert_true(json_object_get_null_member(doc, "signal"));
        assert_true(json_object_get_boolean_member(doc, "consistent"));
        /* A software event: carried wherever pmapid inherits inside the kernel. */
        assert_int_equal(json_object_get_boolean_member(doc, "born_counting"), kernel_inheritance());
        pid = (pid_t) json_object_get_int_member(doc, "pid");
        events = json_object_get_array_member(doc, "events");
        assert_int_equal(json_array_get_length(events), 1);
        ev = json_array_get_object_element(events, 0);
        assert_string_equal(json_object_get_string_member(ev, "name"), "PM_PAGE_FLT");
        assert_string_equal(json_object_get_string_member(ev, "status"), "verified");
        total = json_object_get_int_member(ev, "count");

        rows = json_object_get_array_member(doc, "thread_rows");
        assert_int_equal(json_object_get_int_member(doc, "rows_dropped"), 0);
        assert_int_equal(json_array_get_length(rows), THREADS + 2);
        assert_int_equal(json_object_get_int_member(doc, "threads"), THREADS + 2);
        for (guint i = 0; i < json_array_get_length(rows); i++) {
                JsonObject *row = json_array_get_object_element(rows, i);
                const char *comm = json_object_get_string_member(row, "comm");
                JsonArray *counts = json_object_get_array_member(row, "counts");
                long long n;
                int w;

                assert_int_equal(json_object_get_int_member(row, "pid"), pid);
                assert_false(json_object_get_boolean_member(row, "alive"));
                assert_int_equal(json_array_get_length(counts), 1);
                n = json_array_get_int_element(counts, 0);
                sum += n;
                printf("# row %d/%" G_GINT64_FORMAT " %-14s %lld\n", (int) pid,
                       json_object_get_int_member(row, "tid"), comm, n);
                if (json_object_get_int_member(row, "tid") == pid) {
                        /* Named after the command by its exec, not "pmcount", which forked it. */
                        assert_string_equal(comm, "thread-pages");
                        main_seen = true;
                        assert_true(n >= PAGES * ROUNDS);
                } else if (sscanf(comm, "tp-worker-%d", &w) == 1) {
                        assert_in_range(w, 0, THREADS - 1);
                        assert_false(seen[w]);
                        seen[w] = true;
                        if (rows_exact)
                                assert_in_range(n, WORKER_PAGES(w) - 2, WORKER_PAGES(w) + 2);
                } else
                        assert_string_equal(comm, "tp-warm-up");
        }
        assert_true(main_seen);
        for (int w = 0; w < THREADS; w++)
                assert_true(seen[w]);
        /* A consistent group that was never reset is the sum of its members. */
        assert_int_equal(sum, total);
        if (ret_pid)
                *ret_pid = pid;
        return total;
}

/* perf stat's count of event (perf's name) on thread-pages, or -1. */
static long long perf_stat(const char *event) {
        char cmd[1024], line[512];
        long long v = -1;
        FILE *p;

        snprintf(cmd, sizeof(cmd), "perf stat -x, -e %s -- %s %d %d %d 2>&1 >/dev/null", event,
                 getenv("PMAPI_THREAD_PAGES"), THREADS, PAGES, ROUNDS);
        p = popen(cmd, "r");
        if (!p)
                return -1;
        while (fgets(line, sizeof(line), p))
                if (strstr(line, event))
                        v = atoll(line);
        pclose(p);
        return v;
}

static long long pmcount_total(const char *mode_option) {
        g_autoptr(JsonParser) parser = json_parser_new();
        JsonObject *doc;
        Run run;

        if (mode_option)
                run_pmcount(&run, mode_option, "-e", "PM_PAGE_FLT", "--json", "--", getenv("PMAPI_THREAD_PAGES"),
                            WORKLOAD_ARGS);
        else
                run_pmcount(&run, "-e", "PM_PAGE_FLT", "--json", "--", getenv("PMAPI_THREAD_PAGES"), WORKLOAD_ARGS);
        assert_int_equal(run.status, 0);
        doc = parse_json(parser, run.err);
        assert_int_equal(json_object_get_boolean_member(json_object_get_object_member(doc, "mode"), "kernel"),
                         mode_option != NULL);
        return json_object_get_int_member(json_array_get_object_element(json_object_get_array_member(doc, "events"),
                                                                        0), "count");
}

static void compare_with_perf(const char *perf_event, const char *mode_option) {
        long long perf = perf_stat(perf_event), ours = pmcount_total(mode_option);
        long long diff = ours > perf ? ours - perf : perf - ours;

        printf("# %s: perf stat %lld, pmcount %lld, difference %lld (%.4f %%)\n", perf_event, perf, ours,
               ours - perf, 100.0 * (double) diff / (double) perf);
        assert_true(perf >= 250000);
        assert_true(diff * 1000 <= perf);
}

static void test_totals_equal_perf_stat(void **state) {
        (void) state;
        if (system("perf stat -e page-faults true >/dev/null 2>&1") != 0) {
                print_message("# SKIP: perf stat does not run here\n");
                skip();
        }
        compare_with_perf("page-faults:u", NULL);
        compare_with_perf("page-faults", "-k");
}

/* Whether no slice was ambiguous since pmapid's AmbiguousSlices read before; says so if some were. */
static bool rows_exact_since(uint64_t before) {
        uint64_t n = ambiguous_slices() - before;

        if (n > 0)
                printf("# %llu ambiguous slices: the workers' rows are not each checked\n", (unsigned long long) n);
        return n == 0;
}

static void test_per_thread_rows_are_the_known_page_counts(void **state) {
        uint64_t ambiguous;
        Run run;

        (void) state;
        ambiguous = ambiguous_slices();
        run_pmcount(&run, "-e", "PM_PAGE_FLT", "--per-thread", "--json", "--", getenv("PMAPI_THREAD_PAGES"),
                    WORKLOAD_ARGS);
        assert_int_equal(run.status, 0);
        assert_string_equal(run.out, "");               /* the workload prints nothing, nor does pmcount */
        (void) check_workload_json(run.err, NULL, rows_exact_since(ambiguous));
}

/* The same as an unprivileged user: the preloaded module and the group work without root. */
static void test_per_thread_rows_for_an_unprivileged_user(void **state) {
        uint64_t ambiguous;
        Run run;

        (void) state;
        ambiguous = ambiguous_slices();
        run_pmcount_as(65534, &run, "-e", "PM_PAGE_FLT", "--per-thread", "--json", "--",
                       getenv("PMAPI_THREAD_PAGES"), WORKLOAD_ARGS, NULL);
        if (run.status != 0)
                printf("# stderr: %s\n", run.err);
        assert_int_equal(run.status, 0);
        (void) check_workload_json(run.err, NULL, rows_exact_since(ambiguous));
}

/* "1,234,567" as a number; -1 if it is not one. */
static long long parse_thousands(const char *s, size_t n) {
        long long v = 0;

        if (n == 0)
                return -1;
        for (size_t i = 0; i < n; i++) {
                if (s[i] == ',')
                        continue;
                if (!isdigit((unsigned char) s[i]))
                        return -1;
                v = v * 10 + (s[i] - '0');
        }
        return v;
}

/* The whitespace-separated words of a line, at most max. */
static size_t split_words(char *line, char **words, size_t max) {
        size_t n = 0;

        for (char *w = strtok(line, " \n"); w && n < max; w = strtok(NULL, " \n"))
                words[n++] = w;
        return n;
}

static void test_text_report_has_separators_status_and_thread_table(void **state) {
        char *line, *next, *words[16];
        long long total = -1, sum = 0;
        double rate = -1, elapsed = -1;
        bool in_threads = false, worker_rows[THREADS] = {};
        size_t n;
        Run run;

        (void) state;
        run_pmcount(&run, "-e", "PM_PAGE_FLT", "--per-thread", "--", getenv("PMAPI_THREAD_PAGES"), WORKLOAD_ARGS);
        assert_int_equal(run.status, 0);
        printf("%s", run.err);
        assert_non_null(strstr(run.err, "Process:"));
        assert_non_null(strstr(run.err, "exited with status 0\n"));
        assert_non_null(strstr(run.err, "Counting mode:  user\n"));
        assert_non_null(strstr(run.err, "Elapsed time:   "));
        elapsed = strtod(strstr(run.err, "Elapsed time:   ") + 16, NULL);
        assert_true(elapsed > 0);
        assert_non_null(strstr(run.err, "minor page faults\n"));
        for (line = run.err; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                if (strncmp(line, "Threads (", 9) == 0) {
                        in_threads = true;
                        continue;
                }
                n = split_words(line, words, ELEMENTSOF(words));
                if (n >= 3 && strcmp(words[1], "PM_PAGE_FLT") == 0) {
                        /* COUNT EVENT STATUS NOTE, with separators: 275,xxx, and a rate per second */
                        assert_string_equal(words[2], "verified");
                        assert_true(n == 5);
                        assert_non_null(strchr(words[0], ','));
                        total = parse_thousands(words[0], strlen(words[0]));
                        /* The unit follows the rate (perf stat's K/sec or M/sec): a fast run passes
                         * a million a second. The rate is the count over the elapsed time. */
                        assert_true(strcmp(words[4], "K/sec") == 0 || strcmp(words[4], "M/sec") == 0);
                        rate = strtod(words[3], NULL) * (words[4][0] == 'M' ? 1e6 : 1e3);
                } else if (in_threads && n == 5 && strcmp(words[0], "PID") != 0) {
                        long long v = parse_thousands(words[4], strlen(words[4]));
                        int w;

                        assert_string_equal(words[3], "exited");
                        assert_true(v >= 0);
                        sum += v;
                        if (sscanf(words[2], "tp-worker-%d", &w) == 1) {
                                assert_in_range(w, 0, THREADS - 1);
                                worker_rows[w] = true;
                                assert_in_range(v, WORKER_PAGES(w) - 2, WORKER_PAGES(w) + 2);
                                assert_non_null(strchr(words[4], ','));
                        }
                }
        }
        assert_true(total >= 250000);
        assert_int_equal(sum, total);
        printf("# rate %.0f/s, count over elapsed %.0f/s\n", rate, total / elapsed);
        assert_true(rate > 0.99 * total / elapsed && rate < 1.01 * total / elapsed);
        for (int w = 0; w < THREADS; w++)
                assert_true(worker_rows[w]);
}

static void test_csv_report_parses_and_adds_up(void **state) {
        static const char *const header[] = { "record", "pid", "tid", "comm", "state", "name", "status", "value",
                                              "enabled_ns", "running_ns", "percent_running" };
        long long total = -1, sum = 0, exit_code = -1;
        size_t n_workers = 0, n_threads = 0;
        char ***rows;
        Run run;

        (void) state;
        run_pmcount(&run, "-e", "PM_PAGE_FLT", "--per-thread", "--csv", "--", getenv("PMAPI_THREAD_PAGES"),
                    WORKLOAD_ARGS);
        assert_int_equal(run.status, 0);
        rows = csv_read(run.err);
        assert_non_null(rows[0]);
        for (size_t r = 0; rows[r]; r++) {
                char **fields = rows[r];

                assert_int_equal(g_strv_length(fields), 11);
                if (r == 0) {
                        for (int i = 0; i < 11; i++)
                                assert_string_equal(fields[i], header[i]);
                        continue;
                }
                if (strcmp(fields[0], "event") == 0) {
                        assert_string_equal(fields[5], "PM_PAGE_FLT");
                        assert_string_equal(fields[6], "verified");
                        total = atoll(fields[7]);
                } else if (strcmp(fields[0], "command") == 0 && strcmp(fields[5], "exit_code") == 0) {
                        exit_code = atoll(fields[7]);
                } else if (strcmp(fields[0], "thread") == 0) {
                        int w;

                        n_threads++;
                        assert_string_equal(fields[4], "exited");
                        assert_string_equal(fields[8], "");     /* a thread's row carries no times */
                        sum += atoll(fields[7]);
                        if (sscanf(fields[3], "tp-worker-%d", &w) == 1) {
                                n_workers++;
                                assert_in_range(atoll(fields[7]), WORKER_PAGES(w) - 2, WORKER_PAGES(w) + 2);
                        }
                }
        }
        csv_read_free(rows);
        assert_int_equal(exit_code, 0);
        assert_int_equal(n_threads, THREADS + 2);
        assert_int_equal(n_workers, THREADS);
        assert_true(total >= 250000);
        assert_int_equal(sum, total);
}

static void test_output_file_takes_the_report_and_leaves_stdout_to_the_command(void **state) {
        char path[512], report[65536];
        FILE *f;
        size_t n;
        Run run;

        (void) state;
        snprintf(path, sizeof(path), "%s/report.json", fixture.dir);
        run_pmcount(&run, "-o", path, "--json", "--", "/bin/echo", "hello from the command");
        assert_int_equal(run.status, 0);
        assert_string_equal(run.out, "hello from the command\n");
        assert_string_equal(run.err, "");
        f = fopen(path, "re");
        assert_non_null(f);
        n = fread(report, 1, sizeof(report) - 1, f);
        fclose(f);
        report[n] = '\0';
        {
                g_autoptr(JsonParser) parser = json_parser_new();
                JsonObject *doc = parse_json(parser, report);
                JsonArray *command = json_object_get_array_member(doc, "command");

                assert_string_equal(json_array_get_string_element(command, 0), "/bin/echo");
                assert_string_equal(json_array_get_string_element(command, 1), "hello from the command");
                /* The default events in user mode: the task clock ran, echo faulted pages in. */
                assert_true(json_array_get_length(json_object_get_array_member(doc, "events")) >= 4);
        }
        unlink(path);
}

static void test_exit_status_is_passed_through(void **state) {
        Run run;

        (void) state;
        run_pmcount(&run, "-e", "PM_PAGE_FLT", "--", getenv("PMAPI_THREAD_PAGES"), "1", "10", "1", "3");
        assert_int_equal(run.status, 3);
        assert_non_null(strstr(run.err, "exited with status 3\n"));

        run_pmcount(&run, "-e", "PM_PAGE_FLT", "--csv", "--", "/bin/sh", "-c", "kill -TERM $$");
        assert_int_equal(run.status, 128 + 15);
        assert_non_null(strstr(run.err, "command,,,,,signal,,15,,,\n"));      /* no count: no times */
        assert_non_null(strstr(run.err, "command,,,,,exit_code,,143,,,\n"));

        run_pmcount(&run, "--", "/bin/sh", "-c", "kill -KILL $$");
        assert_int_equal(run.status, 128 + 9);
        assert_non_null(strstr(run.err, "killed by signal 9"));
}

static void test_own_failures_are_told_apart(void **state) {
        char path[512];
        Run run;

        (void) state;
        run_pmcount(&run, "--", "/nonexistent/command");
        assert_int_equal(run.status, 127);
        assert_non_null(strstr(run.err, "/nonexistent/command: No such file or directory"));
        run_pmcount(&run, "--", "no-such-command-anywhere-on-path");
        assert_int_equal(run.status, 127);

        /* Found but not executable. */
        snprintf(path, sizeof(path), "%s/not-executable", fixture.dir);
        assert_true(fclose(fopen(path, "we")) == 0);
        run_pmcount(&run, "--", path);
        assert_int_equal(run.status, 126);
        unlink(path);

        run_pmcount(&run, "-e", "NO_SUCH_EVENT", "--", "/bin/true");
        assert_int_equal(run.status, 125);
        assert_non_null(strstr(run.err, "unknown event 'NO_SUCH_EVENT'"));
        run_pmcount(&run, "--csv", "--json", "--", "/bin/true");
        assert_int_equal(run.status, 125);
        run_pmcount(&run, "-e", "PM_PAGE_FLT");
        assert_int_equal(run.status, 125);
        assert_non_null(strstr(run.err, "no command given"));
        run_pmcount(&run, "-o", "/nonexistent/dir/report", "--", "/bin/true");
        assert_int_equal(run.status, 125);
        /* A group brings its events: not with -e; one this machine lacks is refused as an unknown event. */
        run_pmcount(&run, "-g", "1", "-e", "PM_PAGE_FLT", "--", "/bin/true");
        assert_int_equal(run.status, 125);
        assert_non_null(strstr(run.err, "-e and -g exclude each other"));
        run_pmcount(&run, "-g", "99", "--", "/bin/true");
        assert_int_equal(run.status, 125);
        assert_non_null(strstr(run.err, "no event group has id 99"));
        /* Nothing was left behind in pmapid: every group and context is gone. */
        assert_int_equal(wait_for_context_count(0, 2000), 0);
}

/* GetGroupMembers on thread (pid, tid): 0 and the rows, or -errno with the error's name. */
static int get_group_members(pid_t pid, pid_t tid, sd_bus_message **ret_reply, char *ret_error, size_t size) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus *bus = NULL;
        int r;

        r = sd_bus_open_system(&bus);
        if (r >= 0)
                r = sd_bus_call_method(bus, PMAPI_SERVICE, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE,
                                       "GetGroupMembers", &error, ret_reply, "ii", (int32_t) pid, (int32_t) tid);
        if (r < 0 && ret_error)
                snprintf(ret_error, size, "%s", error.name ? error.name : "");
        sd_bus_flush_close_unref(bus);
        return r;
}

static pid_t group_pid, group_tid;

static int other_user_reads_members(void *arg) {
        char name[256] = "";
        int r;

        (void) arg;
        r = get_group_members(group_pid, group_tid, NULL, name, sizeof(name));
        if (r >= 0 || strcmp(name, PMAPI_ERROR_NOT_OWNER) != 0) {
                fprintf(stderr, "GetGroupMembers by nobody: %d '%s'\n", r, name);
                return 1;
        }
        return 0;
}

/* The method itself: a live member is read live, under its name; another user is refused as
 * GetGroupData refuses it; a thread without a group has none. */
static void test_group_members_method_reads_live_members_and_checks_access(void **state) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const int64_t *counts;
        char comm_expected[16], name[256];
        const char *comm;
        int32_t pid, tid;
        uint32_t dropped;
        pm_info_t info;
        pm_prog_t prog = { .mode.w = PM_USER | PM_COUNT };
        size_t n_bytes;
        int alive, n = 0;
        FILE *f;

        (void) state;
        f = fopen("/proc/thread-self/comm", "re");
        assert_non_null(f);
        assert_non_null(fgets(comm_expected, sizeof(comm_expected), f));
        fclose(f);
        comm_expected[strcspn(comm_expected, "\n")] = '\0';

        assert_int_equal(pm_init(PM_VERIFIED, &info), 0);
        for (int c = 0; c < MAX_COUNTERS; c++)
                prog.events[c] = COUNT_NOTHING;
        for (int i = 0; i < info.maxevents[0]; i++)
                if (strcmp(info.list_events[0][i].short_name, "PM_PAGE_FLT") == 0)
                        prog.events[0] = info.list_events[0][i].event_id;
        assert_int_equal(get_group_members(getpid(), gettid(), NULL, name, sizeof(name)) < 0, true);
        assert_string_equal(name, PMAPI_ERROR_NO_CONTEXT);

        assert_int_equal(pm_set_program_mygroup(&prog), 0);
        assert_int_equal(touch_fresh_pages(100), 0);
        assert_int_equal(pm_stop_mythread(), 0);
        assert_true(get_group_members(getpid(), gettid(), &reply, NULL, 0) >= 0);
        assert_true(sd_bus_message_enter_container(reply, 'a', "(iisbax)") > 0);
        while (sd_bus_message_enter_container(reply, 'r', "iisbax") > 0) {
                assert_true(sd_bus_message_read(reply, "iisb", &pid, &tid, &comm, &alive) >= 0);
                assert_true(sd_bus_message_read_array(reply, 'x', (const void **) &counts, &n_bytes) >= 0);
                assert_int_equal(n_bytes, MAX_COUNTERS * sizeof(int64_t));
                assert_true(sd_bus_message_exit_container(reply) >= 0);
                assert_int_equal(pid, getpid());
                assert_int_equal(tid, gettid());
                assert_string_equal(comm, comm_expected);
                assert_true(alive);
                assert_in_range(counts[0], 100, 103);
                n++;
        }
        assert_int_equal(n, 1);
        assert_true(sd_bus_message_exit_container(reply) >= 0);
        assert_true(sd_bus_message_read(reply, "u", &dropped) >= 0);
        assert_int_equal(dropped, 0);

        group_pid = getpid();
        group_tid = gettid();
        assert_int_equal(run_as_nobody(other_user_reads_members, NULL), 0);
        assert_int_equal(pm_delete_program_mygroup(), 0);
}

static int setup(void **state) {
        static const char *const shared[] = { "PMAPI_PMCOUNT", "PMAPI_THREAD_PAGES", "PMAPI_PRELOAD", NULL };

        (void) state;
        if (bus_fixture_start(&fixture, NULL) != 0)
                return -1;
        /* Copies the tools, the workload, libpmapi and the preload module where nobody reaches
         * them, side by side as pmcount looks for the module. */
        return bus_fixture_share_programs(&fixture, shared);
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_totals_equal_perf_stat),
                cmocka_unit_test(test_per_thread_rows_are_the_known_page_counts),
                cmocka_unit_test(test_per_thread_rows_for_an_unprivileged_user),
                cmocka_unit_test(test_text_report_has_separators_status_and_thread_table),
                cmocka_unit_test(test_csv_report_parses_and_adds_up),
                cmocka_unit_test(test_output_file_takes_the_report_and_leaves_stdout_to_the_command),
                cmocka_unit_test(test_exit_status_is_passed_through),
                cmocka_unit_test(test_own_failures_are_told_apart),
                cmocka_unit_test(test_group_members_method_reads_live_members_and_checks_access),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
