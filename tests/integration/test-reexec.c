/* test-reexec.c: a planned restart of pmapid (SIGHUP: it re-executes itself, as `systemctl reload
 * pmapid` and an upgrade do) keeps every context, group, dead member's record and system-wide
 * context, with counts exact across it: pages touched while pmapid re-executes are counted too.
 * The same process answers (same pid), under a new bus name that lists the old one in
 * Predecessors; a context deleted after the re-exec is plain PM_ENOCONTEXT, not PM_ERESTARTED;
 * ownership rules hold as before; no fd leaks. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "cgroup-tree.h"
#include "check.h"
#include "pmapi.h"
#include "stepper.h"
#include "workload.h"

static BusFixture fixture;

static char **predecessors(void) {
        sd_bus *bus = NULL;
        char **l = NULL;

        if (sd_bus_open_system(&bus) >= 0)
                (void) sd_bus_get_property_strv(bus, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1",
                                                "org.pmapi.PerfMon1.Manager", "Predecessors", NULL, &l);
        sd_bus_flush_close_unref(bus);
        return l;
}

static size_t strv_free_length(char **l) {
        size_t n = 0;

        for (char **p = l; p && *p; p++, n++)
                free(*p);
        free(l);
        return n;
}

/* pmapid's fds that are perf counters (its own fork watch included). */
static int perf_fds(pid_t pid) {
        return perf_fds_of(pid, NULL, 0);
}

/* Sends SIGHUP and returns once the new image serves: it lists one more predecessor. */
static int reexec_pmapid(void) {
        size_t before = strv_free_length(predecessors());

        CHECK(kill(fixture.daemon_pid, SIGHUP) == 0);
        for (int i = 0; i < 500; i++) {
                if (strv_free_length(predecessors()) == before + 1)
                        return 0;
                usleep(10 * 1000);
        }
        fprintf(stderr, "pmapid did not come back from SIGHUP\n");
        return -1;
}

/* Only root may signal pmapid: a client running as nobody asks the test's root process through a
 * pipe, and a helper thread there sends SIGHUP ('k') or sends it and waits for the new image ('w'),
 * then answers. */
static int request_fd[2] = { -1, -1 }, answer_fd[2] = { -1, -1 };

static void *reexec_helper(void *arg) {
        char c;

        (void) arg;
        while (read(request_fd[0], &c, 1) == 1) {
                char ok = c == 'w' ? (reexec_pmapid() == 0 ? 'y' : 'n') :
                                     (kill(fixture.daemon_pid, SIGHUP) == 0 ? 'y' : 'n');
                if (write(answer_fd[1], &ok, 1) != 1)
                        break;
        }
        return NULL;
}

static int request_reexec(bool wait) {
        char c = wait ? 'w' : 'k', ok = 'n';

        if (geteuid() == 0)
                return wait ? reexec_pmapid() : kill(fixture.daemon_pid, SIGHUP);
        CHECK(write(request_fd[1], &c, 1) == 1 && read(answer_fd[0], &ok, 1) == 1);
        return ok == 'y' ? 0 : -1;
}

/* Runs fn as nobody while the helper serves its requests. */
static int run_as_nobody_with_helper(int (*fn)(void *arg)) {
        pthread_t helper;
        int r;

        if (pipe(request_fd) < 0 || pipe(answer_fd) < 0 || pthread_create(&helper, NULL, reexec_helper, NULL) != 0)
                return -1;
        r = run_as_nobody(fn, NULL);
        close(request_fd[1]);           /* the helper's read ends */
        pthread_join(helper, NULL);
        close(request_fd[0]);
        close(answer_fd[0]);
        close(answer_fd[1]);
        return r;
}

/* A thread context counts on across the re-exec, pages touched during it included, in the same
 * pmapid process; its program is the one set. A worker of this process does nothing but touch
 * pages, and this thread programs and reads it as a third party: its counts are exact. */
static int thread_context_body(void *arg) {
        pm_prog_t prog, got;
        Stepper w;
        pid_t tid;
        pm_data_t d;

        (void) arg;
        CHECK(page_fault_program(&prog, PM_USER | PM_COUNT) == 0);
        CHECK(stepper_start(&w, false) == 0);
        stepper_step(&w, 1);                             /* faults its stack in before counting */
        tid = w.tid;
        CHECK_RC(pm_set_program_thread(getpid(), tid, &prog), 0);
        stepper_step(&w, 1000);
        CHECK(request_reexec(false) == 0);
        stepper_step(&w, 500);                           /* while pmapid re-executes */
        CHECK_RC(pm_get_data_thread(getpid(), tid, &d), 0);     /* waits for the name if need be */
        CHECK_NEAR(d.accu[0], 1500, 2);
        CHECK_RC(pm_get_program_thread(getpid(), tid, &got), 0);
        CHECK(got.mode.w == prog.mode.w && got.events[0] == prog.events[0]);
        CHECK_RC(pm_stop_thread(getpid(), tid), 0);
        stepper_step(&w, 100);
        CHECK_RC(pm_get_data_thread(getpid(), tid, &d), 0);
        CHECK_NEAR(d.accu[0], 1500, 2);                 /* stopped means stopped */
        CHECK_RC(pm_delete_program_thread(getpid(), tid), 0);
        CHECK_RC(pm_get_data_thread(getpid(), tid, &d), PM_ENOCONTEXT);        /* deleted, not lost */
        stepper_stop(&w);
        return 0;
}

/* Every counter used (eight with software events), with the private leader of reads in process:
 * every counter keeps its slot. */
static void test_eight_events_keep_their_slots(void **state) {
        pm_data_t before, after;
        pm_prog_t prog = { .mode.w = PM_USER | PM_COUNT }, got;
        pm_info_t info;
        int flt = -1;
        pm_accu_time_t times_before, times_after;

        (void) state;
        assert_int_equal(pm_init(PM_VERIFIED | PM_CAVEAT | PM_UNVERIFIED, &info), 0);
        assert_true(info.maxevents[0] >= 2 && info.maxpmcs >= 2);
        /* A different event on each counter the PMU has (8 with software events only, 6 on a
         * Cortex-A57) while the catalog has them (8 software events from Linux 5.13, 7 before: no
         * cgroup switches), then again from the first. */
        for (int c = 0; c < MAX_COUNTERS; c++) {
                int k = c < info.maxpmcs ? c % info.maxevents[c] : -1;

                prog.events[c] = k < 0 ? COUNT_NOTHING : info.list_events[c][k].event_id;
                if (k < 0)
                        continue;
                if (flt < 0 && strcmp(info.list_events[c][k].short_name, "PM_PAGE_FLT") == 0)
                        flt = c;
        }
        assert_true(flt >= 0);
        assert_int_equal(pm_set_program_mythread(&prog), 0);
        assert_int_equal(touch_fresh_pages(300), 0);
        assert_int_equal(pm_reset_data_mythread(), 0);          /* its time base crosses too */
        assert_int_equal(touch_fresh_pages(300), 0);
        assert_int_equal(pm_stop_mythread(), 0);
        assert_int_equal(pm_get_Tdata_mythread(&before, &times_before), 0);
        assert_true(before.accu[flt] >= 300);
        assert_int_equal(reexec_pmapid(), 0);
        assert_int_equal(pm_get_Tdata_mythread(&after, &times_after), 0);
        assert_memory_equal(before.accu, after.accu, sizeof(before.accu));
        assert_memory_equal(&times_before, &times_after, sizeof(times_before));
        assert_true(PM_TB_TO_NS(times_after.accu_timebase) > 0);
        assert_int_equal(pm_get_program_mythread(&got), 0);
        assert_memory_equal(got.events, prog.events, sizeof(prog.events));
        assert_int_equal(pm_delete_program_mythread(), 0);
}

static void test_thread_context_survives_as_root(void **state) {
        pid_t before = fixture.daemon_pid;

        (void) state;
        assert_int_equal(thread_context_body(NULL), 0);
        assert_int_equal(kill(before, 0), 0);           /* the same process, re-executed */
}

static void test_thread_context_survives_as_nobody(void **state) {
        (void) state;
        assert_int_equal(run_as_nobody_with_helper(thread_context_body), 0);
}

/* A group with a member that died before the re-exec (its record stays), one alive across it and
 * one created after it (attached from its fork record or its library's Inherit): the group's data
 * is the sum of its members' own (each read by the member itself: exact but for what a dying
 * thread does after its last read), its member count and consistency flag as before. */
static int group_body(void *arg) {
        Stepper dead, alive, late;
        long long sum;
        pm_prog_t prog;
        pm_data_t d, own;

        (void) arg;
        CHECK(page_fault_program(&prog, PM_USER | PM_COUNT) == 0);
        CHECK_RC(pm_set_program_mygroup(&prog), 0);
        CHECK(stepper_start(&dead, true) == 0 && stepper_start(&alive, true) == 0);
        stepper_step(&dead, 400);
        stepper_stop(&dead);
        stepper_step(&alive, 300);                       /* counted, and the thread stays alive */
        CHECK(touch_fresh_pages(100) == 0);
        CHECK(request_reexec(true) == 0);
        CHECK(stepper_start(&late, true) == 0);
        stepper_step(&late, 200);
        CHECK_RC(pm_get_data_mygroup(&d), 0);
        CHECK_RC(pm_get_data_mythread(&own), 0);
        sum = own.accu[0] + dead.own.accu[0] + alive.own.accu[0] + late.own.accu[0];
        CHECK(dead.own.accu[0] >= 400 && alive.own.accu[0] >= 300 && late.own.accu[0] >= 200 && own.accu[0] >= 100);
        /* The dead one's exit path, and our own read. Born inside the kernel, a thread counts its
         * whole exit, glibc's part included: in a forked child (run_as_nobody) its writes there are
         * copy-on-write faults too (seen: 5). */
        CHECK_NEAR(d.accu[0], sum, kernel_inheritance() ? 8 : 4);
        CHECK(d.ginfo.members == 4 && d.ginfo.flags.b.consistent);     /* as before, the late one added */
        stepper_stop(&alive);
        stepper_stop(&late);
        CHECK_RC(pm_delete_program_mygroup(), 0);
        return 0;
}

static void test_group_survives_as_root(void **state) {
        (void) state;
        assert_int_equal(group_body(NULL), 0);
}

static void test_group_survives_as_nobody(void **state) {
        (void) state;
        assert_int_equal(run_as_nobody_with_helper(group_body), 0);
}

/* The system-wide context keeps its owner (another process is still refused) and counts on. */
static void test_system_context_survives(void **state) {
        pm_prog_t prog;
        pm_data_t before, after;
        int status;
        pid_t pid;

        (void) state;
        assert_int_equal(page_fault_program(&prog, PM_USER | PM_COUNT), 0);
        assert_int_equal(pm_set_program(&prog), 0);
        assert_int_equal(touch_fresh_pages(2000), 0);
        assert_int_equal(pm_get_data(&before), 0);
        assert_int_equal(reexec_pmapid(), 0);
        assert_int_equal(touch_fresh_pages(3000), 0);
        assert_int_equal(pm_get_data(&after), 0);
        assert_true(before.accu[0] >= 2000);
        assert_true(after.accu[0] - before.accu[0] >= 3000);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
                _exit(pm_set_program(&prog) == PM_ESYSBUSY ? 0 : 1);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        assert_int_equal(pm_delete_program(), 0);
}

/* A cgroup context counts on exactly across the re-exec; one whose cgroup is removed while pmapid
 * re-executes comes back with its last counts and says it was removed. */
static void test_cgroup_contexts_survive(void **state) {
        Worker w;
        pm_prog_t prog;
        pm_data_t d;
        pm_wpar_ctx_info_t info;
        cid_t kept, gone;
        int n = 1;

        (void) state;
        if (cgroup_tree_setup() < 0)
                skip();
        assert_int_equal(cgroup_tree_make("kept"), 0);
        assert_int_equal(cgroup_tree_make("gone"), 0);
        kept = cgroup_tree_id("kept");
        gone = cgroup_tree_id("gone");
        assert_int_equal(worker_start(&w, 0), 0);
        assert_int_equal(page_fault_program(&prog, PM_USER | PM_COUNT), 0);
        assert_int_equal(pm_set_program_wp(kept, &prog), 0);
        assert_int_equal(pm_set_program_wp(gone, &prog), 0);
        assert_int_equal(cgroup_tree_move("gone", w.pid), 0);
        assert_int_equal(worker_touch(&w, 1000), 0);
        assert_int_equal(cgroup_tree_move("kept", w.pid), 0);
        assert_int_equal(worker_touch(&w, 2000), 0);
        assert_int_equal(cgroup_tree_remove("gone"), 0);
        assert_int_equal(reexec_pmapid(), 0);
        assert_int_equal(worker_touch(&w, 3000), 0);
        assert_int_equal(pm_get_data_wp(kept, &d), 0);
        assert_int_equal(d.accu[0], 2000 + 3000);
        assert_int_equal(pm_get_data_wp(gone, &d), 0);
        assert_int_equal(d.accu[0], 1000);
        assert_int_equal(pm_get_wplist(cgroup_tree_path("gone"), &info, &n), 0);
        assert_true(n == 1 && info.cid == gone && info.removed == 1);
        assert_int_equal(pm_start_wp(gone), PM_ENOCGROUP);
        assert_int_equal(pm_delete_program_wp(gone), 0);
        assert_int_equal(pm_delete_program_wp(kept), 0);
        worker_stop(&w);
        cgroup_tree_teardown();
}

/* Another user cannot reach root's context after the re-exec either. (The context does not pass to
 * children: a forked child that inherits one asks pmapid before it drops root, and its connection
 * keeps root's identity, as any fd opened before setuid would.) */
static int refused_body(void *arg) {
        pm_data_t d;

        CHECK_RC(pm_get_data_thread(((pid_t *) arg)[0], ((pid_t *) arg)[1], &d), PM_ENOTOWNER);
        return 0;
}

static void test_ownership_and_fds_are_kept(void **state) {
        pm_prog_t prog;
        pid_t self[2] = { getpid(), gettid() };
        pm_data_t d;
        int fds_before, fds_after;

        (void) state;
        assert_int_equal(page_fault_program(&prog, PM_USER | PM_COUNT | PM_NO_INHERIT), 0);
        assert_int_equal(pm_set_program_mythread(&prog), 0);
        fds_before = perf_fds(fixture.daemon_pid);
        assert_true(fds_before > 0);
        for (int i = 0; i < 3; i++)
                assert_int_equal(reexec_pmapid(), 0);
        fds_after = perf_fds(fixture.daemon_pid);
        assert_int_equal(fds_after, fds_before);
        assert_int_equal(strv_free_length(predecessors()) >= 3, 1);
        assert_int_equal(run_as_nobody(refused_body, self), 0);
        assert_int_equal(pm_get_data_mythread(&d), 0);
        assert_int_equal(pm_delete_program_mythread(), 0);
        assert_true(bus_fixture_log_has(&fixture, "Restored from the previous image", NULL));
}

static int setup(void **state) {
        pm_info_t info;

        (void) state;
        if (bus_fixture_start_bus(&fixture) != 0)
                return -1;
        fixture.capture_log = true;
        if (bus_fixture_start_daemon(&fixture, NULL) != 0)
                return -1;
        return pm_init(PM_VERIFIED, &info);
}

static int teardown(void **state) {
        (void) state;
        cgroup_tree_teardown();         /* what a failed cgroup case left */
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_thread_context_survives_as_root),
                cmocka_unit_test(test_thread_context_survives_as_nobody),
                cmocka_unit_test(test_group_survives_as_root),
                cmocka_unit_test(test_group_survives_as_nobody),
                cmocka_unit_test(test_system_context_survives),
                cmocka_unit_test(test_cgroup_contexts_survive),
                cmocka_unit_test(test_ownership_and_fds_are_kept),
                cmocka_unit_test(test_eight_events_keep_their_slots),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
