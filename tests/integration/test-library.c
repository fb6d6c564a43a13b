/* test-library.c: libpmapi as a library: thread-safe (threads calling at once share one
 * connection), fork-safe (a child gets its own connection and its own contexts), and a clear
 * PM_ENODAEMON, not a hang, when pmapid or the bus is absent; a restarted pmapid is found again,
 * and a context it lost is told as PM_ERESTARTED. */
#include <pthread.h>
#include <setjmp.h>
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

static BusFixture fixture;
static pm_info_t info;

static int count_pages_here(size_t pages, long long *ret) {
        pm_prog_t prog = { .mode.w = PM_USER | PM_COUNT };
        pm_data_t d;

        for (int c = 0; c < MAX_COUNTERS; c++)
                prog.events[c] = COUNT_NOTHING;
        prog.events[0] = find_event_id(&info, "PM_PAGE_FLT");
        CHECK_RC(pm_set_program_mythread(&prog), 0);
        CHECK(touch_fresh_pages(pages) == 0);
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(pm_get_data_mythread(&d), 0);
        CHECK_RC(pm_delete_program_mythread(), 0);
        *ret = d.accu[0];
        return 0;
}

static void *hammer(void *arg) {
        uintptr_t i = (uintptr_t) arg;
        for (int round = 0; round < 20; round++) {
                long long v;
                if (count_pages_here(10 + i, &v) != 0 || v < (long long) (10 + i) - 2 || v > (long long) (10 + i) + 2)
                        return (void *) 1;
        }
        return NULL;
}

static void test_threads_share_the_library_safely(void **state) {
        pthread_t t[16];

        (void) state;
        for (uintptr_t i = 0; i < 16; i++)
                assert_int_equal(pthread_create(&t[i], NULL, hammer, (void *) (i * 7)), 0);
        for (int i = 0; i < 16; i++) {
                void *ret;
                assert_int_equal(pthread_join(t[i], &ret), 0);
                assert_null(ret);
        }
}

static void test_forked_child_gets_its_own_connection(void **state) {
        long long v;
        int status;
        pid_t pid;

        (void) state;
        assert_int_equal(count_pages_here(50, &v), 0);          /* the parent's connection is open */
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                long long w;

                /* fork does not copy the page tables of file mappings: the child's first call of
                 * the workload would fault in its code pages inside the count. */
                (void) touch_fresh_pages(1);
                _exit(count_pages_here(300, &w) == 0 && w >= 298 && w <= 302 ? 0 : 1);
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
        assert_int_equal(count_pages_here(70, &v), 0);          /* and the parent's still works */
        assert_in_range(v, 68, 72);
}

static long long now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void test_absent_daemon_is_a_clear_error_and_a_restart_is_found(void **state) {
        pm_info_t again;
        long long start, v;
        pm_data_t d;

        (void) state;
        assert_int_equal(kill(fixture.daemon_pid, SIGTERM), 0);
        assert_int_equal(waitpid(fixture.daemon_pid, NULL, 0), fixture.daemon_pid);
        fixture.daemon_pid = 0;

        start = now_ms();
        assert_int_equal(pm_get_data_mythread(&d), PM_ENODAEMON);
        assert_int_equal(pm_init(PM_VERIFIED, &again), PM_ENODAEMON);
        assert_true(now_ms() - start < 2000);                   /* an answer, not a hang */

        assert_int_equal(bus_fixture_start_daemon(&fixture, NULL), 0);
        assert_int_equal(count_pages_here(40, &v), 0);
        assert_in_range(v, 38, 42);
}

static uint64_t started_at(void) {
        sd_bus *bus = NULL;
        uint64_t t = 0;

        if (sd_bus_open_system(&bus) >= 0)
                (void) sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1",
                                                   "org.pmapi.PerfMon1.Manager", "StartedAt", NULL, 't', &t);
        sd_bus_flush_close_unref(bus);
        return t;
}

/* What pm_error(where, code) writes. */
static void pm_error_text(int code, char *buf, size_t size) {
        FILE *f = tmpfile();
        int saved = dup(2);

        assert_non_null(f);
        dup2(fileno(f), 2);
        pm_error((char *) "pm_get_data_mythread", code);
        fflush(stderr);
        dup2(saved, 2);
        close(saved);
        rewind(f);
        buf[fread(buf, 1, size - 1, f)] = '\0';
        fclose(f);
}

/* Contexts do not survive a restart of pmapid. A process that had set its program is told that
 * pmapid restarted (PM_ERESTARTED, and pm_error says so), never "set a program first"; the Manager's
 * StartedAt shows the restart; once the program is set again, a call with no context is plain
 * PM_ENOCONTEXT: the same pmapid answers. */
static void test_restart_is_told_apart_from_a_missing_context(void **state) {
        uint64_t before = started_at(), after;
        pm_prog_t prog = { .mode.w = PM_USER | PM_COUNT };
        char text[512];
        pm_data_t d;

        (void) state;
        for (int c = 0; c < MAX_COUNTERS; c++)
                prog.events[c] = COUNT_NOTHING;
        prog.events[0] = find_event_id(&info, "PM_PAGE_FLT");
        assert_true(before > 0);
        assert_int_equal(pm_set_program_mythread(&prog), 0);
        assert_int_equal(bus_fixture_stop_daemon(&fixture), 0);
        assert_int_equal(bus_fixture_start_daemon(&fixture, NULL), 0);
        after = started_at();
        assert_true(after > before);
        assert_int_equal(pm_get_data_mythread(&d), PM_ERESTARTED);
        pm_error_text(PM_ERESTARTED, text, sizeof(text));
        assert_non_null(strstr(text, "restarted"));
        assert_null(strstr(text, "set a program first"));
        assert_int_equal(pm_start_mythread(), PM_ERESTARTED);
        assert_int_equal(pm_set_program_mythread(&prog), 0);   /* the way out */
        assert_int_equal(pm_get_data_mythread(&d), 0);
        assert_int_equal(pm_delete_program_mythread(), 0);
        assert_int_equal(pm_get_data_mythread(&d), PM_ENOCONTEXT);
}

static int no_bus_body(void *arg) {
        pm_info_t i;
        (void) arg;
        setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/pmapi-test-socket", 1);
        CHECK_RC(pm_init(PM_VERIFIED, &i), PM_ENODAEMON);
        return 0;
}

static void test_absent_bus_is_a_clear_error(void **state) {
        (void) state;
        assert_int_equal(run_as_nobody(no_bus_body, NULL), 0);
}

static int setup(void **state) {
        (void) state;
        int r = bus_fixture_start(&fixture, NULL);
        return r == 0 ? pm_init(PM_VERIFIED, &info) : r;
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_threads_share_the_library_safely),
                cmocka_unit_test(test_forked_child_gets_its_own_connection),
                cmocka_unit_test(test_absent_daemon_is_a_clear_error_and_a_restart_is_found),
                cmocka_unit_test(test_absent_bus_is_a_clear_error),
                cmocka_unit_test(test_restart_is_told_apart_from_a_missing_context),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
