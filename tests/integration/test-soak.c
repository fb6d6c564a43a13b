/* test-soak.c: bounded soaks. Clients killed at random points of their calls, as root and as uid
 * 65534, leave pmapid with no context, its fds back to where they were and its RSS within a bound;
 * a group through which thousands of threads are born and die stays exactly the sum of its
 * members at every read (GetGroupMembersPage's rows, page after page, against the group's value,
 * the members stopped).
 * PMAPI_SOAK_CLIENTS (default 200) and PMAPI_SOAK_THREADS (default 1000) make the long forms. */
#include <pthread.h>
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

#define BATCH 20
#define THREADS_PER_WAVE 50

static BusFixture fixture;
static long long last_page_us;          /* the last full page's round trip, for the log */

static long env_long(const char *name, long fallback) {
        const char *v = getenv(name);
        return v && atol(v) > 0 ? atol(v) : fallback;
}

/* A client that makes contexts and calls until it is killed: a thread program, then a group,
 * reads in a loop. */
static int doomed_client(int i) {
        pm_prog_t prog;
        pm_data_t d;

        if (i % 2 && (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0))
                return 126;
        if (page_fault_program(&prog, PM_USER | PM_COUNT) != 0)
                return 1;
        (void) pm_set_program_mythread(&prog);
        if (i % 3 == 0) {
                (void) pm_delete_program_mythread();
                (void) pm_set_program_mygroup(&prog);
        }
        for (;;)
                (void) (i % 3 == 0 ? pm_get_data_mygroup(&d) : pm_get_data_mythread(&d));
}

static void test_killed_clients_leave_nothing_behind(void **state) {
        long clients = env_long("PMAPI_SOAK_CLIENTS", 200);
        int fds = settled_fds(fixture.daemon_pid);
        long rss = rss_kb(fixture.daemon_pid), rss_after;
        struct timespec ts = { 0 };
        pid_t batch[BATCH];

        (void) state;
        srand(7);
        for (long done = 0; done < clients; done += BATCH) {
                for (int i = 0; i < BATCH; i++) {
                        batch[i] = fork();
                        assert_true(batch[i] >= 0);
                        if (batch[i] == 0)
                                _exit(doomed_client((int) (done + i)));
                }
                for (int i = 0; i < BATCH; i++) {
                        ts.tv_nsec = (rand() % 3000) * 1000L;   /* anywhere in its first calls */
                        nanosleep(&ts, NULL);
                        kill(batch[i], SIGKILL);
                }
                for (int i = 0; i < BATCH; i++)
                        assert_int_equal(waitpid(batch[i], NULL, 0), batch[i]);
        }
        assert_int_equal(wait_for_context_count(0, 10000), 0);
        assert_int_equal(wait_for_fds(fixture.daemon_pid, fds, 5000), fds);
        rss_after = rss_kb(fixture.daemon_pid);
        fprintf(stderr, "# %ld killed clients: pmapid RSS %ld -> %ld kB, %d fds\n", clients, rss, rss_after, fds);
        /* No leak per client: 8 MB for all of them. A sanitized pmapid (PMAPI_TEST_PMAPID in
         * tests/run.sh) keeps freed memory in ASan's quarantine; its leak check at exit covers it. */
        if (!getenv("PMAPI_TEST_PMAPID"))
                assert_true(rss_after < rss + 8192);
}

typedef struct Churner {
        long long faults;               /* the kernel's count of its faults, its last act */
        int rc;
} Churner;

static void *no_work(void *arg) {
        return arg;
}

static void *churn_thread(void *arg) {
        Churner *c = arg;

        c->rc = touch_fresh_pages(5);
        c->faults = thread_faults();
        return NULL;
}

/* Rows first .. first + max - 1 of the calling thread's group (GetGroupMembersPage): their
 * counter 0 added to *sum, their number to *rows, the group's row count in *total. */
static int members_page(sd_bus *bus, uint32_t first, uint32_t max, long long *sum, unsigned *rows, uint32_t *total) {
        sd_bus_message *reply = NULL;
        uint32_t dropped;
        int r;

        r = sd_bus_call_method(bus, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1", "org.pmapi.PerfMon1.Manager",
                               "GetGroupMembersPage", NULL, &reply, "iiuu", (int32_t) getpid(), (int32_t) gettid(),
                               first, max);
        CHECK(r >= 0);
        CHECK(sd_bus_message_enter_container(reply, 'a', "(iisbax)") >= 0);
        while ((r = sd_bus_message_enter_container(reply, 'r', "iisbax")) > 0) {
                const int64_t *accu;
                size_t n;
                CHECK(sd_bus_message_skip(reply, "iisb") >= 0);
                CHECK(sd_bus_message_read_array(reply, 'x', (const void **) &accu, &n) >= 0);
                CHECK(n >= sizeof(int64_t));
                *sum += accu[0];
                (*rows)++;
                CHECK(sd_bus_message_exit_container(reply) >= 0);
        }
        CHECK(r == 0);
        CHECK(sd_bus_message_exit_container(reply) >= 0);
        CHECK(sd_bus_message_read(reply, "uu", &dropped, total) >= 0);
        CHECK(dropped == 0);
        sd_bus_message_unref(reply);
        return 0;
}

/* The group's value against the sum of its members' rows, read 300 a page, every member stopped:
 * exactly equal; and a page never holds more than 1024 rows, whatever it asks for. The sum, the
 * rows and the calling thread's own row come back. */
static int group_equals_members(long long *ret_sum, unsigned *ret_rows, long long *ret_own) {
        sd_bus *bus = NULL;
        long long sum = 0, ignored = 0;
        unsigned rows = 0, big_page = 0;
        uint32_t total = 0;
        pm_data_t g, own;

        CHECK(sd_bus_open_system(&bus) >= 0);
        CHECK_RC(pm_stop_mythread(), 0);                /* the last live member: nothing moves now */
        CHECK_RC(pm_get_data_mythread(&own), 0);
        CHECK_RC(pm_get_data_mygroup(&g), 0);
        for (uint32_t first = 0; first == 0 || first < total; first += 300)
                CHECK(members_page(bus, first, 300, &sum, &rows, &total) == 0);
        CHECK(rows == total);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        CHECK(members_page(bus, 0, UINT32_MAX, &ignored, &big_page, &total) == 0);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        CHECK(big_page == (total < 1024 ? total : 1024));
        last_page_us = (t1.tv_sec - t0.tv_sec) * 1000000LL + (t1.tv_nsec - t0.tv_nsec) / 1000;
        sd_bus_flush_close_unref(bus);
        CHECK(g.accu[0] == sum);
        CHECK(g.ginfo.flags.b.consistent && !g.ginfo.flags.b.partial);
        CHECK((unsigned) g.ginfo.members == rows);
        CHECK_RC(pm_start_mythread(), 0);
        *ret_sum = sum;
        *ret_rows = rows;
        *ret_own = own.accu[0];
        return 0;
}

static void test_thread_churn_keeps_the_group_exact(void **state) {
        long threads = env_long("PMAPI_SOAK_THREADS", 1000);
        bool born_counting = kernel_inheritance();
        Churner c[THREADS_PER_WAVE];
        pthread_t t[THREADS_PER_WAVE];
        long long sum = 0, own = 0, kernel_sum = 0;
        unsigned rows = 0;
        pm_prog_t prog;

        (void) state;
        assert_int_equal(page_fault_program(&prog, PM_USER | PM_COUNT), 0);
        /* A thread's exit writes libc's data, which the first test's forks left copy-on-write: the
         * first exit after them faults there, after the thread's last act. One thread ends first,
         * uncounted, so that the churn's exits fault no more. */
        assert_int_equal(pthread_create(&t[0], NULL, no_work, NULL), 0);
        assert_int_equal(pthread_join(t[0], NULL), 0);
        assert_int_equal(pm_set_program_mygroup(&prog), 0);
        for (long born = 0; born < threads; born += THREADS_PER_WAVE) {
                for (int i = 0; i < THREADS_PER_WAVE; i++)
                        assert_int_equal(pthread_create(&t[i], NULL, churn_thread, &c[i]), 0);
                for (int i = 0; i < THREADS_PER_WAVE; i++) {
                        assert_int_equal(pthread_join(t[i], NULL), 0);
                        assert_int_equal(c[i].rc, 0);
                        kernel_sum += c[i].faults;
                }
                assert_int_equal(wait_for_context_count(1, 10000), 0);         /* every death seen */
                assert_int_equal(group_equals_members(&sum, &rows, &own), 0);
                assert_int_equal(rows, born + THREADS_PER_WAVE + 1);
                assert_true(sum >= 5 * (born + THREADS_PER_WAVE));
                /* Born counting inside the kernel, a thread counts every fault of its life, and its
                 * last act took the kernel's count of them all: the dead members hold exactly those. */
                if (born_counting)
                        assert_int_equal(sum - own, kernel_sum);
        }
        fprintf(stderr, "# %ld threads through one group: %u members, %lld page faults, exact at every read; "
                "its first page of %u rows: %lld us\n", threads, rows, sum, rows < 1024 ? rows : 1024, last_page_us);
        assert_int_equal(pm_delete_program_mygroup(), 0);
}

static int setup(void **state) {
        (void) state;
        return bus_fixture_start(&fixture, NULL);
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_killed_clients_leave_nothing_behind),
                cmocka_unit_test(test_thread_churn_keeps_the_group_exact),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
