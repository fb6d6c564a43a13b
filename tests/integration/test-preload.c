/* test-preload.c: libpmapi-preload.so, what pmcount preloads into the commands it runs, against a
 * real pmapid, on preload-target, a workload not linked with libpmapi. Checked: a process that
 * neither creates a thread nor forks maps neither libpmapi nor libsystemd, and takes no more page
 * faults under pmcount than under pmcount --no-preload than the module's own pages can explain;
 * the thread whose creation loads libpmapi, and a later one, are counted from their first
 * instruction (their known page counts; pmapid attached neither late), as root and as an
 * unprivileged user; so is a process's first forked child; two threads racing to make the
 * process's first threads both get them, and the main thread's is exact whichever wins; so is it
 * when a thread libpmapi did not make calls first; libpmapi is found one directory up, as installed;
 * without it the module says so once and the program runs on libc's calls.
 * Where pmapid inherits inside the kernel (its KernelInheritance), pmcount preloads nothing and
 * marks nothing: the command maps neither the module nor libpmapi, and each of the same threads and
 * children is born counting, its row exactly what the kernel counted of its life (perf's, both
 * modes: pmcount -k), none attached late. The module itself is still what a pmapid without BPF
 * relies on: the last two tests run it without pmcount. */
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <systemd/sd-bus.h>

#include "bus-fixture.h"
#include "workload.h"
#include "csv-read.h"

#define PAGES 2000

/* The faults a thread row holds beyond its own touches (0 to 3 measured here). Its counted window
 * begins in the reply to its Inherit call: sd-bus frees the reply into heap pages a fresh thread's
 * arena may not have written yet (up to 3, test-inheritance's LIBRARY_FAULTS); it ends with the
 * thread's exit, whose libc code faults in once in the process, in the first thread that exits
 * (2 here). A thread attached late misses its first touches instead, or some of them: the upper
 * bound catches no such thread, the lower bound one that missed a single touch, and pmapid's
 * count of late attachments every one. */
#define THREAD_EXTRA 5
/* A forked child's window also begins with its Inherit reply, in libpmapi's fork(); then come
 * copy-on-write faults on the parent's pages it writes on its way out of fork() and into _exit():
 * stack, libpmapi's and libc's data (4 in all measured here). */
#define FORK_EXTRA 8
/* How many times the race of two first calls is run: each run is a new process, and which thread
 * loads libpmapi varies from run to run. */
#define RACE_RUNS 10
/* Runs of the no-thread workload in each mode: the median is compared. */
#define MAPS_RUNS 5

static BusFixture fixture;

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

/* Runs argv as uid (0: as we are); with preload, LD_PRELOAD=preload and no LD_LIBRARY_PATH, so
 * that only the module's own search finds libpmapi. */
static void run_argv(Run *run, uid_t uid, const char *preload, const char *const *argv) {
        int out = memfd_create("preload-out", MFD_CLOEXEC), err = memfd_create("preload-err", MFD_CLOEXEC);
        int status;
        pid_t pid;

        assert_true(out >= 0 && err >= 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                if (dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0)
                        _exit(99);
                if (uid != 0 && (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 ||
                                 setresuid(uid, uid, uid) < 0))
                        _exit(98);
                if (preload && (unsetenv("LD_LIBRARY_PATH") < 0 || setenv("LD_PRELOAD", preload, 1) < 0))
                        _exit(97);
                execv(argv[0], (char **) argv);
                _exit(96);
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        run->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        read_back(out, run->out, sizeof(run->out));
        read_back(err, run->err, sizeof(run->err));
}

/* pmcount as uid with the NULL-terminated arguments. */
static void run_pmcount_as(uid_t uid, Run *run, ...) {
        const char *argv[64];
        int argc = 0;
        va_list ap;

        argv[argc++] = getenv("PMAPI_PMCOUNT");
        assert_non_null(argv[0]);
        va_start(ap, run);
        while (argc < 63 && (argv[argc] = va_arg(ap, const char *)))
                argc++;
        va_end(ap);
        argv[argc] = NULL;
        run_argv(run, uid, NULL, argv);
        if (run->status != 0)
                printf("# pmcount exited with %d: %s\n", run->status, run->err);
}

#define run_pmcount(run, ...) run_pmcount_as(0, run, __VA_ARGS__, NULL)

static const char *target(void) {
        const char *t = getenv("PMAPI_PRELOAD_TARGET");

        assert_non_null(t);
        return t;
}

/* pmcount's --csv report: the value of the group's PM_PAGE_FLT (comm NULL, tid 0), of the thread
 * row whose comm is comm, or of the one whose tid is tid; -1 if there is none. Columns found by the
 * header's names. */
static long long csv_row_count(const char *csv, const char *comm, pid_t tid) {
        char ***rows = csv_read(csv);
        int record = -1, comm_col = -1, tid_col = -1, name = -1, value = -1;
        long long v = -1;

        assert_non_null(rows[0]);
        for (int i = 0; rows[0][i]; i++) {
                record = strcmp(rows[0][i], "record") == 0 ? i : record;
                comm_col = strcmp(rows[0][i], "comm") == 0 ? i : comm_col;
                tid_col = strcmp(rows[0][i], "tid") == 0 ? i : tid_col;
                name = strcmp(rows[0][i], "name") == 0 ? i : name;
                value = strcmp(rows[0][i], "value") == 0 ? i : value;
        }
        assert_true(record >= 0 && comm_col >= 0 && tid_col >= 0 && name >= 0 && value >= 0);
        for (size_t r = 1; rows[r]; r++) {
                char **f = rows[r];
                bool thread;

                if (g_strv_length(f) <= (guint) value || strcmp(f[name], "PM_PAGE_FLT") != 0)
                        continue;
                thread = strcmp(f[record], "thread") == 0;
                if (comm ? thread && strcmp(f[comm_col], comm) == 0
                         : tid > 0 ? thread && atoi(f[tid_col]) == tid : strcmp(f[record], "event") == 0) {
                        assert_int_equal(v, -1);        /* one row each */
                        v = atoll(f[value]);
                }
        }
        csv_read_free(rows);
        return v;
}

static long long csv_count(const char *csv, const char *comm) {
        return csv_row_count(csv, comm, 0);
}

/* The directory of PMAPI_PRELOAD (the module pmcount finds), with a trailing slash. */
static void module_dir(char *buf, size_t size) {
        const char *m = getenv("PMAPI_PRELOAD");

        assert_non_null(m);
        assert_non_null(strrchr(m, '/'));
        snprintf(buf, size, "%.*s/", (int) (strrchr(m, '/') - m), m);
}

/* The target's "libpmapi PATH" line: one libpmapi was loaded, from beside the module pmcount used. */
static void assert_libpmapi_beside_module(const Run *run) {
        char dir[512], *line = strstr(run->out, "libpmapi ");
        char real_dir[PATH_MAX], real_lib[PATH_MAX], lib[PATH_MAX];

        assert_non_null(line);
        assert_null(strstr(line + 1, "libpmapi "));
        module_dir(dir, sizeof(dir));
        snprintf(lib, sizeof(lib), "%.*s", (int) strcspn(line + 9, "\n"), line + 9);
        assert_non_null(realpath(dir, real_dir));
        assert_non_null(realpath(lib, real_lib));
        assert_true(strncmp(real_lib, real_dir, strlen(real_dir)) == 0);
        assert_null(strchr(real_lib + strlen(real_dir) + 1, '/'));
}

/* Where pmapid inherits inside the kernel: nothing was loaded into the command. */
static void assert_libpmapi_loaded(const Run *run, bool kernel) {
        if (kernel)
                assert_non_null(strstr(run->out, "libpmapi none\n"));
        else
                assert_libpmapi_beside_module(run);
}

/* The tid the target printed for its thread name ("tid NAME TID"). */
static pid_t target_tid(const Run *run, const char *name) {
        g_auto(GStrv) lines = g_strsplit(run->out, "\n", -1);
        char key[64];

        snprintf(key, sizeof(key), "tid %s ", name);
        for (char **l = lines; *l; l++)
                if (g_str_has_prefix(*l, key))
                        return (pid_t) atoi(*l + strlen(key));
        fail_msg("preload-target printed no tid for %s: %s", name, run->out);
        return 0;
}

/* Born threads against the kernel's own count of their lives (the target's "kernel-lives NAMES N"
 * and "kernel-at-end NAME N" lines): the rows of each line's threads add up to N exactly, and each
 * toucher's row holds at least what the kernel counted before its exit. Rows are found by tid: a
 * thread named after a row that pmapid never named is no answer here. Returns how many lives were
 * compared. */
static int check_kernel_counts(const Run *run) {
        g_auto(GStrv) lines = g_strsplit(run->out, "\n", -1);
        int n_lives = 0;

        for (char **l = lines; *l; l++) {
                g_auto(GStrv) words = g_strsplit(*l, " ", -1), names = NULL;
                long long kernel, sum = 0;

                if (g_strv_length(words) != 3 ||
                    (strcmp(words[0], "kernel-lives") != 0 && strcmp(words[0], "kernel-at-end") != 0))
                        continue;
                kernel = atoll(words[2]);
                names = g_strsplit(words[1], ",", -1);
                for (char **n = names; *n; n++) {
                        long long v = csv_row_count(run->err, NULL, target_tid(run, *n));

                        assert_true(v >= 0);
                        sum += v;
                }
                printf("# %s %s: rows %lld, kernel %lld\n", words[0], words[1], sum, kernel);
                if (strcmp(words[0], "kernel-lives") == 0) {
                        assert_int_equal(sum, kernel);
                        n_lives++;
                } else
                        assert_true(sum >= kernel && kernel >= PAGES);
        }
        return n_lives;
}

static int cmp_ll(const void *a, const void *b) {
        long long x = *(const long long *) a, y = *(const long long *) b;
        return (x > y) - (x < y);
}

static long long median(long long *v, int n) {
        qsort(v, (size_t) n, sizeof(*v), cmp_ll);
        return v[n / 2];
}

/* (a) The module alone is what such a process pays. Its page faults under pmcount exceed those
 * under --no-preload (the same run without LD_PRELOAD) by at most one per page the module maps,
 * plus MODULE_SLACK: a second fault on its writable page (read by the dynamic linker, then written
 * by relocation), its link map in the loader's heap, its thread-local variable in the static TLS
 * block, and LD_PRELOAD itself, which may push the environment onto another stack page; and one
 * for the checkout's path, whose length (in argv, the environment and the loader's strings) moves
 * the run without the module across a stack page boundary or not. Measured: 6 to 8 faults for 5
 * pages in /work/main, 7 to 10 in a clone under /tmp (its 58 to 60 faults without the module
 * against 60 to 61). A module that loads libpmapi and libsystemd at start costs about 80 more. */
#define MODULE_SLACK 5

static void test_process_without_threads_or_children_maps_only_the_module(void **state) {
        long long with[MAPS_RUNS], without[MAPS_RUNS], diff;
        bool kernel = kernel_inheritance();
        int module_pages = 0;
        const char *line;
        Run run;

        (void) state;
        run_pmcount(&run, "-e", "PM_PAGE_FLT", "--csv", "--", target(), "maps");
        printf("%s", run.out);
        assert_int_equal(run.status, 0);               /* 3: libpmapi or libsystemd was mapped */
        assert_non_null(strstr(run.out, "libpmapi none\n"));
        line = strstr(run.out, "module-pages ");
        assert_non_null(line);
        module_pages = atoi(line + 13);
        line = strstr(run.out, "LD_PRELOAD ");
        assert_non_null(line);
        if (kernel) {
                /* Born counting, the command needs nothing: it runs as it is, as under perf stat. */
                assert_int_equal(module_pages, 0);
                assert_null(strstr(line, "libpmapi-preload.so"));
                assert_non_null(strstr(run.out, "PMAPI_INHERIT unset\n"));
                return;
        }
        assert_true(module_pages > 0);                  /* the module was there: the check means something */
        assert_non_null(strstr(run.out, "PMAPI_INHERIT 1\n"));

        for (int i = 0; i < MAPS_RUNS; i++) {
                run_pmcount(&run, "-k", "-e", "PM_PAGE_FLT", "--csv", "--", target(), "maps");
                assert_int_equal(run.status, 0);
                with[i] = csv_count(run.err, NULL);
                run_pmcount(&run, "-k", "-e", "PM_PAGE_FLT", "--csv", "--no-preload", "--", target(), "maps");
                assert_int_equal(run.status, 0);
                without[i] = csv_count(run.err, NULL);
                assert_true(with[i] > 0 && without[i] > 0);
        }
        diff = median(with, MAPS_RUNS) - median(without, MAPS_RUNS);
        printf("# page faults of the process: %lld with the module, %lld without, difference %lld; "
               "the module maps %d pages\n", median(with, MAPS_RUNS), median(without, MAPS_RUNS), diff,
               module_pages);
        assert_true(diff <= module_pages + MODULE_SLACK);
}

/* (b) The first thread made through pthread_create loads libpmapi, and it and a later one count from
 * their first instruction; pmapid attached neither from its fork record. Born counting, each row is
 * its thread's whole life as the kernel counted it. */
static void threads_are_counted_exactly(uid_t uid) {
        uint64_t late = attached_late();
        bool kernel = kernel_inheritance();
        long long first, second, total;
        Run run;

        run_pmcount_as(uid, &run, kernel ? "-k" : "-u", "-e", "PM_PAGE_FLT", "--per-thread", "--csv", "--", target(),
                       "threads", G_STRINGIFY(PAGES), NULL);
        assert_int_equal(run.status, 0);
        first = csv_row_count(run.err, NULL, target_tid(&run, "pt-first"));
        second = csv_row_count(run.err, NULL, target_tid(&run, "pt-second"));
        total = csv_count(run.err, NULL);
        printf("# uid %d: pt-first %lld, pt-second %lld (pages %d and %d), group %lld, attached late %llu\n",
               (int) uid, first, second, PAGES, 2 * PAGES, total,
               (unsigned long long) (attached_late() - late));
        if (kernel)
                assert_int_equal(check_kernel_counts(&run), 2);
        else {
                assert_in_range(first, PAGES, PAGES + THREAD_EXTRA);
                assert_in_range(second, 2 * PAGES, 2 * PAGES + THREAD_EXTRA);
        }
        assert_true(total >= first + second);
        assert_true(attached_late() == late);
        assert_libpmapi_loaded(&run, kernel);
}

static void test_threads_created_after_start_count_from_their_first_instruction(void **state) {
        (void) state;
        threads_are_counted_exactly(0);
        threads_are_counted_exactly(65534);
}

/* (c) The first fork() loads libpmapi in the parent; the child counts from fork()'s return. Born
 * counting, from its first instruction in the kernel: its whole life, as wait4 gives it (the
 * kernel's copy-on-write faults writing its tid included, hence -k). */
static void test_first_forked_child_counts_from_fork(void **state) {
        uint64_t late = attached_late();
        bool kernel = kernel_inheritance();
        long long child;
        Run run;

        (void) state;
        run_pmcount(&run, kernel ? "-k" : "-u", "-e", "PM_PAGE_FLT", "--per-thread", "--csv", "--", target(), "fork",
                    G_STRINGIFY(PAGES));
        assert_int_equal(run.status, 0);
        child = csv_row_count(run.err, NULL, target_tid(&run, "pt-child"));
        printf("# pt-child %lld (pages %d), attached late %llu\n", child, PAGES,
               (unsigned long long) (attached_late() - late));
        if (kernel)
                assert_int_equal(check_kernel_counts(&run), 1);
        else
                assert_in_range(child, PAGES, PAGES + FORK_EXTRA);
        assert_true(attached_late() == late);
        assert_libpmapi_loaded(&run, kernel);
}

/* The main thread's new thread is exact and called Inherit; pt-libc, which libc's own
 * pthread_create made, and pt-other, which pt-libc made (libpmapi does not know that pt-libc has a
 * context, so it asks no Inherit for it), were attached from their fork records: 2 late. Born
 * counting, however they were made, all three are what the kernel counted of their lives, and
 * none was attached late. */
static void check_main_and_other(const Run *run, uint64_t late_before, bool kernel, int n_lives) {
        long long own = csv_row_count(run->err, NULL, target_tid(run, "pt-main"));
        long long other = csv_row_count(run->err, NULL, target_tid(run, "pt-other"));
        uint64_t late = attached_late() - late_before;

        printf("# pt-main %lld, pt-other %lld (pages %d each), attached late %llu\n", own, other, PAGES,
               (unsigned long long) late);
        if (kernel) {
                assert_int_equal(check_kernel_counts(run), n_lives);
                assert_int_equal(late, 0);
        } else {
                assert_in_range(own, PAGES, PAGES + THREAD_EXTRA);
                assert_in_range(other, 0, PAGES + THREAD_EXTRA);
                assert_int_equal(late, 2);
        }
        assert_libpmapi_loaded(run, kernel);
}

/* libpmapi loaded by a thread other than the main one: its constructor cannot mark the main thread
 * itself, which must still pass its context on. */
static void test_first_call_from_another_thread_leaves_main_exact(void **state) {
        uint64_t late = attached_late();
        bool kernel = kernel_inheritance();
        Run run;

        (void) state;
        run_pmcount(&run, kernel ? "-k" : "-u", "-e", "PM_PAGE_FLT", "--per-thread", "--csv", "--", target(),
                    "late-first", G_STRINGIFY(PAGES));
        assert_int_equal(run.status, 0);
        check_main_and_other(&run, late, kernel, 3);    /* pt-other, pt-libc with it, pt-main */
}

/* (d) Two threads make the process's first threads at once: one loads libpmapi, the other waits
 * for it; both threads are made, one libpmapi is mapped, and the main thread's is exact. */
static void test_two_threads_racing_to_create_the_first_thread(void **state) {
        bool kernel = kernel_inheritance();
        Run run;

        (void) state;
        for (int i = 0; i < RACE_RUNS; i++) {
                uint64_t late = attached_late();

                run_pmcount(&run, kernel ? "-k" : "-u", "-e", "PM_PAGE_FLT", "--per-thread", "--csv", "--", target(),
                            "race", G_STRINGIFY(PAGES));
                assert_int_equal(run.status, 0);
                check_main_and_other(&run, late, kernel, 1);    /* their lives overlap: one sum */
        }
}

static int copy_file(const char *from, const char *to) {
        char buf[65536];
        int in = open(from, O_RDONLY | O_CLOEXEC), out;
        ssize_t n = 0;

        if (in < 0)
                return -1;
        out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
        while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
                if (write(out, buf, (size_t) n) != n)
                        n = -1;
        close(in);
        return out >= 0 && close(out) == 0 && n == 0 ? 0 : -1;
}

/* The installed layout (libdir/libpmapi.so.1, libdir/pmapi/libpmapi-preload.so), copied into the
 * fixture's directory, with no LD_LIBRARY_PATH: the module finds libpmapi one directory up. */
static void test_module_finds_libpmapi_one_directory_up(void **state) {
        char lib[400], sub[420], module[460], libpmapi[420], src[520], expect[460];
        const char *argv[] = { target(), "fork", "10", NULL };
        Run run;

        (void) state;
        snprintf(lib, sizeof(lib), "%s/lib", fixture.dir);
        snprintf(sub, sizeof(sub), "%s/pmapi", lib);
        snprintf(module, sizeof(module), "%s/libpmapi-preload.so", sub);
        snprintf(libpmapi, sizeof(libpmapi), "%s/libpmapi.so.1", lib);
        module_dir(src, sizeof(src) - 16);
        strcat(src, "libpmapi.so.1");
        assert_int_equal(mkdir(lib, 0755), 0);
        assert_int_equal(mkdir(sub, 0755), 0);
        assert_int_equal(copy_file(getenv("PMAPI_PRELOAD"), module), 0);
        assert_int_equal(copy_file(src, libpmapi), 0);

        run_argv(&run, 0, module, argv);
        printf("%s%s", run.out, run.err);
        unlink(module);
        unlink(libpmapi);
        rmdir(sub);
        rmdir(lib);
        assert_int_equal(run.status, 0);
        assert_string_equal(run.err, "");
        snprintf(expect, sizeof(expect), "libpmapi %s\n", libpmapi);
        assert_non_null(strstr(run.out, expect));
}

/* The module alone: the first call cannot load libpmapi, says so once, and the program's threads
 * and children are made by libc's calls. */
static void test_without_libpmapi_the_module_says_so_once(void **state) {
        char dir[400], module[440], *first;
        const char *threads[] = { target(), "threads", "10", NULL }, *forks[] = { target(), "fork", "10", NULL };
        static Run runs[2];

        (void) state;
        if (system("ldconfig -p | grep -q libpmapi.so.1") == 0) {
                print_message("# SKIP: libpmapi.so.1 is installed on this machine, where the module finds it\n");
                skip();
        }
        snprintf(dir, sizeof(dir), "%s/alone", fixture.dir);
        snprintf(module, sizeof(module), "%s/libpmapi-preload.so", dir);
        assert_int_equal(mkdir(dir, 0755), 0);
        assert_int_equal(copy_file(getenv("PMAPI_PRELOAD"), module), 0);
        run_argv(&runs[0], 0, module, threads);
        run_argv(&runs[1], 0, module, forks);
        unlink(module);
        rmdir(dir);
        for (int i = 0; i < 2; i++) {
                printf("%s%s", runs[i].out, runs[i].err);
                assert_int_equal(runs[i].status, 0);
                assert_non_null(strstr(runs[i].out, "libpmapi none\n"));
                first = strstr(runs[i].err, "cannot use libpmapi.so.1");
                assert_non_null(first);
                assert_null(strstr(first + 1, "cannot use libpmapi.so.1"));
        }
}

static int setup(void **state) {
        static const char *const shared[] = { "PMAPI_PMCOUNT", "PMAPI_PRELOAD", "PMAPI_PRELOAD_TARGET", NULL };

        (void) state;
        if (bus_fixture_start(&fixture, NULL) != 0)
                return -1;
        /* pmcount, the module, the target and libpmapi side by side where nobody reaches them, as
         * pmcount looks for the module and the module for libpmapi. */
        return bus_fixture_share_programs(&fixture, shared);
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_process_without_threads_or_children_maps_only_the_module),
                cmocka_unit_test(test_threads_created_after_start_count_from_their_first_instruction),
                cmocka_unit_test(test_first_forked_child_counts_from_fork),
                cmocka_unit_test(test_first_call_from_another_thread_leaves_main_exact),
                cmocka_unit_test(test_two_threads_racing_to_create_the_first_thread),
                cmocka_unit_test(test_module_finds_libpmapi_one_directory_up),
                cmocka_unit_test(test_without_libpmapi_the_module_says_so_once),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
