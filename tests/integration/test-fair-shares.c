/* test-fair-shares.c: one user's busy process cannot fill the pool. Root sets a program on a process
 * of uid 65534 (as an administrator does with pmctl); that process, a Python program with plain
 * threads (no libpmapi), makes 350 threads, each attached by pmapid from its fork record. Those
 * inherited contexts count against 65534's share (MaxContextsPerUser), not root's unlimited one, so
 * uid 1 and root still start; ContextsPerUser shows who holds what, to root, and each other user only
 * its own row. With a pool too small for the
 * burst, the last MaxContexts/16 stay root's own: root starts, uid 1 gets PM_ELIMIT. At
 * perf_event_paranoid 2 and 3 (restored). */
#include <errno.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "check.h"
#include "paranoid.h"
#include "pmapi.h"
#include "py-process.h"
#include "workload.h"

#define NOBODY 65534
#define OTHER_UID 1
#define N_THREADS 350

static BusFixture fixture;
static int page_flt;

/* Makes N_THREADS plain threads when told, says so, and keeps them until its stdin closes. */
static const char burst_py[] =
        "import sys, threading\n"
        "threading.stack_size(65536)\n"
        "print('up', flush=True)\n"
        "sys.stdin.readline()\n"
        "stop = threading.Event()\n"
        "ts = [threading.Thread(target=stop.wait) for _ in range(int(sys.argv[1]))]\n"
        "[t.start() for t in ts]\n"
        "print('ready', flush=True)\n"
        "sys.stdin.read()\n"
        "stop.set()\n";

static int burst_start(PyProcess *b) {
        char n[16];

        (void) snprintf(n, sizeof(n), "%d", N_THREADS);
        return py_process_start(b, NOBODY, burst_py, n);
}

/* ContextsPerUser as the caller sees it: the contexts of uid's row (0 if it has none) and the number
 * of rows, or -1 if unreadable. */
static int per_user(uid_t uid, int *ret_rows) {
        sd_bus_message *reply = NULL;
        sd_bus *bus = NULL;
        uint32_t u, n, handed;
        int found = 0, rows = 0, r;

        if (sd_bus_open_system(&bus) < 0)
                return -1;
        r = sd_bus_get_property(bus, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1", "org.pmapi.PerfMon1.Manager",
                                "ContextsPerUser", NULL, &reply, "a(uuu)");
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "(uuu)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(uuu)", &u, &n, &handed)) > 0) {
                rows++;
                if (u == uid)
                        found = (int) n;
        }
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        if (ret_rows)
                *ret_rows = rows;
        return r < 0 ? -1 : found;
}

static int charged_to(uid_t uid) {
        return per_user(uid, NULL);
}

/* Another user than root sees its own row of ContextsPerUser and no other: nobody its 100, uid 1
 * nothing at all. */
static int sees_only_its_own_row(void *arg) {
        int want = *(const int *) arg, rows = -1;

        CHECK(per_user(getuid(), &rows) == want);
        CHECK(rows == (want > 0 ? 1 : 0));
        return 0;
}

/* Waits until pmapid's context count holds still for a second (fork records all handled). */
static uint32_t settled_contexts(void) {
        uint32_t last = manager_property_u("ContextCount"), now;

        for (int i = 0; i < 30; i++) {
                (void) usleep(1000 * 1000);
                now = manager_property_u("ContextCount");
                if (now == last)
                        return now;
                last = now;
        }
        return last;
}

static int starts_own(void *arg) {
        int expected = *(const int *) arg;
        pm_prog_t prog;
        pm_info_t info;

        CHECK_RC(pm_init(PM_VERIFIED, &info), 0);
        program_one(&prog, PM_USER | PM_COUNT, page_flt);
        CHECK_RC(pm_set_program_mythread(&prog), expected);
        if (expected == 0)
                CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

static void root_starts_own(int expected) {
        pm_prog_t prog;

        program_one(&prog, PM_USER | PM_COUNT, page_flt);
        assert_int_equal(pm_set_program_mythread(&prog), expected);
        if (expected == 0)
                assert_int_equal(pm_delete_program_mythread(), 0);
}

/* Root counts the burst's process; returns its contexts once settled. */
static uint32_t count_a_burst(PyProcess *b) {
        pm_prog_t prog;

        assert_int_equal(burst_start(b), 0);
        program_one(&prog, PM_USER | PM_COUNT, page_flt);
        assert_int_equal(pm_set_program_thread(b->pid, b->pid, &prog), 0);
        assert_int_equal(py_process_say(b, "go\n", "ready\n"), 0);
        return settled_contexts();
}

/* At paranoid 3 no user but root counts at all: root's side of it is the same. */
static void fill_a_share(int paranoid) {
        int ok = paranoid >= 3 ? PM_EPERM : 0, limit = paranoid >= 3 ? PM_EPERM : PM_ELIMIT;
        uint32_t n;
        PyProcess b;

        assert_int_equal(paranoid_set_for_test(paranoid), 0);
        n = count_a_burst(&b);
        /* Root's own context on the main thread, and 100 inherited ones charged to 65534. */
        assert_int_equal(n, 101);
        assert_int_equal(charged_to(NOBODY), 100);
        assert_int_equal(charged_to(0), 1);
        {
                int nobody_has = 100, other_has = 0;
                assert_int_equal(run_as(NOBODY, NOBODY, sees_only_its_own_row, &nobody_has), 0);
                assert_int_equal(run_as(OTHER_UID, OTHER_UID, sees_only_its_own_row, &other_has), 0);
        }
        assert_int_equal(run_as(OTHER_UID, OTHER_UID, starts_own, &ok), 0);
        root_starts_own(0);
        /* 65534's share is spent by the threads its own process made. */
        assert_int_equal(run_as(NOBODY, NOBODY, starts_own, &limit), 0);
        py_process_end(&b);
        assert_int_equal(wait_for_context_count(0, 10000), 0);
        paranoid_restore_for_test();
}

static void test_inherited_contexts_fill_their_users_share_not_the_pool(void **state) {
        (void) state;
        assert_int_equal(bus_fixture_restart_with_config(&fixture, "[Limits]\nMaxContexts=300\nMaxContextsPerUser=100\n"),
                         0);
        fill_a_share(2);
        fill_a_share(3);
}

static void test_root_keeps_a_reserve_of_the_pool(void **state) {
        int limit = PM_ELIMIT;
        uint32_t n;
        PyProcess b;

        (void) state;
        assert_int_equal(bus_fixture_restart_with_config(&fixture, "[Limits]\nMaxContexts=32\nMaxContextsPerUser=100\n"),
                         0);
        assert_int_equal(manager_property_u("RootReserve"), 2);
        n = count_a_burst(&b);
        assert_int_equal(n, 30);                /* 32 less the reserve */
        assert_int_equal(run_as(OTHER_UID, OTHER_UID, starts_own, &limit), 0);
        root_starts_own(0);
        py_process_end(&b);
        assert_int_equal(wait_for_context_count(0, 10000), 0);
}

static int setup(void **state) {
        pm_info_t info;

        (void) state;
        if (bus_fixture_start(&fixture, NULL) != 0 || pm_init(PM_VERIFIED, &info) != 0)
                return 1;
        page_flt = find_event_id(&info, "PM_PAGE_FLT");
        return page_flt > 0 ? 0 : 1;
}

static int teardown(void **state) {
        (void) state;
        paranoid_restore_for_test();
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_inherited_contexts_fill_their_users_share_not_the_pool),
                cmocka_unit_test(test_root_keeps_a_reserve_of_the_pool),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
