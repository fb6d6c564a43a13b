/* test-system.c: the system scope (pm_set_program(3)) against a real pmapid: per-CPU counts of a
 * workload pinned with taskset land on its CPU, the CPUs add up to pm_get_data, PM_PROCTREE counts
 * the owner's tree and nothing else (also for an unprivileged owner), one process at a time counts
 * every process while process trees of other owners count beside it (4 per uid), the
 * owner's death releases everything, CPU numbers are checked, and a CPU that goes offline keeps
 * its counts. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "check.h"
#include "pmapi.h"
#include "workload.h"

#define PAGES 20000
/* Two execs (taskset, then the toucher) fault in their loader, libc and stack. */
#define EXEC_SLACK 1500

static BusFixture fixture;

static long long cpu_count(int cpu) {
        pm_data_t d;

        return pm_get_data_lcpu(cpu, &d) == 0 ? d.accu[0] : -1;
}

/* Every CPU's data adds up to pm_get_data (read while stopped, so nothing moves in between). */
static int check_cpus_add_up(void) {
        long long sum;
        pm_data_t total, d;

        CHECK_RC(system_stop_and_sum_cpus(&total, &sum), 0);
        CHECK(sum == total.accu[0]);
        /* pm_get_data_cpu numbers the CPUs online now: CPU 0 is always the first of them. */
        CHECK_RC(pm_get_data_cpu(0, &d), 0);
        CHECK(d.accu[0] == cpu_count(0));
        return 0;
}

/* Root, every process: a workload pinned to CPU n shows on CPU n and not on the others. */
static void test_pinned_workload_lands_on_its_cpu(void **state) {
        int n = last_online_cpu();
        long long before_n, after_n, before_0, after_0;
        pm_prog_t prog;

        (void) state;
        assert_int_equal(page_fault_program(&prog, PM_USER | PM_COUNT), 0);
        assert_int_equal(pm_set_program(&prog), 0);
        before_n = cpu_count(n);
        before_0 = cpu_count(0);
        assert_int_equal(run_pinned(n, PAGES), 0);
        after_n = cpu_count(n);
        after_0 = cpu_count(0);
        printf("# CPU %d: +%lld page faults, CPU 0: +%lld for %d pages touched on CPU %d\n", n, after_n - before_n,
               after_0 - before_0, PAGES, n);
        assert_true(after_n - before_n >= PAGES);
        if (n != 0)
                assert_true(after_0 - before_0 < PAGES / 2);
        assert_int_equal(check_cpus_add_up(), 0);
        assert_int_equal(pm_delete_program(), 0);
}

/* The owner's tree, and not an unrelated process that touches five times as many pages meanwhile;
 * the same for root and for nobody, who may use the system scope only this way. */
static int proctree_body(void *arg) {
        int *go = arg;                  /* [0]: starts the outsider, [1]: closed when it is done */
        int n = last_online_cpu();
        pm_prog_t prog;
        pm_data_t d;
        char c;

        CHECK(page_fault_program(&prog, PM_USER | PM_COUNT) == 0);
        if (getuid() != 0) {
                CHECK_RC(pm_set_program(&prog), PM_ESYSROOT);
        }
        prog.mode.w |= PM_PROCTREE;
        CHECK_RC(pm_set_program(&prog), 0);
        CHECK(write(go[0], "x", 1) == 1);
        CHECK(run_pinned(n, PAGES) == 0);
        CHECK(read(go[1], &c, 1) == 0); /* the outsider has finished */
        CHECK_RC(pm_get_data(&d), 0);
        printf("# proctree (uid %d): %lld page faults for %d pages in the tree, %d outside\n", (int) getuid(),
               d.accu[0], PAGES, 5 * PAGES);
        CHECK_RANGE(d.accu[0], PAGES, PAGES + EXEC_SLACK);
        CHECK(cpu_count(n) >= PAGES);
        CHECK(check_cpus_add_up() == 0);
        /* A reset zeroes what exited children left in the inherit counters too. */
        CHECK_RC(pm_reset_data(), 0);
        CHECK_RC(pm_get_data(&d), 0);
        CHECK(d.accu[0] == 0);
        /* Stopped: the tree's work is not counted. */
        CHECK(run_pinned(n, 1000) == 0);
        CHECK_RC(pm_get_data(&d), 0);
        CHECK(d.accu[0] == 0);
        CHECK_RC(pm_get_program(&prog), 0);
        CHECK((prog.mode.w & (PM_PROCTREE | PM_COUNT | PM_USER)) == (PM_PROCTREE | PM_USER));
        CHECK_RC(pm_delete_program(), 0);
        CHECK_RC(pm_get_data(&d), PM_ENOCONTEXT);
        return 0;
}

static void run_proctree(uid_t uid) {
        int go[2], done[2], status;
        pid_t outsider;
        char c;

        assert_int_equal(pipe(go), 0);
        assert_int_equal(pipe(done), 0);
        outsider = fork();
        assert_true(outsider >= 0);
        if (outsider == 0) {
                close(go[1]);
                close(done[0]);
                if (read(go[0], &c, 1) != 1)
                        _exit(1);
                _exit(touch_fresh_pages(5 * PAGES) == 0 ? 0 : 1);      /* done[1] closes at exit */
        }
        close(go[0]);
        close(done[1]);
        assert_int_equal(run_as(uid, uid, proctree_body, (int[]) { go[1], done[0] }), 0);
        close(go[1]);
        close(done[0]);
        assert_int_equal(waitpid(outsider, &status, 0), outsider);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_proctree_counts_only_the_tree(void **state) {
        (void) state;
        run_proctree(0);
        run_proctree(65534);
}

/* One process at a time counts every process: a second one is refused with a message naming the
 * owner, and has no context to read; the owner cannot set twice; a process tree of its own it may
 * count meanwhile; after the owner deletes, the second one may count every process. */
static int second_owner_body(void *arg) {
        int *sync = arg;                /* [0]: read to wait for the owner's delete */
        char path[] = "/tmp/pmapi-test-system-XXXXXX", text[512] = "", expected[64], c;
        pm_prog_t prog, tree;
        pm_data_t d;
        int fd, saved;
        ssize_t l;

        CHECK(page_fault_program(&prog, PM_USER) == 0);
        CHECK(page_fault_program(&tree, PM_USER | PM_PROCTREE) == 0);
        CHECK_RC(pm_set_program(&prog), PM_ESYSBUSY);
        CHECK_RC(pm_get_data(&d), PM_ESYSBUSY);
        CHECK_RC(pm_delete_program(), PM_ESYSBUSY);
        CHECK_RC(pm_get_data_lcpu(0, &d), PM_ESYSBUSY);
        /* pm_error says who holds the counters. */
        fd = mkstemp(path);
        CHECK(fd >= 0);
        CHECK_RC(pm_set_program(&prog), PM_ESYSBUSY);
        saved = dup(2);
        dup2(fd, 2);
        pm_error((char *) "pm_set_program", PM_ESYSBUSY);
        dup2(saved, 2);
        close(saved);
        l = pread(fd, text, sizeof(text) - 1, 0);
        close(fd);
        unlink(path);
        CHECK(l > 0);
        snprintf(expected, sizeof(expected), "pid %d", (int) getppid());
        fprintf(stderr, "# %s", text);
        CHECK(strstr(text, expected) != NULL);
        CHECK_RC(pm_set_program(&tree), 0);                     /* beside the owner's */
        CHECK_RC(pm_get_data(&d), 0);
        CHECK_RC(pm_delete_program(), 0);
        CHECK(read(sync[0], &c, 1) == 1);
        CHECK_RC(pm_set_program(&prog), 0);
        CHECK_RC(pm_delete_program(), 0);
        return 0;
}

static void test_second_owner_is_refused(void **state) {
        int sync[2], status;
        pm_prog_t prog;
        pid_t child;

        (void) state;
        assert_int_equal(page_fault_program(&prog, PM_USER), 0);
        assert_int_equal(pm_set_program(&prog), 0);
        assert_int_equal(pm_set_program(&prog), PM_EEXIST);
        assert_int_equal(pipe(sync), 0);
        child = fork();
        assert_true(child >= 0);
        if (child == 0)
                _exit(second_owner_body(sync));
        sleep(1);                       /* the child's refusals happen while we own the counters */
        assert_int_equal(pm_delete_program(), 0);
        assert_int_equal(write(sync[1], "x", 1), 1);
        assert_int_equal(waitpid(child, &status, 0), child);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
        close(sync[0]);
        close(sync[1]);
}

/* A process of uid 65534 that counts its own tree (PM_PROCTREE) until told to go: it reports the rc
 * of its pm_set_program, then, if it got a context, the count of its own touch of `pages`. */
typedef struct TreeOwner {
        pid_t pid;
        int report, go;                 /* the test's ends of the two pipes */
} TreeOwner;

static int tree_owner_body(int report, int go, long pages) {
        pm_prog_t prog;
        pm_data_t d;
        long long count = -1;
        int rc;
        char c;

        CHECK(page_fault_program(&prog, PM_USER | PM_PROCTREE | PM_COUNT) == 0);
        rc = pm_set_program(&prog);
        if (rc == 0 && touch_fresh_pages((size_t) pages) == 0 && pm_get_data(&d) == 0)
                count = d.accu[0];
        CHECK(write(report, &rc, sizeof(rc)) == sizeof(rc) && write(report, &count, sizeof(count)) == sizeof(count));
        CHECK(read(go, &c, 1) >= 0);
        return 0;
}

static int tree_owner_start(TreeOwner *t, long pages, int *ret_rc, long long *ret_count) {
        int report[2], go[2];

        CHECK(pipe(report) == 0 && pipe(go) == 0);
        t->pid = fork();
        CHECK(t->pid >= 0);
        if (t->pid == 0) {
                close(report[0]);
                close(go[1]);
                _exit(setresgid(65534, 65534, 65534) == 0 && setresuid(65534, 65534, 65534) == 0 ?
                      tree_owner_body(report[1], go[0], pages) : 126);
        }
        close(report[1]);
        close(go[0]);
        t->report = report[0];
        t->go = go[1];
        CHECK(read(t->report, ret_rc, sizeof(*ret_rc)) == sizeof(*ret_rc));
        CHECK(read(t->report, ret_count, sizeof(*ret_count)) == sizeof(*ret_count));
        return 0;
}

static void tree_owner_stop(TreeOwner *t) {
        (void) write(t->go, "x", 1);    /* later owners hold this pipe too: no EOF, a byte */
        close(t->go);
        close(t->report);
        waitpid(t->pid, NULL, 0);
}

/* A user's process trees neither keep root from counting every process nor are kept from it, each
 * counts only its own tree, and one uid may own SYSTEM_OWNERS_MAX_PER_UID (4) at a time. */
static void test_user_process_trees_coexist_with_root_counting_everything(void **state) {
        int fds_before = settled_fds(fixture.daemon_pid), fds = -1;
        TreeOwner t[5];
        pm_prog_t prog;
        pm_data_t d;
        long long count;
        int rc;

        (void) state;
        for (int i = 0; i < 5; i++) {
                assert_int_equal(tree_owner_start(&t[i], 300 * (i + 1), &rc, &count), 0);
                if (i < 4) {
                        assert_int_equal(rc, 0);
                        assert_in_range(count, 300 * (i + 1), 300 * (i + 1) + 100);     /* its own, not the others' */
                } else
                        assert_int_equal(rc, PM_ELIMIT);
        }
        assert_int_equal(page_fault_program(&prog, PM_USER | PM_COUNT), 0);
        assert_int_equal(pm_set_program(&prog), 0);             /* root counts everything beside them */
        assert_int_equal(touch_fresh_pages(1000), 0);
        assert_int_equal(pm_get_data(&d), 0);
        assert_true(d.accu[0] >= 1000);
        tree_owner_stop(&t[0]);
        tree_owner_stop(&t[4]);
        assert_int_equal(tree_owner_start(&t[4], 200, &rc, &count), 0);        /* t[0]'s exit freed a place */
        assert_int_equal(rc, 0);
        assert_in_range(count, 200, 300);
        assert_int_equal(pm_delete_program(), 0);
        for (int i = 1; i < 5; i++)
                tree_owner_stop(&t[i]);
        fds = wait_for_fds(fixture.daemon_pid, fds_before, 2000);    /* pmapid sees the exits on its own time */
        assert_int_equal(fds, fds_before);
}

static int system_owner_pid(void) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus *bus = NULL;
        int32_t pid = -1;

        if (sd_bus_open_system(&bus) >= 0)
                (void) sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1",
                                                   "org.pmapi.PerfMon1.Manager", "SystemOwnerPid", &error, 'i',
                                                   &pid);
        sd_bus_error_free(&error);
        sd_bus_flush_close_unref(bus);
        return pid;
}

/* An owner that exits without deleting releases the counters and their fds. */
static void test_owner_exit_releases_everything(void **state) {
        int fds_before = settled_fds(fixture.daemon_pid), status, owner = -1;
        pm_prog_t prog;
        pid_t child;

        (void) state;
        assert_int_equal(page_fault_program(&prog, PM_USER | PM_COUNT), 0);
        child = fork();
        assert_true(child >= 0);
        if (child == 0)
                _exit(pm_set_program(&prog) == 0 && system_owner_pid() == getpid() ? 0 : 1);
        assert_int_equal(waitpid(child, &status, 0), child);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        for (int i = 0; i < 200 && (owner = system_owner_pid()) != 0; i++)
                usleep(10000);
        assert_int_equal(owner, 0);
        assert_int_equal(wait_for_fds(fixture.daemon_pid, fds_before, 2000), fds_before);
        assert_int_equal(pm_set_program(&prog), 0);
        assert_int_equal(pm_delete_program(), 0);
}

/* CPU numbers: a CPU that never was online, an index past the online ones, negative ids; a mode
 * the scope does not take; calls without a context. */
static void test_cpu_ids_and_bad_input(void **state) {
        int online = (int) sysconf(_SC_NPROCESSORS_ONLN);
        pm_prog_t prog;
        pm_data_t d;

        (void) state;
        assert_int_equal(page_fault_program(&prog, PM_USER | PM_PROCESS), 0);
        assert_int_equal(pm_set_program(&prog), PM_EMODE);
        assert_int_equal(pm_get_data(&d), PM_ENOCONTEXT);
        assert_int_equal(pm_start(), PM_ENOCONTEXT);
        assert_int_equal(pm_set_program(NULL), PM_EFAULT);
        prog.mode.w = PM_USER;
        assert_int_equal(pm_set_program(&prog), 0);
        assert_int_equal(pm_get_data(NULL), PM_EFAULT);
        assert_int_equal(pm_get_data_lcpu(4095, &d), PM_ECPU);
        assert_int_equal(pm_get_data_lcpu(-1, &d), PM_ECPU);
        assert_int_equal(pm_get_data_cpu(online, &d), PM_ECPU);
        assert_int_equal(pm_get_data_cpu(-1, &d), PM_ECPU);
        assert_int_equal(pm_get_data_cpu(online - 1, &d), 0);
        assert_int_equal(pm_start(), 0);
        assert_int_equal(pm_start(), 0);
        assert_int_equal(pm_stop(), 0);
        assert_int_equal(pm_stop(), 0);
        assert_int_equal(pm_delete_program(), 0);
        assert_int_equal(pm_delete_program(), PM_ENOCONTEXT);
}

static int write_online(int cpu, int on) {
        char path[64];
        int fd, r = 0;

        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
        fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (write(fd, on ? "1" : "0", 1) != 1)
                r = -errno;
        close(fd);
        return r;
}

/* A CPU that goes offline keeps its last counts, every event of the group (and leaves the cpuid
 * numbering); back online it counts on from them. Needs a second CPU that may be taken offline. */
static void test_offline_cpu_keeps_its_counts(void **state) {
        int n = last_online_cpu(), online = (int) sysconf(_SC_NPROCESSORS_ONLN);
        long long before, offline, back;
        pm_prog_t prog;
        pm_data_t d;
        int r;

        (void) state;
        if (n == 0) {
                skip();
                return;
        }
        /* tests/guest/in-guest.sh: a Debian 5.10 guest under QEMU's TCG once hung for good bringing
         * the CPU back online (the guest, not pmapid: the kernel's last words were the CPU's boot). */
        if (getenv("PMAPI_TEST_NO_CPU_HOTPLUG")) {
                printf("# SKIP: no CPU hotplug in this QEMU guest (PMAPI_TEST_NO_CPU_HOTPLUG)\n");
                skip();
                return;
        }
        assert_int_equal(page_fault_program(&prog, PM_USER | PM_COUNT), 0);
        assert_int_equal(pm_set_program(&prog), 0);
        assert_int_equal(run_pinned(n, PAGES), 0);
        before = cpu_count(n);
        r = write_online(n, 0);
        if (r < 0) {
                printf("# CPU %d cannot go offline here: %s\n", n, strerror(-r));
                assert_int_equal(pm_delete_program(), 0);
                skip();
                return;
        }
        usleep(200000);
        offline = cpu_count(n);
        /* The kernel breaks a group up at offline: the second event keeps its own count. */
        assert_int_equal(pm_get_data_lcpu(n, &d), 0);
        assert_true(d.accu[1] >= PAGES);
        assert_int_equal(pm_get_data_cpu(online - 1, &d), PM_ECPU);     /* one CPU fewer to number */
        assert_int_equal(run_pinned(0, 1000), 0);
        assert_int_equal(cpu_count(n), offline);
        assert_int_equal(write_online(n, 1), 0);
        for (int i = 0; i < 100 && (int) sysconf(_SC_NPROCESSORS_ONLN) < online; i++)
                usleep(10000);
        usleep(200000);                 /* pmapid's uevent */
        assert_int_equal(run_pinned(n, PAGES), 0);
        back = cpu_count(n);
        printf("# CPU %d: %lld before offline, %lld while offline, %lld after %d more pages back online\n", n, before,
               offline, back, PAGES);
        assert_true(offline >= before);
        assert_true(back >= offline + PAGES);
        assert_int_equal(check_cpus_add_up(), 0);
        assert_int_equal(pm_delete_program(), 0);
}

/* Every CPU online again, even after a failed assertion left one offline. */
static int online_every_cpu(void **state) {
        (void) state;
        for (int c = 1; c < (int) sysconf(_SC_NPROCESSORS_CONF); c++)
                (void) write_online(c, 1);
        return 0;
}

static int setup(void **state) {
        (void) state;
        if (bus_fixture_start(&fixture, NULL) != 0)
                return 1;
        return bus_fixture_share_programs(&fixture, (const char *const[]) { "PMAPI_TOUCH_PAGES", NULL });
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_pinned_workload_lands_on_its_cpu),
                cmocka_unit_test(test_proctree_counts_only_the_tree),
                cmocka_unit_test(test_second_owner_is_refused),
                cmocka_unit_test(test_user_process_trees_coexist_with_root_counting_everything),
                cmocka_unit_test(test_owner_exit_releases_everything),
                cmocka_unit_test(test_cpu_ids_and_bad_input),
                cmocka_unit_test_teardown(test_offline_cpu_keeps_its_counts, online_every_cpu),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
