/* test-reload-churn.c: reloads under thread churn leave no stale context. A Python process (plain
 * threads, no libpmapi) keeps about 200 short-lived threads coming and going; root counts it as a
 * group from its main thread, so pmapid attaches every new thread from its fork record. pmapid is
 * re-executed (SIGHUP, as `systemctl reload`) again and again meanwhile. When the churn stops, within
 * a second: one context left (the main thread's), the group still exactly the sum of what its
 * members counted, and pmapid's fds back to what they were before. Run as root and as uid 65534
 * (its own process), with the CPUs kept busy. PMAPI_CHURN_RELOADS sets the number of reloads
 * (default 8, 0.3 s apart; the soak was 20, 0.5 s apart). */
#include <errno.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "check.h"
#include "pmapi.h"
#include "py-process.h"
#include "workload.h"

#define NOBODY 65534

static BusFixture fixture;
static int page_flt;

/* Threads that each touch one fresh page and exit, about 200 alive at a time, until stdin says
 * stop; then the main thread alone, until stdin closes. */
static const char churn_py[] =
        "import mmap, sys, threading, time\n"
        "threading.stack_size(65536)\n"
        "def work():\n"
        "    m = mmap.mmap(-1, 4096)\n"
        "    m[0] = 1\n"
        "    time.sleep(0.002)\n"
        "    m.close()\n"
        "stop = threading.Event()\n"
        "def feeder():\n"
        "    sys.stdin.readline()\n"
        "    stop.set()\n"
        "print('up', flush=True)\n"
        "sys.stdin.readline()\n"
        "f = threading.Thread(target=feeder)\n"
        "f.start()\n"
        "while not stop.is_set():\n"
        "    if threading.active_count() < 200:\n"
        "        threading.Thread(target=work).start()\n"
        "    else:\n"
        "        time.sleep(0.0005)\n"
        "f.join()\n"
        "while threading.active_count() > 1:\n"
        "    time.sleep(0.01)\n"
        "print('stopped', flush=True)\n"
        "sys.stdin.read()\n";

/* The newest of pmapid's Predecessors (the list keeps the last 4,096): the unique bus name of the image
 * that handed its state on last, or "" if none. */
static void newest_predecessor(char *ret, size_t size) {
        char **names = NULL;
        sd_bus *bus = NULL;
        size_t n = 0;

        ret[0] = '\0';
        if (sd_bus_open_system(&bus) >= 0 &&
            sd_bus_get_property_strv(bus, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1", "org.pmapi.PerfMon1.Manager",
                                     "Predecessors", NULL, &names) >= 0)
                for (; names && names[n]; n++) {
                        (void) snprintf(ret, size, "%s", names[n]);
                        free(names[n]);
                }
        free(names);
        sd_bus_flush_close_unref(bus);
}

/* Sends SIGHUP and returns once the new image serves. */
static int reexec_pmapid(void) {
        char before[64], now[64];

        newest_predecessor(before, sizeof(before));
        CHECK(kill(fixture.daemon_pid, SIGHUP) == 0);
        for (int i = 0; i < 1000; i++) {
                newest_predecessor(now, sizeof(now));
                if (now[0] && strcmp(now, before) != 0)
                        return 0;
                usleep(10 * 1000);
        }
        fprintf(stderr, "pmapid did not come back from SIGHUP\n");
        return 1;
}

/* The caller (root, or the churning process's own user) counts the churn as a group. */
static int set_group(void *arg) {
        const PyProcess *c = arg;
        pm_info_t info;
        pm_prog_t prog;

        CHECK_RC(pm_init(PM_VERIFIED, &info), 0);
        program_one(&prog, PM_USER | PM_COUNT, page_flt);
        CHECK_RC(pm_set_program_group(c->pid, c->pid, &prog), 0);
        return 0;
}

/* After the churn: the group still answers, no less than its main thread, and goes. */
static int check_and_delete_group(void *arg) {
        const PyProcess *c = arg;
        pm_data_t group, main_thread;
        pm_info_t info;

        CHECK_RC(pm_init(PM_VERIFIED, &info), 0);
        CHECK_RC(pm_get_data_group(c->pid, c->pid, &group), 0);
        CHECK_RC(pm_get_data_thread(c->pid, c->pid, &main_thread), 0);
        /* Every thread that joined touched a page; the group holds them and the main thread's. */
        CHECK(group.accu[0] > main_thread.accu[0]);
        CHECK_RC(pm_delete_program_group(c->pid, c->pid), 0);
        return 0;
}

static int as(uid_t uid, int (*fn)(void *arg), void *arg) {
        return uid == 0 ? fn(arg) : run_as(uid, uid, fn, arg);
}

/* A call of root's that names its caller: pmapid then holds the pin of the test's connection, at
 * the baseline and at the end alike (a re-executed pmapid pins it again at its first call). */
static void pin_test_connection(void) {
        pm_prog_t prog;

        assert_int_equal(pm_get_program_mythread(&prog), PM_ENOCONTEXT);
}

static void run_churn(uid_t uid, int reloads) {
        int base = (pin_test_connection(), settled_fds(fixture.daemon_pid));
        uint32_t left = 0;
        pid_t spin[2];
        PyProcess churn;

        assert_true(base > 0);
        for (int i = 0; i < 2; i++) {
                spin[i] = fork();
                assert_true(spin[i] >= 0);
                if (spin[i] == 0) {
                        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                        for (;;)
                                ;
                }
        }
        assert_int_equal(py_process_start(&churn, uid, churn_py, NULL), 0);
        assert_int_equal(as(uid, set_group, &churn), 0);
        assert_int_equal(py_process_say(&churn, "go\n", NULL), 0);
        for (int i = 0; i < reloads; i++) {
                usleep(300 * 1000);
                assert_int_equal(reexec_pmapid(), 0);
        }
        if (reloads == 0)
                usleep(3000 * 1000);    /* churn alone: exits that race their thread's attach */
        assert_int_equal(py_process_say(&churn, "stop\n", "stopped\n"), 0);
        /* Within a second of the last exit: the main thread's context alone. */
        for (int i = 0; i < 100 && (left = manager_property_u("ContextCount")) != 1; i++)
                usleep(10 * 1000);
        for (int i = 0; i < 2; i++) {
                kill(spin[i], SIGKILL);
                waitpid(spin[i], NULL, 0);
        }
        if (left != 1)
                fprintf(stderr, "%u contexts a second after the churn stopped, 1 expected\n", left);
        assert_int_equal(left, 1);
        assert_int_equal(as(uid, check_and_delete_group, &churn), 0);
        py_process_end(&churn);
        assert_int_equal(wait_for_context_count(0, 10000), 0);
        pin_test_connection();
        assert_int_equal(wait_for_fds(fixture.daemon_pid, base, 10000), base);
}

static int n_reloads(void) {
        return getenv("PMAPI_CHURN_RELOADS") ? atoi(getenv("PMAPI_CHURN_RELOADS")) : 8;
}

static void test_churn_alone_leaves_no_stale_context(void **state) {
        (void) state;
        run_churn(0, 0);
}

static void test_reloads_under_churn_leave_no_stale_context_as_root(void **state) {
        (void) state;
        run_churn(0, n_reloads());
}

static void test_reloads_under_churn_leave_no_stale_context_as_nobody(void **state) {
        (void) state;
        run_churn(NOBODY, n_reloads());
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
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_churn_alone_leaves_no_stale_context),
                cmocka_unit_test(test_reloads_under_churn_leave_no_stale_context_as_root),
                cmocka_unit_test(test_reloads_under_churn_leave_no_stale_context_as_nobody),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
