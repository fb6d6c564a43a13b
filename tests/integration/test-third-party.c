/* test-third-party.c: what the _thread, _group, _pthread and _pgroup calls do to another process,
 * with the counts checked against the pages its threads touch: reprogramming a running target is
 * delete + set and counts from zero, and the target's own later calls work on the new context
 * (scenario S2 without a debugger); a target that never called pmapi is counted; a process group
 * and a descendant group made from outside follow AIX's group rules with the target thread as the
 * calling thread; a stopped target works like a running one; the pthread forms take ptid 0 or
 * tid; bad arguments get clear errors; busctl and ListContexts show who made which context. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <systemd/sd-bus.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "check.h"
#include "pmapi.h"
#include "target.h"
#include "workload.h"

#define NOBODY 65534

static BusFixture fixture;
static int page_flt, minor_flt;

/* Counters 0 and 1; the others count nothing. */
static void program(pm_prog_t *prog, int mode, int e0, int e1) {
        program_one(prog, mode, e0);
        prog->events[1] = e1;
}

static void start_nobody_target(Target *t, int n_threads) {
        TargetIdentity id = TARGET_UID(NOBODY);
        assert_int_equal(target_start(t, &id, n_threads), 0);
}

#define assert_near(v, expected, tolerance) \
        assert_in_range((v), (uint64_t) (expected), (uint64_t) (expected) + (tolerance))

static void test_reprogramming_a_running_target_is_delete_and_set(void **state) {
        long long own[MAX_COUNTERS];
        pm_prog_t prog, got;
        pm_data_t d;
        Target t;

        (void) state;
        start_nobody_target(&t, 2);
        pid_t pid = t.pid, tid = t.tids[1];
        assert_int_equal(target_pm_init(&t), 0);
        /* Warm the thread's allocator with one call: its own later reads must not add faults. */
        assert_int_equal(target_get_data_mythread(&t, 1, own), PM_ENOCONTEXT);

        program(&prog, PM_USER | PM_COUNT, page_flt, minor_flt);
        assert_int_equal(pm_set_program_thread(pid, tid, &prog), 0);
        assert_int_equal(target_touch(&t, 1, 100), 0);
        assert_int_equal(pm_get_data_thread(pid, tid, &d), 0);
        assert_near(d.accu[0], 100, 2);

        /* Reprogram: counter 0 now counts what counter 1 did; the new context starts at zero. */
        assert_int_equal(pm_get_program_thread(pid, tid, &got), 0);
        assert_int_equal(pm_delete_program_thread(pid, tid), 0);
        got.events[0] = minor_flt;
        assert_int_equal(pm_set_program_thread(pid, tid, &got), 0);            /* count bit still 1 */
        assert_int_equal(pm_get_data_thread(pid, tid, &d), 0);
        assert_int_equal(d.accu[0], 0);
        assert_int_equal(d.accu[1], 0);
        assert_int_equal(target_touch(&t, 1, 200), 0);
        assert_int_equal(pm_get_data_thread(pid, tid, &d), 0);
        assert_near(d.accu[0], 200, 2);
        assert_near(d.accu[1], 200, 2);

        /* The target's own calls work on the context the debugger made. */
        assert_int_equal(target_stop_mythread(&t, 1), 0);
        assert_int_equal(target_get_data_mythread(&t, 1, own), 0);
        assert_near(own[0], 200, 4);
        assert_int_equal(pm_get_program_thread(pid, tid, &got), 0);
        assert_false(got.mode.b.count);
        assert_int_equal(target_delete_program_mythread(&t, 1), 0);
        assert_int_equal(pm_get_data_thread(pid, tid, &d), PM_ENOCONTEXT);
        target_kill(&t);
}

static void test_target_that_never_called_pmapi_is_counted(void **state) {
        pm_prog_t prog;
        pm_data_t d;
        Target t;

        (void) state;
        start_nobody_target(&t, 1);
        program(&prog, PM_USER | PM_COUNT, page_flt, COUNT_NOTHING);
        assert_int_equal(pm_set_program_thread(t.pid, t.pid, &prog), 0);
        assert_int_equal(target_touch(&t, 0, 150), 0);
        assert_int_equal(pm_get_data_thread(t.pid, t.pid, &d), 0);
        assert_near(d.accu[0], 150, 2);
        for (int c = 1; c < MAX_COUNTERS; c++)
                assert_int_equal(d.accu[c], 0);
        assert_int_equal(pm_delete_program_thread(t.pid, t.pid), 0);
        target_kill(&t);
}

/* PM_PROCESS from outside takes every thread; the named thread is the group rules' caller. */
static void test_process_group_made_from_outside(void **state) {
        pm_prog_t prog, got;
        pm_data_t d, m;
        Target t;

        (void) state;
        start_nobody_target(&t, 3);
        program(&prog, PM_USER | PM_COUNT | PM_PROCESS, page_flt, COUNT_NOTHING);
        assert_int_equal(pm_set_program_group(t.pid, t.tids[0], &prog), 0);
        assert_int_equal(pm_set_program_group(t.pid, t.tids[1], &prog), PM_EEXIST);
        prog.mode.w &= ~PM_PROCESS;
        assert_int_equal(pm_set_program_thread(t.pid, t.tids[2], &prog), PM_EEXIST);
        for (int i = 0; i < 3; i++)
                assert_int_equal(target_touch(&t, i, 100 * (size_t) (i + 1)), 0);
        assert_int_equal(pm_get_data_group(t.pid, t.tids[2], &d), 0);
        assert_near(d.accu[0], 600, 6);
        assert_int_equal(d.ginfo.members, 3);
        assert_true(d.ginfo.flags.b.process);
        assert_true(d.ginfo.flags.b.consistent);
        assert_int_equal(pm_get_data_thread(t.pid, t.tids[1], &m), 0);        /* a member's own */
        assert_near(m.accu[0], 200, 2);
        assert_int_equal(pm_get_program_group(t.pid, t.tids[1], &got), 0);
        assert_true(got.mode.b.count && got.mode.b.process);

        /* Group stop: nothing counts; the stopping thread's own state is off, the others' on. */
        assert_int_equal(pm_stop_group(t.pid, t.tids[1]), 0);
        assert_int_equal(target_touch(&t, 2, 50), 0);
        assert_int_equal(pm_get_data_group(t.pid, t.tids[0], &m), 0);
        assert_int_equal(m.accu[0], d.accu[0]);
        assert_int_equal(pm_get_program_thread(t.pid, t.tids[1], &got), 0);
        assert_false(got.mode.b.count);
        assert_int_equal(pm_get_program_thread(t.pid, t.tids[2], &got), 0);
        assert_true(got.mode.b.count);

        /* Group start through thread 2: threads 0 and 2 count again, thread 1 stays off. */
        assert_int_equal(pm_start_group(t.pid, t.tids[2]), 0);
        assert_int_equal(target_touch(&t, 1, 70), 0);
        assert_int_equal(target_touch(&t, 2, 30), 0);
        assert_int_equal(pm_get_data_group(t.pid, t.tids[0], &m), 0);
        assert_near(m.accu[0], (uint64_t) d.accu[0] + 30, 4);

        /* Group reset with three members: zero, inconsistent. */
        assert_int_equal(pm_reset_data_group(t.pid, t.tids[0]), 0);
        assert_int_equal(pm_get_data_group(t.pid, t.tids[0], &m), 0);
        assert_int_equal(m.accu[0], 0);
        assert_false(m.ginfo.flags.b.consistent);
        assert_int_equal(pm_delete_program_group(t.pid, t.tids[2]), 0);
        assert_int_equal(wait_for_context_count(0, 10000), 0);
        target_kill(&t);
}

static void test_descendant_group_made_from_outside(void **state) {
        pm_prog_t prog;
        pm_data_t d;
        Target t;

        (void) state;
        start_nobody_target(&t, 2);
        program(&prog, PM_USER | PM_COUNT, page_flt, COUNT_NOTHING);
        assert_int_equal(pm_set_program_group(t.pid, t.tids[1], &prog), 0);
        assert_int_equal(pm_get_data_group(t.pid, t.tids[0], &d), PM_ENOCONTEXT);     /* not a member */
        assert_int_equal(target_touch(&t, 1, 80), 0);
        assert_int_equal(pm_get_data_group(t.pid, t.tids[1], &d), 0);
        assert_near(d.accu[0], 80, 2);
        assert_int_equal(d.ginfo.members, 1);
        assert_false(d.ginfo.flags.b.process);
        /* A plain thread context is not a group. */
        assert_int_equal(pm_set_program_thread(t.pid, t.tids[0], &prog), 0);
        assert_int_equal(pm_get_data_group(t.pid, t.tids[0], &d), PM_ENOGROUP);
        assert_int_equal(pm_delete_program_group(t.pid, t.tids[1]), 0);
        assert_int_equal(pm_delete_program_thread(t.pid, t.tids[0]), 0);
        target_kill(&t);
}

/* A debugger's target is stopped: every call works as on a running one (Linux extension). */
static void test_stopped_target_works_like_a_running_one(void **state) {
        pm_prog_t prog;
        pm_data_t d;
        Target t;

        (void) state;
        start_nobody_target(&t, 1);
        assert_int_equal(kill(t.pid, SIGSTOP), 0);
        program(&prog, PM_USER | PM_COUNT, page_flt, COUNT_NOTHING);
        assert_int_equal(pm_set_program_thread(t.pid, t.pid, &prog), 0);
        assert_int_equal(pm_get_data_thread(t.pid, t.pid, &d), 0);
        assert_int_equal(d.accu[0], 0);
        assert_int_equal(kill(t.pid, SIGCONT), 0);
        assert_int_equal(target_touch(&t, 0, 40), 0);
        assert_int_equal(kill(t.pid, SIGSTOP), 0);
        assert_int_equal(pm_get_data_thread(t.pid, t.pid, &d), 0);
        assert_near(d.accu[0], 40, 2);
        assert_int_equal(pm_reset_data_thread(t.pid, t.pid), 0);
        assert_int_equal(pm_delete_program_thread(t.pid, t.pid), 0);
        assert_int_equal(kill(t.pid, SIGCONT), 0);
        target_kill(&t);
}

static void test_pthread_forms_take_ptid_zero_or_tid(void **state) {
        pm_prog_t prog;
        pm_data_t d;
        Target t;

        (void) state;
        start_nobody_target(&t, 2);
        pid_t pid = t.pid, tid = t.tids[1];
        program(&prog, PM_USER | PM_COUNT, page_flt, COUNT_NOTHING);
        assert_int_equal(pm_set_program_pthread(pid, tid, (ptid_t) tid + 1, &prog), PM_EPTID);
        assert_int_equal(pm_set_program_pthread(pid, tid, 0, &prog), 0);
        assert_int_equal(pm_get_data_pthread(pid, tid, (ptid_t) tid, &d), 0);
        assert_int_equal(pm_get_data_pthread(pid, 0, (ptid_t) tid, &d), 0);              /* M:N style */
        assert_int_equal(pm_get_tdata_pthread(pid, tid, 1, &d, NULL), PM_EPTID);
        assert_int_equal(pm_stop_pthread(pid, tid, (ptid_t) tid), 0);
        assert_int_equal(pm_start_pthread(pid, tid, 0), 0);
        assert_int_equal(pm_reset_data_pthread(pid, tid, 0), 0);
        assert_int_equal(pm_delete_program_pthread(pid, 0, (ptid_t) tid), 0);
        assert_int_equal(pm_get_program_pthread(pid, tid, 0, &prog), PM_ENOCONTEXT);
        program(&prog, PM_USER | PM_COUNT, page_flt, COUNT_NOTHING);
        assert_int_equal(pm_set_program_pgroup(pid, tid, 7, &prog), PM_EPTID);
        assert_int_equal(pm_set_program_pgroup(pid, 0, (ptid_t) tid, &prog), 0);
        assert_int_equal(pm_get_data_pgroup(pid, tid, 0, &d), 0);
        assert_int_equal(d.ginfo.members, 1);
        assert_int_equal(pm_delete_program_pgroup(pid, tid, (ptid_t) tid), 0);
        target_kill(&t);
}

static void test_bad_arguments_get_clear_errors(void **state) {
        pm_prog_t prog;
        pm_data_t d;
        Target t, other;

        (void) state;
        start_nobody_target(&t, 1);
        start_nobody_target(&other, 1);
        program(&prog, PM_USER, page_flt, COUNT_NOTHING);
        assert_int_equal(pm_set_program_thread(t.pid, t.pid, NULL), PM_EFAULT);
        assert_int_equal(pm_get_data_thread(t.pid, t.pid, NULL), PM_EFAULT);
        assert_int_equal(pm_get_program_group(t.pid, t.pid, NULL), PM_EFAULT);
        assert_int_equal(pm_set_program_thread(0, 0, &prog), PM_ENOTHREAD);
        assert_int_equal(pm_set_program_thread(-1, t.pid, &prog), PM_ENOTHREAD);
        assert_int_equal(pm_get_data_thread(t.pid, other.pid, &d), PM_ENOTHREAD);    /* not t's thread */
        prog.mode.w |= PM_PROCTREE | PM_NO_INHERIT;
        assert_int_equal(pm_set_program_thread(t.pid, t.pid, &prog), PM_EMODE);      /* a contradiction */
        prog.mode.w = PM_USER | 0x100000;
        assert_int_equal(pm_set_program_thread(t.pid, t.pid, &prog), PM_EMODE);      /* wpar_all */
        program(&prog, PM_USER, 987654, COUNT_NOTHING);
        assert_int_equal(pm_set_program_thread(t.pid, t.pid, &prog), PM_EEVENT);
        assert_int_equal(wait_for_context_count(0, 10000), 0);
        target_kill(&t);
        target_kill(&other);
}

static int get_property_u(sd_bus *bus, const char *path, const char *iface, const char *name, uint32_t *ret) {
        return sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", path, iface, name, NULL, 'u', ret);
}

/* ListContexts as the caller sees it: whether (pid, tid) is there, and with which owner. */
static int listed(pid_t pid, pid_t tid, uint32_t *ret_owner, char *ret_origin, size_t n) {
        sd_bus *bus = NULL;
        sd_bus_message *reply = NULL;
        int found = 0;

        if (sd_bus_open_system(&bus) < 0 ||
            sd_bus_call_method(bus, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1", "org.pmapi.PerfMon1.Manager",
                               "ListContexts", NULL, &reply, "") < 0 ||
            sd_bus_message_enter_container(reply, 'a', "(iiuuisbo)") < 0)
                found = -1;
        while (found == 0) {
                int32_t p, t, creator;
                uint32_t owner, target_uid;
                const char *origin, *group;
                int counting;

                if (sd_bus_message_read(reply, "(iiuuisbo)", &p, &t, &owner, &target_uid, &creator, &origin,
                                        &counting, &group) <= 0)
                        break;
                if (p == pid && t == tid) {
                        found = 1;
                        if (ret_owner)
                                *ret_owner = owner;
                        if (ret_origin)
                                snprintf(ret_origin, n, "%s", origin);
                }
        }
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        return found;
}

typedef struct Visible {
        pid_t pid, tid;
        int expected;
} Visible;

static int sees_it(void *arg) {
        const Visible *v = arg;
        CHECK(listed(v->pid, v->tid, NULL, NULL, 0) == v->expected);
        return 0;
}

/* The admin's view: who made the context, on whose thread, how; the thread's user sees it too,
 * another user does not. */
static void test_busctl_shows_who_made_each_context(void **state) {
        char path[96], origin[32] = "";
        sd_bus *bus = NULL;
        uint32_t owner = 1, target_uid = 0;
        int32_t creator = 0;
        struct passwd *pw = getpwnam("daemon");
        pm_prog_t prog;
        Target t;

        (void) state;
        assert_non_null(pw);
        start_nobody_target(&t, 1);
        program(&prog, PM_USER, page_flt, COUNT_NOTHING);
        assert_int_equal(pm_set_program_thread(t.pid, t.pid, &prog), 0);
        assert_int_equal(sd_bus_open_system(&bus), 0);
        snprintf(path, sizeof(path), "/org/pmapi/PerfMon1/thread/%d", (int) t.pid);
        assert_true(get_property_u(bus, path, "org.pmapi.PerfMon1.Thread", "OwnerUid", &owner) >= 0);
        assert_true(get_property_u(bus, path, "org.pmapi.PerfMon1.Thread", "TargetUid", &target_uid) >= 0);
        assert_true(sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", path, "org.pmapi.PerfMon1.Thread",
                                                "CreatorPid", NULL, 'i', &creator) >= 0);
        assert_int_equal(owner, 0);
        assert_int_equal(target_uid, NOBODY);
        assert_int_equal(creator, getpid());
        sd_bus_flush_close_unref(bus);

        assert_int_equal(listed(t.pid, t.pid, &owner, origin, sizeof(origin)), 1);
        assert_int_equal(owner, 0);
        assert_string_equal(origin, "SetProgram");
        Visible v = { t.pid, t.pid, 1 };
        assert_int_equal(run_as_nobody(sees_it, &v), 0);        /* its own thread */
        v.expected = 0;
        assert_int_equal(run_as(pw->pw_uid, pw->pw_gid, sees_it, &v), 0);
        assert_int_equal(pm_delete_program_thread(t.pid, t.pid), 0);
        target_kill(&t);
}

static int setup(void **state) {
        pm_info_t info;

        (void) state;
        if (bus_fixture_start(&fixture, NULL) != 0)
                return -1;
        if (pm_init(PM_VERIFIED, &info) != 0)
                return -1;
        page_flt = find_event_id(&info, "PM_PAGE_FLT");
        minor_flt = find_event_id(&info, "PM_MINOR_FLT");
        return page_flt > 0 && minor_flt > 0 ? 0 : -1;
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_reprogramming_a_running_target_is_delete_and_set),
                cmocka_unit_test(test_target_that_never_called_pmapi_is_counted),
                cmocka_unit_test(test_process_group_made_from_outside),
                cmocka_unit_test(test_descendant_group_made_from_outside),
                cmocka_unit_test(test_stopped_target_works_like_a_running_one),
                cmocka_unit_test(test_pthread_forms_take_ptid_zero_or_tid),
                cmocka_unit_test(test_bad_arguments_get_clear_errors),
                cmocka_unit_test(test_busctl_shows_who_made_each_context),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
