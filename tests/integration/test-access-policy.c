/* test-access-policy.c: the [Access] section of pmapid.conf against a real pmapid, with callers of
 * real identities (forked children that take uid 65534 and the supplementary groups of the case
 * before they connect, since the bus keeps the groups of connect time). At perf_event_paranoid 3,
 * UserModeGroups lets its members count in user mode (and the kernel mode of the software events
 * they see anyway), KernelModeGroups in kernel mode too, in every scope: their own thread, their
 * group, another process of theirs as a thread or a group, their process tree; a caller in neither
 * is refused with a reason that names the key, and so is one that dropped its group after it
 * connected. OnlyGroups shuts everyone else out, pm_init included, and the log says why. A group
 * that does not exist keeps pmapid from starting; --check-config prints what a file means; pmcount
 * follows the same rules. The test sets perf_event_paranoid and puts the old value back however it
 * ends: teardown, exit, or SIGABRT/SIGTERM/SIGINT. */
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "paranoid.h"
#include "bus-names.h"
#include "check.h"
#include "pmapi.h"
#include "workload.h"

#define NOBODY 65534
#define GID_USERS 100           /* Debian's base-passwd: users (100) and staff (50) always exist */
#define GID_STAFF 50
#define PAGES 1000
#define PAGES_TEXT "1000"        /* the same, for touch-pages's argument */
#define SLACK 50                /* a thread's own: libpmapi's bus calls inside the counted window */
#define TREE_SLACK 500          /* a process tree: the fork, the exit and the caller's own calls */
#define EXEC_SLACK 1500         /* pmcount's command: exec, the loader and libc */
#define FILTER (PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT)

static const char access_conf[] = "[Access]\nUserModeGroups=users\nKernelModeGroups=staff\n";
static const char bad_conf[] = "[Access]\nUserModeGroups=no-such-group-pmapi\n";

static BusFixture fixture;
static int page_flt, hidden_event;      /* hidden: kernel mode not shown to owners, or -1 */

/* Who calls: uid 65534 with one supplementary group (or none), or root as it is. */
typedef struct Identity {
        const char *what;
        uid_t uid;
        gid_t group;                    /* 0: no supplementary group */
        bool keeps_root_to_drop;        /* saved uid 0, so it can drop its group after connecting */
} Identity;

static const Identity as_root = { "root", 0, 0, false };
static const Identity in_users = { "nobody in users", NOBODY, GID_USERS, false };
static const Identity in_staff = { "nobody in staff", NOBODY, GID_STAFF, false };
static const Identity in_none = { "nobody in no group", NOBODY, 0, false };
static const Identity drops_users = { "nobody that drops users", NOBODY, GID_USERS, true };

static int become(const Identity *id) {
        if (id->uid == 0)
                return 0;
        if (setgroups(id->group ? 1 : 0, &id->group) < 0 || setresgid(NOBODY, NOBODY, NOBODY) < 0 ||
            setresuid(id->uid, id->uid, id->keeps_root_to_drop ? 0 : id->uid) < 0)
                return -1;
        /* A uid change clears it; another process of the caller's must be traceable by it. */
        return prctl(PR_SET_DUMPABLE, 1);
}

/* fn(arg) in a forked child that has become id; its exit status (126: could not become it). */
static int run_client(const Identity *id, int (*fn)(void *arg), void *arg) {
        int status;
        pid_t pid;

        fprintf(stderr, "# client: %s\n", id->what);
        pid = fork();
        if (pid < 0)
                return -1;
        if (pid == 0)
                _exit(become(id) < 0 ? 126 : fn(arg));
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
                return -1;
        return WEXITSTATUS(status);
}

/* argv run as id, its stdout and stderr together in out; its exit status. */
static int run_program(const Identity *id, const char *const *argv, char *out, size_t size) {
        int fd = memfd_create("output", MFD_CLOEXEC), status;
        ssize_t n;
        pid_t pid;

        out[0] = '\0';
        if (fd < 0 || (pid = fork()) < 0)
                return -1;
        if (pid == 0) {
                if (dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0 || become(id) < 0 || chdir("/") < 0)
                        _exit(127);
                execv(argv[0], (char **) argv);
                _exit(127);
        }
        if (waitpid(pid, &status, 0) != pid)
                status = -1;
        n = pread(fd, out, size - 1, 0);
        out[n > 0 ? n : 0] = '\0';
        close(fd);
        fprintf(stderr, "# %s as %s: exit %d\n%s", argv[0], id->what, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                out);
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Whether pm_error's text for code (pmapid's reason for this thread's last failure) has word. */
static bool pm_error_says(int code, const char *word) {
        char text[2048];
        int fd = memfd_create("pm-error", MFD_CLOEXEC), saved = dup(STDERR_FILENO);
        ssize_t n;

        if (fd < 0 || saved < 0)
                return false;
        fflush(stderr);
        dup2(fd, STDERR_FILENO);
        pm_error((char *) "client", code);
        fflush(stderr);
        dup2(saved, STDERR_FILENO);
        close(saved);
        n = pread(fd, text, sizeof(text) - 1, 0);
        close(fd);
        text[n > 0 ? n : 0] = '\0';
        fprintf(stderr, "# pm_error: %s", text);
        return strstr(text, word) != NULL;
}

/* Another process of the caller's (same ids, same groups): touches PAGES pages for each byte
 * written to go, answers on done, exits at end of file. */
typedef struct Peer {
        pid_t pid;
        int go, done;
} Peer;

static int peer_start(Peer *p) {
        int go[2], done[2];
        char c;

        if (pipe2(go, O_CLOEXEC) < 0 || pipe2(done, O_CLOEXEC) < 0 || (p->pid = fork()) < 0)
                return -1;
        if (p->pid == 0) {
                close(go[1]);
                close(done[0]);
                while (read(go[0], &c, 1) == 1)
                        if (touch_fresh_pages(PAGES) != 0 || write(done[1], &c, 1) != 1)
                                _exit(1);
                _exit(0);
        }
        close(go[0]);
        close(done[1]);
        p->go = go[1];
        p->done = done[0];
        return 0;
}

static int peer_touch(const Peer *p) {
        char c = 'x';

        return write(p->go, &c, 1) == 1 && read(p->done, &c, 1) == 1 ? 0 : -1;
}

static void peer_stop(Peer *p) {
        close(p->go);
        close(p->done);
        (void) waitpid(p->pid, NULL, 0);
}

/* One scope: counts PAGES page faults in mode, or is refused with expected (then returns at once,
 * so that pm_error explains that refusal). */
typedef struct Expect {
        int mode;
        int expected;
        Peer peer;
} Expect;

static int scope_mythread(Expect *e) {
        pm_prog_t prog;
        pm_data_t d;

        program_one(&prog, e->mode | PM_COUNT, page_flt);
        CHECK_RC(pm_set_program_mythread(&prog), e->expected);
        if (e->expected != 0)
                return 0;
        CHECK(touch_fresh_pages(PAGES) == 0);
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(pm_get_data_mythread(&d), 0);
        CHECK_RANGE(d.accu[0], PAGES, PAGES + SLACK);
        CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

static void *touch_thread(void *arg) {
        (void) arg;
        return (void *) (intptr_t) touch_fresh_pages(PAGES);
}

static int scope_mygroup(Expect *e) {
        pm_prog_t prog;
        pm_data_t g;
        pthread_t t;
        void *ret;

        program_one(&prog, e->mode | PM_COUNT, page_flt);
        CHECK_RC(pm_set_program_mygroup(&prog), e->expected);
        if (e->expected != 0)
                return 0;
        CHECK(pthread_create(&t, NULL, touch_thread, NULL) == 0);
        CHECK(pthread_join(t, &ret) == 0 && ret == NULL);
        CHECK_RC(pm_get_data_mygroup(&g), 0);
        CHECK(g.ginfo.members == 2);
        CHECK_RANGE(g.accu[0], PAGES, PAGES + TREE_SLACK);
        CHECK_RC(pm_delete_program_mygroup(), 0);
        return 0;
}

static int scope_thread(Expect *e) {
        pid_t pid = e->peer.pid;
        pm_prog_t prog;
        pm_data_t d;

        program_one(&prog, e->mode | PM_COUNT, page_flt);
        CHECK_RC(pm_set_program_thread(pid, pid, &prog), e->expected);
        if (e->expected != 0)
                return 0;
        CHECK(peer_touch(&e->peer) == 0);
        CHECK_RC(pm_get_data_thread(pid, pid, &d), 0);
        CHECK_RANGE(d.accu[0], PAGES, PAGES + SLACK);
        CHECK_RC(pm_delete_program_thread(pid, pid), 0);
        return 0;
}

static int scope_group(Expect *e) {
        pid_t pid = e->peer.pid;
        pm_prog_t prog;
        pm_data_t g;

        program_one(&prog, e->mode | PM_COUNT, page_flt);
        CHECK_RC(pm_set_program_group(pid, pid, &prog), e->expected);
        if (e->expected != 0)
                return 0;
        CHECK(peer_touch(&e->peer) == 0);
        CHECK_RC(pm_get_data_group(pid, pid, &g), 0);
        CHECK(g.ginfo.members == 1);
        CHECK_RANGE(g.accu[0], PAGES, PAGES + SLACK);
        CHECK_RC(pm_delete_program_group(pid, pid), 0);
        return 0;
}

/* The caller's process tree: a child that touches the pages and exits; the CPUs add up. */
static int scope_proctree(Expect *e) {
        long long sum;
        pm_data_t total;
        int status;
        pm_prog_t prog;
        pid_t child;

        program_one(&prog, e->mode | PM_COUNT | PM_PROCTREE, page_flt);
        CHECK_RC(pm_set_program(&prog), e->expected);
        if (e->expected != 0)
                return 0;
        child = fork();
        if (child == 0)
                _exit(touch_fresh_pages(PAGES) == 0 ? 0 : 1);
        CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
        CHECK_RC(system_stop_and_sum_cpus(&total, &sum), 0);
        CHECK(sum == total.accu[0]);
        CHECK_RANGE(total.accu[0], PAGES, PAGES + TREE_SLACK);
        CHECK_RC(pm_delete_program(), 0);
        return 0;
}

static const struct {
        const char *name;
        int (*run)(Expect *e);
} scopes[] = {
        { "own thread", scope_mythread },
        { "own group", scope_mygroup },
        { "another process's thread", scope_thread },
        { "another process's group", scope_group },
        { "process tree", scope_proctree },
};

/* Every scope, each counting or refused as e says; a PM_EPERM refusal names UserModeGroups. */
static int scopes_body(void *arg) {
        Expect *e = arg;
        pm_info_t info;
        int r = 0;

        CHECK(peer_start(&e->peer) == 0);       /* before the first call: it inherits no connection */
        CHECK_RC(pm_init(FILTER, &info), 0);
        for (size_t i = 0; r == 0 && i < sizeof(scopes) / sizeof(scopes[0]); i++) {
                fprintf(stderr, "# scope: %s, mode 0x%x, expecting %d\n", scopes[i].name, e->mode, e->expected);
                r = scopes[i].run(e);
                if (r == 0 && e->expected == PM_EPERM && !pm_error_says(PM_EPERM, "UserModeGroups")) {
                        fprintf(stderr, "the refusal does not name UserModeGroups\n");
                        r = 1;
                }
        }
        peer_stop(&e->peer);
        return r;
}

/* Kernel mode of one event on the caller's own thread. */
typedef struct Kernel {
        int event;
        int expected;
} Kernel;

static int kernel_mode_body(void *arg) {
        const Kernel *k = arg;
        pm_info_t info;
        pm_prog_t prog;

        CHECK_RC(pm_init(FILTER, &info), 0);
        program_one(&prog, PM_USER | PM_KERNEL, k->event);
        CHECK_RC(pm_set_program_mythread(&prog), k->expected);
        if (k->expected == 0)
                CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

/* Connected while in users, then dropped it: the group it no longer holds grants nothing. */
static int dropped_group_body(void *arg) {
        pm_info_t info;
        pm_prog_t prog;

        (void) arg;
        CHECK_RC(pm_init(FILTER, &info), 0);
        program_one(&prog, PM_USER | PM_COUNT, page_flt);
        CHECK_RC(pm_set_program_mythread(&prog), 0);
        CHECK_RC(pm_delete_program_mythread(), 0);
        CHECK(seteuid(0) == 0 && setgroups(0, NULL) == 0 && setresuid(NOBODY, NOBODY, NOBODY) == 0);
        CHECK(getgroups(0, NULL) == 0);        /* dropped: a new connection would be refused */
        CHECK_RC(pm_set_program_mythread(&prog), PM_EPERM);
        return 0;
}

static void test_groups_allow_counting_at_paranoid_3(void **state) {
        Expect user = { PM_USER, 0 }, kernel = { PM_USER | PM_KERNEL, 0 }, refused = { PM_USER, PM_EPERM };
        Kernel k;

        (void) state;
        if (paranoid_set_for_test(3) < 0)
                skip();
        assert_int_equal(bus_fixture_restart_with_config(&fixture, access_conf), 0);

        assert_int_equal(run_client(&in_users, scopes_body, &user), 0);
        assert_int_equal(run_client(&in_users, scopes_body, &kernel), 0);      /* page faults: owner-visible */
        if (hidden_event > 0) {
                k = (Kernel) { hidden_event, PM_EKERNELMODE };
                assert_int_equal(run_client(&in_users, kernel_mode_body, &k), 0);
                k = (Kernel) { hidden_event, 0 };
                assert_int_equal(run_client(&in_staff, kernel_mode_body, &k), 0);
        } else
                fprintf(stderr, "# no event here hides its kernel-mode counts from owners: that part not run\n");
        assert_int_equal(run_client(&in_staff, scopes_body, &kernel), 0);
        assert_int_equal(run_client(&in_none, scopes_body, &refused), 0);
        assert_int_equal(run_client(&as_root, scopes_body, &kernel), 0);
}

static void test_a_group_dropped_after_connecting_grants_nothing(void **state) {
        (void) state;
        if (paranoid_set_for_test(3) < 0)
                skip();
        assert_int_equal(bus_fixture_restart_with_config(&fixture, access_conf), 0);
        assert_int_equal(run_client(&drops_users, dropped_group_body, NULL), 0);
}

static int init_refused_body(void *arg) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        pm_info_t info;
        sd_bus *bus = NULL;
        int r;

        (void) arg;
        CHECK_RC(pm_init(FILTER, &info), PM_EPERM);
        /* Any other Manager method too, straight over the bus. */
        CHECK(sd_bus_open_system(&bus) >= 0);
        r = sd_bus_call_method(bus, PMAPI_SERVICE, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE, "GetGroupMembersPage",
                               &error, NULL, "iiuu", (int32_t) getpid(), (int32_t) gettid(), 0u, 1u);
        fprintf(stderr, "# GetGroupMembersPage: %d %s: %s\n", r, error.name, error.message);
        CHECK(r < 0 && sd_bus_error_has_name(&error, PMAPI_ERROR_ACCESS_DENIED));
        sd_bus_error_free(&error);
        sd_bus_flush_close_unref(bus);
        return 0;
}

static int counts_own_thread_body(void *arg) {
        Expect e = { PM_USER, 0 };
        pm_info_t info;

        (void) arg;
        CHECK_RC(pm_init(FILTER, &info), 0);
        return scope_mythread(&e);
}

/* At paranoid 2, where anyone could count without it; one log line a refusal, none for members. */
static void test_only_groups_shuts_out_everyone_else(void **state) {
        int lines;

        (void) state;
        if (paranoid_set_for_test(2) < 0)
                skip();
        assert_int_equal(bus_fixture_restart_with_config(&fixture, "[Access]\nOnlyGroups=users\n"), 0);
        assert_int_equal(run_client(&in_none, init_refused_body, NULL), 0);
        assert_int_equal(run_client(&in_staff, init_refused_body, NULL), 0);
        assert_true(bus_fixture_log_has(&fixture, "Refused GetEvents", "uid 65534", "OnlyGroups", NULL));
        lines = bus_fixture_log_count(&fixture, "OnlyGroups", NULL);
        assert_true(lines >= 4);
        assert_int_equal(run_client(&in_users, counts_own_thread_body, NULL), 0);
        assert_int_equal(run_client(&as_root, counts_own_thread_body, NULL), 0);
        assert_int_equal(bus_fixture_log_count(&fixture, "OnlyGroups", NULL), lines);
}

static int init_works_body(void *arg) {
        pm_info_t info;

        (void) arg;
        CHECK_RC(pm_init(FILTER, &info), 0);
        return 0;
}

static void test_unknown_group_keeps_pmapid_from_starting(void **state) {
        (void) state;
        assert_int_not_equal(bus_fixture_restart_with_config(&fixture, bad_conf), 0);
        assert_true(bus_fixture_log_has(&fixture, "UserModeGroups", "no-such-group-pmapi", NULL));
        assert_int_equal(bus_fixture_restart_with_config(&fixture, ""), 0);
        assert_int_equal(run_client(&in_none, init_works_body, NULL), 0);
        assert_int_equal(run_client(&as_root, counts_own_thread_body, NULL), 0);
}

/* Whether text has a line equal to line (exact), or starting with it (prefix). */
static bool has_line(const char *text, const char *line, bool prefix) {
        size_t n = strlen(line);

        for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
                if (strncmp(p, line, n) == 0 && (prefix || p[n] == '\n' || p[n] == '\0'))
                        return true;
        return false;
}

static int check_config(const char *conf_text, char *out, size_t size) {
        const char *pmapid = getenv("PMAPI_TEST_PMAPID") ?: getenv("PMAPID");
        char path[300], arg[320];
        FILE *f;
        int r;

        snprintf(path, sizeof(path), "%s/check.conf", fixture.dir);
        snprintf(arg, sizeof(arg), "--config=%s", path);
        if (!pmapid || !(f = fopen(path, "we")))
                return -1;
        fputs(conf_text, f);
        if (fclose(f) != 0)
                return -1;
        r = run_program(&as_root, (const char *const[]) { pmapid, "--check-config", arg, NULL }, out, size);
        unlink(path);
        return r;
}

static void test_check_config_prints_what_a_file_means(void **state) {
        FILE *f = fopen(PARANOID_PATH, "re");
        char out[8192], paranoid[64];
        int now = -1;

        (void) state;
        if (f && fscanf(f, "%d", &now) != 1)
                now = -1;
        if (f)
                fclose(f);
        snprintf(paranoid, sizeof(paranoid), "perf_event_paranoid=%d", now);
        assert_int_equal(check_config(access_conf, out, sizeof(out)), 0);
        assert_true(has_line(out, "UserModeGroups=users (100)", false));
        assert_true(has_line(out, "KernelModeGroups=staff (50)", false));
        assert_true(has_line(out, "OnlyGroups=", false));
        assert_true(has_line(out, "MaxContextsPerUser=", true));
        assert_true(has_line(out, "MaxContexts=", true));
        assert_true(has_line(out, paranoid, true));                   /* the machine's, and its effect */

        /* Numeric gids and every separator. */
        assert_int_equal(check_config("[Access]\nUserModeGroups=50, users;  100\nOnlyGroups=100\n", out, sizeof(out)),
                         0);
        assert_true(has_line(out, "UserModeGroups=", true) && strstr(out, "staff (50)") && strstr(out, "users (100)"));
        assert_false(has_line(out, "OnlyGroups=", false));

        assert_int_not_equal(check_config(bad_conf, out, sizeof(out)), 0);
        assert_non_null(strstr(out, "UserModeGroups"));
        assert_non_null(strstr(out, "no-such-group-pmapi"));
}

/* The count of the one event in pmcount's JSON report, or -1. */
static long long json_event_count(const char *text) {
        const char *p = strstr(text, "\"events\"");

        if (!p || !(p = strstr(p, "\"count\"")))
                return -1;
        p += strlen("\"count\"");
        p += strspn(p, " :");
        return strtoll(p, NULL, 10);
}

static void test_pmcount_follows_the_groups_at_paranoid_3(void **state) {
        const char *pmcount = getenv("PMAPI_PMCOUNT"), *touch = getenv("PMAPI_TOUCH_PAGES");
        const char *const argv[] = { pmcount, "--json", "-e", "PM_PAGE_FLT", "--", touch, PAGES_TEXT, NULL };
        char out[16384];
        long long count;

        (void) state;
        assert_non_null(pmcount);
        assert_non_null(touch);
        if (paranoid_set_for_test(3) < 0)
                skip();
        assert_int_equal(bus_fixture_restart_with_config(&fixture, access_conf), 0);
        assert_int_equal(run_program(&in_users, argv, out, sizeof(out)), 0);
        count = json_event_count(out);
        assert_in_range(count, PAGES, PAGES + EXEC_SLACK);

        assert_int_equal(run_program(&in_none, argv, out, sizeof(out)), 125);
        assert_non_null(strstr(out, "UserModeGroups"));
}

static int restore_paranoid(void **state) {
        (void) state;
        paranoid_restore_for_test();
        return 0;
}

static bool group_is(gid_t gid, const char *name) {
        const struct group *g = getgrgid(gid);

        return g && strcmp(g->gr_name, name) == 0;
}

static int setup(void **state) {
        static const char *const shared[] = { "PMAPI_PMCOUNT", "PMAPI_TOUCH_PAGES", "PMAPI_PRELOAD", NULL };
        pm_info_t info;

        (void) state;
        if (!group_is(GID_USERS, "users") || !group_is(GID_STAFF, "staff")) {
                fprintf(stderr, "# this machine has no users (100) or staff (50) group\n");
                return -1;
        }
        if (bus_fixture_start(&fixture, NULL) != 0 || bus_fixture_share_programs(&fixture, shared) != 0)
                return -1;
        if (pm_init(FILTER, &info) != 0)
                return -1;
        page_flt = find_event_id(&info, "PM_PAGE_FLT");
        /* Counts no getrusage or /proc shows, so its kernel mode is not the owner's to see. */
        hidden_event = find_event_id(&info, "perf::PERF_COUNT_SW_CGROUP_SWITCHES");
        if (hidden_event < 0)
                hidden_event = find_event_id(&info, "PM_CYC");
        return page_flt > 0 ? 0 : -1;
}

static int teardown(void **state) {
        (void) state;
        paranoid_restore_for_test();
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_groups_allow_counting_at_paranoid_3, restore_paranoid),
                cmocka_unit_test_teardown(test_a_group_dropped_after_connecting_grants_nothing, restore_paranoid),
                cmocka_unit_test_teardown(test_only_groups_shuts_out_everyone_else, restore_paranoid),
                cmocka_unit_test(test_unknown_group_keeps_pmapid_from_starting),
                cmocka_unit_test(test_check_config_prints_what_a_file_means),
                cmocka_unit_test_teardown(test_pmcount_follows_the_groups_at_paranoid_3, restore_paranoid),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
