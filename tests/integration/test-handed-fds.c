/* test-handed-fds.c: what pmapid hands a client (OpenLocal's perf fd and two pages) is bounded and
 * dies with its context. A hostile client loops SetProgram -> OpenLocal -> DeleteProgram and keeps a
 * copy of every fd it gets: past its user's budget (MaxContextsPerUser) OpenLocal is refused, so the
 * perf events and memfds it holds stay bounded; every kept perf fd reads nothing new once its context
 * is gone; pmapid's own fds return to where they were; its "Context created" lines are throttled
 * per user; and the budget comes back when the hoarding thread exits. Run as uid 65534 and as root
 * (no budget, but dead fds all the same), at perf_event_paranoid 2 and 3. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <systemd/sd-bus.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "check.h"
#include "paranoid.h"
#include "pmapi.h"
#include "workload.h"

#define BUDGET 6
#define LOOPS 40
#define NOBODY 65534
#define LOG_LINES_PER_SECOND 10         /* pmapid's per-user budget of such lines (log-budget.h) */

static BusFixture fixture;
static int page_flt;
static const char limits_conf[] = "[Limits]\nMaxContextsPerUser=6\n";

typedef struct Hoard {
        int perf[LOOPS];                /* the kept copies of the handed perf fds */
        int n_perf, n_refused;
        char refusal[128];
} Hoard;

static int call(sd_bus *bus, const char *method, sd_bus_message **reply, sd_bus_error *e, const char *types, ...) {
        sd_bus_message *m = NULL;
        va_list ap;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1",
                                           "org.pmapi.PerfMon1.Manager", method);
        if (r < 0)
                return r;
        va_start(ap, types);
        r = sd_bus_message_appendv(m, types, ap);
        va_end(ap);
        if (r >= 0)
                r = sd_bus_call(bus, m, 0, e, reply);
        sd_bus_message_unref(m);
        return r;
}

/* One turn of the hostile loop on the calling thread: keeps what OpenLocal handed, if anything. */
static int hoard_once(sd_bus *bus, Hoard *h) {
        const int32_t me = getpid(), tid = gettid();
        int32_t events[MAX_COUNTERS];
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int fds[3], r;

        for (int i = 0; i < MAX_COUNTERS; i++)
                events[i] = i == 0 ? page_flt : COUNT_NOTHING;
        r = sd_bus_message_new_method_call(bus, &reply, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1",
                                           "org.pmapi.PerfMon1.Manager", "SetProgram");
        CHECK(r >= 0);
        CHECK(sd_bus_message_append(reply, "iii", me, tid, (int32_t) (PM_USER | PM_COUNT)) >= 0);
        CHECK(sd_bus_message_append_array(reply, 'i', events, sizeof(events)) >= 0);
        r = sd_bus_call(bus, reply, 0, &e, NULL);
        sd_bus_message_unref(reply);
        reply = NULL;
        CHECK(r >= 0);
        r = call(bus, "OpenLocal", &reply, &e, "ii", me, tid);
        if (r < 0) {
                (void) snprintf(h->refusal, sizeof(h->refusal), "%s", e.name ?: "");
                h->n_refused++;
                sd_bus_error_free(&e);
        } else {
                CHECK(sd_bus_message_read(reply, "hhh", &fds[0], &fds[1], &fds[2]) >= 0);
                /* The message closes its own: the hoard keeps copies, as a hostile client does. */
                h->perf[h->n_perf++] = fcntl(fds[0], F_DUPFD_CLOEXEC, 3);
                CHECK(h->perf[h->n_perf - 1] >= 0);
                CHECK(fcntl(fds[1], F_DUPFD_CLOEXEC, 3) >= 0 && fcntl(fds[2], F_DUPFD_CLOEXEC, 3) >= 0);
                sd_bus_message_unref(reply);
        }
        CHECK(call(bus, "DeleteProgram", NULL, &e, "ii", me, tid) >= 0);
        return 0;
}

/* Each kept perf fd reads the same bytes (counts and times) before and after 1,000 fresh pages:
 * its context is gone, and so is its counting. */
static int kept_fds_read_nothing_new(const Hoard *h) {
        uint64_t before[LOOPS][8], after[8];

        for (int i = 0; i < h->n_perf; i++)
                CHECK(read(h->perf[i], before[i], sizeof(before[i])) > 0);
        CHECK(touch_fresh_pages(1000) == 0);
        for (int i = 0; i < h->n_perf; i++) {
                memset(after, 0, sizeof(after));
                ssize_t n = read(h->perf[i], after, sizeof(after));
                CHECK(n > 0);
                if (memcmp(before[i], after, (size_t) n) != 0) {
                        fprintf(stderr, "kept fd %d of %d still counts: %llu -> %llu\n", i, h->n_perf,
                                (unsigned long long) before[i][0], (unsigned long long) after[0]);
                        return 1;
                }
        }
        return 0;
}

static int hoard_body(void *arg) {
        bool bounded = *(const bool *) arg;
        sd_bus *bus = NULL;
        Hoard h = {};

        CHECK(sd_bus_open_system(&bus) >= 0);
        for (int i = 0; i < LOOPS; i++)
                CHECK(hoard_once(bus, &h) == 0);
        sd_bus_flush_close_unref(bus);
        if (bounded) {
                CHECK_NEAR(h.n_perf, BUDGET, 0);
                CHECK(h.n_refused == LOOPS - BUDGET);
                CHECK(strcmp(h.refusal, "org.freedesktop.DBus.Error.NotSupported") == 0);
        } else {
                CHECK_NEAR(h.n_perf, LOOPS, 0);         /* root has no budget */
        }
        return kept_fds_read_nothing_new(&h);
}

/* A fresh thread of the user, after the hoarder exited: the budget is back, and libpmapi's own
 * in-process reads work. */
static int fresh_thread_body(void *arg) {
        sd_bus *bus = NULL;
        Hoard h = {};

        (void) arg;
        CHECK(sd_bus_open_system(&bus) >= 0);
        CHECK(hoard_once(bus, &h) == 0);
        sd_bus_flush_close_unref(bus);
        CHECK(h.n_perf == 1 && h.n_refused == 0);
        return 0;
}

static double now_s(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void run_hoard(uid_t uid) {
        bool bounded = uid != 0;
        int base = settled_fds(fixture.daemon_pid);
        int lines = bus_fixture_log_count(&fixture, "Context created", NULL);
        double started = now_s();

        assert_true(base > 0);
        assert_int_equal(run_as(uid, uid, hoard_body, &bounded), 0);
        /* LOOPS contexts created; at most a budget's worth of lines per second started (none when
         * the same user's budget was spent just before). */
        lines = bus_fixture_log_count(&fixture, "Context created", NULL) - lines;
        assert_true(lines <= LOG_LINES_PER_SECOND * (int) (now_s() - started + 1.0));
        assert_int_equal(wait_for_context_count(0, 10000), 0);
        /* pmapid keeps nothing of it: what it handed is the hoarder's, and went with it. */
        assert_int_equal(wait_for_fds(fixture.daemon_pid, base, 10000), base);
        /* A user at its budget has its exited threads looked for at most once a second (handed.c). */
        (void) usleep(1100 * 1000);
        assert_int_equal(run_as(uid, uid, fresh_thread_body, NULL), 0);
}

static void test_handed_fds_are_bounded_and_dead_after_their_context(void **state) {
        (void) state;
        for (int level = 2; level <= 3; level++) {
                assert_int_equal(paranoid_set_for_test(level), 0);
                if (level == 2)
                        run_hoard(NOBODY);
                run_hoard(0);
        }
        paranoid_restore_for_test();
}

static int setup(void **state) {
        pm_info_t info;

        (void) state;
        if (bus_fixture_start(&fixture, NULL) != 0 || bus_fixture_restart_with_config(&fixture, limits_conf) != 0 ||
            pm_init(PM_VERIFIED, &info) != 0)
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
                cmocka_unit_test(test_handed_fds_are_bounded_and_dead_after_their_context),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
