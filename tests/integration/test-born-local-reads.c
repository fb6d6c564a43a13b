/* test-born-local-reads.c: a thread born counting inside the kernel reads itself in process too.
 * It has no perf fd of its own at birth (the kernel sums its slices in a map); its first read over
 * the bus gets it counters of its own, and the page pmapid hands it carries what the kernel had
 * counted until then. As root and as uid 65534:
 * - its reads are exact from its first instruction (the kernel's own count of the thread's page
 *   faults brackets a stop) across the handle's opening, stopped or counting;
 * - 10,000 reads add no page fault, and pmapid's read of it agrees exactly;
 * - its counted time does not go back when the handle opens, and a reset in process drops what
 *   was carried;
 * - a re-executed pmapid keeps it all: the old handle falls back to the bus, which reads the same
 *   counts, and a new handle reads on from there;
 * - a hostile OpenLocal from another thread of the process, for a born thread that is busy
 *   faulting on a CPU, leaves that thread's counts exact, whether pmapid refuses it (the thread is
 *   on a CPU) or grants it (it was between slices). */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <systemd/sd-bus.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "bus-names.h"
#include "check.h"
#include "pmapi.h"
#include "workload.h"

#define READS 10000

static BusFixture fixture;

static uint64_t length_ns(const timebasestruct_t *t) {
        return (uint64_t) t->tb_high << 32 | t->tb_low;
}

/* The perf fds of this process: the handle's, once the born thread has one. */
static int perf_fds_now(void) {
        return perf_fds_of(getpid(), NULL, 0);
}

/* The kernel's own count of the thread's faults brackets a stop over the bus, made before the
 * handle: its maps of the handle's pages fault in without a fault the counters see (MAP_POPULATE),
 * so later brackets would not hold. */
static int born_body(void *arg) {
        pm_data_t a, b, c, theirs;
        pm_accu_time_t t0, t1;
        int fds_before = *(int *) arg;
        KernelView k;

        CHECK(touch_fresh_pages(300) == 0);
        CHECK_RC(stop_seen_by_kernel(&k), 0);
        CHECK_RC(pm_get_Tdata_mythread(&a, &t0), 0);    /* over the bus: asks for the handle */
        CHECK_SEEN_BY_KERNEL(a.accu[0], 300, k);
        CHECK(perf_fds_now() == fds_before + 1);        /* the handle: one fd */
        CHECK_RC(pm_get_Tdata_mythread(&b, &t1), 0);    /* in process, with what was carried */
        CHECK(memcmp(a.accu, b.accu, sizeof(a.accu)) == 0);
        CHECK(length_ns(&t1.accu_purr) == length_ns(&t0.accu_purr));   /* stopped: the time stands */
        CHECK(length_ns(&t1.accu_timebase) == length_ns(&t0.accu_timebase));
        CHECK_RC(pm_start_mythread(), 0);               /* in process */
        CHECK(touch_fresh_pages(200) == 0);
        CHECK_RC(pm_get_Tdata_mythread(&b, &t1), 0);
        for (int i = 0; i < READS; i++)
                CHECK_RC(pm_get_data_mythread(&c), 0);
        CHECK_RC(pm_get_data_mythread(&c), 0);
        CHECK(memcmp(b.accu, c.accu, sizeof(b.accu)) == 0);     /* 10,000 reads: not one fault */
        CHECK(length_ns(&t1.accu_purr) > length_ns(&t0.accu_purr));
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(pm_get_data_mythread(&c), 0);
        CHECK_RANGE(c.accu[0] - a.accu[0], 200, 202);
        CHECK_RC(pm_get_data_thread(getpid(), gettid(), &theirs), 0);
        CHECK(memcmp(c.accu, theirs.accu, sizeof(c.accu)) == 0);        /* pmapid reads what we do */
        /* A reset in process drops the carried part too, and pmapid learns it. */
        CHECK_RC(pm_start_mythread(), 0);
        CHECK_RC(pm_reset_data_mythread(), 0);
        CHECK_RC(pm_get_data_mythread(&a), 0);
        CHECK(a.accu[0] == 0 && a.accu[1] == 0);
        CHECK(touch_fresh_pages(100) == 0);
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(pm_get_data_mythread(&a), 0);
        CHECK_RANGE(a.accu[0], 100, 102);
        CHECK_RC(pm_get_data_thread(getpid(), gettid(), &theirs), 0);
        CHECK(memcmp(a.accu, theirs.accu, sizeof(a.accu)) == 0);
        CHECK(perf_fds_now() == fds_before + 1);        /* still the same handle */
        return 0;
}

typedef struct Born {
        int (*body)(void *arg);
        void *arg;
        int result;
} Born;

static void *born_main(void *p) {
        Born *b = p;

        b->result = b->body(b->arg);
        return NULL;
}

/* Runs body in a new thread of this one, which counts page faults and passes them on: the thread
 * is born counting inside the kernel. */
static int run_born(int (*body)(void *arg)) {
        Born b = { .body = body, .result = -1 };
        pm_prog_t prog;
        pthread_t t;
        int fds;

        CHECK(page_fault_program(&prog, PM_USER | PM_COUNT) == 0);
        CHECK_RC(pm_set_program_mythread(&prog), 0);
        fds = perf_fds_now();
        b.arg = &fds;
        CHECK(pthread_create(&t, NULL, born_main, &b) == 0);
        CHECK(pthread_join(t, NULL) == 0);
        CHECK_RC(pm_delete_program_mythread(), 0);
        return b.result;
}

static int born_reads(void *arg) {
        (void) arg;
        return run_born(born_body);
}

static void test_born_thread_reads_itself_exactly(void **state) {
        (void) state;
        if (!kernel_inheritance())
                skip();
        assert_int_equal(born_reads(NULL), 0);
        assert_int_equal(run_as_nobody(born_reads, NULL), 0);
}

/* A re-executed pmapid: the handle falls back to the bus, which reads what it did (the kernel's
 * sums and the thread's own counters both came across), and a new handle reads on. */
static int reexec_body(void *arg) {
        pm_data_t a, b;
        int fds_before = *(int *) arg;

        pm_data_t first;

        CHECK(touch_fresh_pages(100) == 0);
        CHECK_RC(pm_get_data_mythread(&first), 0);      /* asks for the handle, counting */
        CHECK(touch_fresh_pages(100) == 0);
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(pm_get_data_mythread(&a), 0);
        CHECK_RANGE(a.accu[0] - first.accu[0], 100, 102);
        CHECK(kill(fixture.daemon_pid, SIGHUP) == 0);
        for (int i = 0; i < 100 && perf_fds_now() == fds_before + 1; i++) {
                CHECK_RC(pm_get_data_mythread(&b), 0);  /* until the old page says it is gone */
                usleep(10000);
        }
        CHECK_RC(pm_get_data_mythread(&b), 0);          /* over the bus, from the new image */
        CHECK(memcmp(a.accu, b.accu, sizeof(a.accu)) == 0);
        CHECK(perf_fds_now() == fds_before + 1);        /* and a new handle */
        CHECK_RC(pm_get_data_mythread(&b), 0);          /* in process */
        CHECK(memcmp(a.accu, b.accu, sizeof(a.accu)) == 0);
        CHECK_RC(pm_start_mythread(), 0);
        CHECK(touch_fresh_pages(100) == 0);
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(pm_get_data_mythread(&b), 0);
        CHECK_RANGE(b.accu[0] - a.accu[0], 100, 102);
        return 0;
}

static void test_reexec_keeps_a_born_threads_counters(void **state) {
        (void) state;
        if (!kernel_inheritance())
                skip();
        assert_int_equal(run_born(reexec_body), 0);
}

/* A born thread that faults page after page until told to stop (napping nap_us after every 16 pages
 * where nap_us is not 0), then stops its counting over the bus, bracketed by the kernel's own count
 * of its faults, and waits to be released. */
typedef struct Faulter {
        unsigned nap_us;
        volatile pid_t tid;
        volatile bool stop;
        volatile bool stopped;
        volatile bool release;
        KernelView k;
        int rc;
} Faulter;

static void *faulter_main(void *p) {
        Faulter *f = p;

        f->tid = (pid_t) syscall(SYS_gettid);
        while (!f->stop) {
                if (touch_fresh_pages(16) < 0)
                        break;
                if (f->nap_us)
                        usleep(f->nap_us);
        }
        f->rc = stop_seen_by_kernel(&f->k);
        f->stopped = true;
        while (!f->release)                     /* its context lives while it does */
                usleep(1000);
        return NULL;
}

/* OpenLocal for the faulter, as another thread of its process may call it: the reply's fds, if
 * any, are closed at once. 1 granted, 0 refused with NotSupported, -1 anything else. */
static int open_local_for(pid_t tid) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        sd_bus *bus = NULL;
        int r, outcome = -1;

        if (sd_bus_open_system(&bus) < 0)
                return -1;
        r = sd_bus_call_method(bus, PMAPI_SERVICE, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE, "OpenLocal", &error,
                               &reply, "ii", (int) getpid(), (int) tid);
        if (r >= 0)
                outcome = 1;
        else if (sd_bus_error_has_name(&error, SD_BUS_ERROR_NOT_SUPPORTED))
                outcome = 0;
        else
                fprintf(stderr, "OpenLocal: %s\n", error.message ? error.message : strerror(-r));
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);            /* closes the fds it carried */
        sd_bus_flush_close_unref(bus);
        return outcome;
}

/* Asks for the faulter's handle 20 times while it runs: it counts exactly what the kernel says it
 * faulted. pmapid hands a thread over to its own counters only while it is blocked, and undoes the
 * handover if the thread ran meanwhile: a busy thread (only ever preempted) is refused every time,
 * one that naps is granted mostly, and sometimes wakes in the middle (a CI run lost 321 faults of
 * 29,488 when a preempted thread was handed over). */
static void hostile_opens(unsigned nap_us) {
        Faulter f = { .nap_us = nap_us };
        pm_prog_t prog;
        pm_data_t d;
        pthread_t t;
        int granted = 0, refused = 0;
        uint64_t ambiguous;

        ambiguous = ambiguous_slices();
        assert_int_equal(page_fault_program(&prog, PM_USER | PM_COUNT), 0);
        assert_int_equal(pm_set_program_mythread(&prog), 0);
        assert_int_equal(pthread_create(&t, NULL, faulter_main, &f), 0);
        while (!f.tid)
                sched_yield();
        usleep(10000);                          /* it runs, born counting */
        for (int i = 0; i < 20; i++) {
                int o = open_local_for(f.tid);

                assert_true(o >= 0);
                granted += o == 1;
                refused += o == 0;
                usleep(2000);
        }
        f.stop = true;
        while (!f.stopped)
                usleep(1000);
        assert_int_equal(f.rc, 0);
        assert_int_equal(pm_get_data_thread(getpid(), f.tid, &d), 0);
        f.release = true;
        assert_int_equal(pthread_join(t, NULL), 0);
        ambiguous = ambiguous_slices() - ambiguous;
        print_message("# 20 OpenLocal calls for a sibling faulting with %u us naps: %d refused, %d granted; it "
                      "counted %lld faults, the kernel %lld to %lld; %llu slices ambiguous\n", nap_us, refused,
                      granted, d.accu[0], f.k.before, f.k.after, (unsigned long long) ambiguous);
        assert_in_range(d.accu[0], f.k.before, f.k.after);
        if (nap_us == 0)
                assert_int_equal(granted, 0);
        assert_int_equal(pm_delete_program_mythread(), 0);
}

static void test_hostile_open_for_a_busy_sibling_keeps_it_exact(void **state) {
        (void) state;
        if (!kernel_inheritance())
                skip();
        hostile_opens(0);
        hostile_opens(100);
}

static int setup(void **state) {
        pm_info_t info;

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
                cmocka_unit_test(test_born_thread_reads_itself_exactly),
                cmocka_unit_test(test_reexec_keeps_a_born_threads_counters),
                cmocka_unit_test(test_hostile_open_for_a_busy_sibling_keeps_it_exact),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
