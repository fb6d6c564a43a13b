/* test-context.c: a thread context's state machine (daemon/model/context.c) over the fake counter backend
 * (daemon/kernel/counter-fake.c), whose counts move only when the test says the thread did work while
 * the group was enabled. Checked: the count bit decides the initial state, start and stop switch
 * counting and are idempotent, reset zeroes, reads land on the programmed counters, get_program
 * reports the live state, and a failed open or start leaves nothing open. A spy backend wraps the
 * fake one to count the calls the context makes and to make enable fail. Pidfd ownership is
 * checked with an ordinary fd, since the context only closes it. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <time.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "context.h"
#include "counter.h"
#include "event-table.h"
#include "macro.h"
#include "pmapi.h"
#include "program.h"
#include "program-share.h"

static int setup_table(void **state) {
        EventTable *t = NULL;

        if (event_table_new_unprobed(event_sources, n_event_sources, &t) < 0)
                return -1;
        *state = t;
        return 0;
}

static int teardown_table(void **state) {
        event_table_free(*state);
        return 0;
}

/* The fake backend, with enable and disable counted and enable able to fail. */
static CounterBackend spy_backend;
static unsigned spy_n_enable, spy_n_disable;
static int spy_enable_error;

static int spy_enable(CounterGroup *g) {
        spy_n_enable++;
        if (spy_enable_error)
                return spy_enable_error;
        return counter_backend_fake.enable(g);
}

static int spy_disable(CounterGroup *g) {
        spy_n_disable++;
        return counter_backend_fake.disable(g);
}

static void spy_reset(void) {
        spy_backend = counter_backend_fake;
        spy_backend.name = "spy";
        spy_backend.enable = spy_enable;
        spy_backend.disable = spy_disable;
        spy_n_enable = spy_n_disable = 0;
        spy_enable_error = 0;
}

static Program program_with(uint32_t mode) {
        Program p = { .mode = mode };

        for (int c = 0; c < MAX_COUNTERS; c++)
                p.events[c] = COUNT_NOTHING;
        return p;
}

static Context *new_context(void **state, const Program *p) {
        Context *c = NULL;

        assert_int_equal(context_new(&counter_backend_fake, *state, getpid(), gettid(), getuid(), p,
                                     /* pidfd= */ -1, &c), 0);
        assert_non_null(c);
        assert_ptr_equal(counter_fake_last_opened(), c->counters);
        return c;
}

static void read_counters(Context *c, AcctVector accu) {
        for (int k = 0; k < MAX_COUNTERS; k++)
                accu[k] = -777;                         /* stale data the read must overwrite */
        assert_int_equal(context_read(c, accu), 0);
}

static int64_t read_one(Context *c, int counter) {
        AcctVector accu;

        read_counters(c, accu);
        return accu[counter];
}

static uint64_t mono_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void pause_a_little(void) {
        nanosleep(&(struct timespec) { .tv_nsec = 200 * 1000 }, NULL);
}

/* A thread created at T inherits the state its creator had at T, even if the creator's next
 * calls were handled first; older than the history: the state before its oldest change. */
static void test_counting_at_reports_the_state_at_a_past_time(void **state) {
        Program p = program_with(PM_USER);
        uint64_t t_off, t_on, t_off_again;
        Context *c;

        p.events[0] = EVENT_ID(2);
        c = new_context(state, &p);
        t_off = mono_ns();
        assert_false(context_counting_at(c, t_off));
        pause_a_little();
        assert_int_equal(context_start(c), 0);
        pause_a_little();
        t_on = mono_ns();
        pause_a_little();
        assert_int_equal(context_stop(c), 0);
        assert_int_equal(context_stop(c), 0);           /* no change, no record */
        pause_a_little();
        t_off_again = mono_ns();
        assert_false(context_counting_at(c, t_off));
        assert_true(context_counting_at(c, t_on));
        assert_false(context_counting_at(c, t_off_again));
        assert_false(context_counting_at(c, UINT64_MAX));
        for (int i = 0; i < CONTEXT_STATE_HISTORY + 3; i++) {  /* overflow the history */
                assert_int_equal(context_start(c), 0);
                assert_int_equal(context_stop(c), 0);
        }
        assert_false(context_counting_at(c, 0));        /* before all: before the oldest kept change */
        assert_int_equal(context_start(c), 0);
        assert_true(context_counting_at(c, UINT64_MAX));
        context_free(c);
}

static void test_new_without_count_bit_does_not_count(void **state) {
        Program p = program_with(PM_USER);
        Context *c;

        p.events[0] = EVENT_ID(2);
        c = new_context(state, &p);
        assert_false(c->counting);
        assert_int_equal(read_one(c, 0), 0);
        counter_fake_count(c->counters, 0, 5);          /* work while disabled */
        assert_int_equal(read_one(c, 0), 0);
        context_free(c);
}

static void test_new_with_count_bit_counts_at_once(void **state) {
        Program p = program_with(PM_USER | PM_COUNT);
        Context *c;

        p.events[0] = EVENT_ID(2);
        c = new_context(state, &p);
        assert_true(c->counting);
        assert_int_equal(read_one(c, 0), 0);            /* counters start at 0 */
        counter_fake_count(c->counters, 0, 9);
        assert_int_equal(read_one(c, 0), 9);
        context_free(c);
}

static void test_start_counts_and_stop_freezes(void **state) {
        Program p = program_with(PM_USER);
        Context *c;

        p.events[0] = EVENT_ID(1);
        c = new_context(state, &p);
        assert_int_equal(context_start(c), 0);
        assert_true(c->counting);
        counter_fake_count(c->counters, 0, 5);
        assert_int_equal(read_one(c, 0), 5);

        assert_int_equal(context_stop(c), 0);
        assert_false(c->counting);
        counter_fake_count(c->counters, 0, 7);
        assert_int_equal(read_one(c, 0), 5);
        assert_int_equal(read_one(c, 0), 5);            /* reading does not change the count */

        assert_int_equal(context_start(c), 0);          /* a restart accumulates */
        counter_fake_count(c->counters, 0, 2);
        assert_int_equal(read_one(c, 0), 7);
        context_free(c);
}

static void test_start_and_stop_are_idempotent(void **state) {
        Program p = program_with(PM_USER);
        Context *c;

        p.events[0] = EVENT_ID(1);
        c = new_context(state, &p);
        assert_int_equal(context_stop(c), 0);           /* never started: not an error */
        assert_false(c->counting);
        counter_fake_count(c->counters, 0, 4);
        assert_int_equal(read_one(c, 0), 0);

        assert_int_equal(context_start(c), 0);
        assert_int_equal(context_start(c), 0);
        assert_true(c->counting);
        counter_fake_count(c->counters, 0, 3);
        assert_int_equal(read_one(c, 0), 3);

        assert_int_equal(context_stop(c), 0);
        assert_int_equal(context_stop(c), 0);
        assert_false(c->counting);
        counter_fake_count(c->counters, 0, 3);
        assert_int_equal(read_one(c, 0), 3);
        context_free(c);
}

static void test_reset_zeroes_and_keeps_state(void **state) {
        Program p = program_with(PM_USER | PM_COUNT);
        AcctVector accu;
        Context *c;

        p.events[2] = EVENT_ID(1);
        p.events[6] = EVENT_ID(2);
        c = new_context(state, &p);
        counter_fake_count(c->counters, 0, 100);
        counter_fake_count(c->counters, 1, 200);
        assert_int_equal(context_reset(c), 0);
        read_counters(c, accu);
        for (int k = 0; k < MAX_COUNTERS; k++)
                assert_int_equal(accu[k], 0);
        assert_true(c->counting);                       /* reset does not stop */
        counter_fake_count(c->counters, 1, 8);
        assert_int_equal(read_one(c, 6), 8);

        assert_int_equal(context_stop(c), 0);
        assert_int_equal(context_reset(c), 0);
        assert_int_equal(read_one(c, 6), 0);
        assert_false(c->counting);
        context_free(c);
}

/* The times since the last reset: the kernel keeps counting them through a reset, the context
 * takes them as its base; a group the PMU time-shared reads scaled. */
static void test_times_since_reset_and_scaling(void **state) {
        Program p = program_with(PM_USER | PM_COUNT);
        AcctVector accu;
        Context *c;

        p.events[0] = EVENT_ID(1);
        c = new_context(state, &p);
        counter_fake_count(c->counters, 0, 100);
        counter_fake_advance(c->counters, 1000, 1000);
        read_counters(c, accu);
        assert_int_equal(accu[0], 100);
        assert_int_equal(accu[ACCT_ENABLED], 1000);
        assert_int_equal(accu[ACCT_RUNNING], 1000);
        assert_int_equal(context_reset(c), 0);
        counter_fake_count(c->counters, 0, 30);
        counter_fake_advance(c->counters, 400, 100);            /* on the PMU a quarter of the time */
        read_counters(c, accu);
        assert_int_equal(accu[0], 120);
        assert_int_equal(accu[ACCT_ENABLED], 400);
        assert_int_equal(accu[ACCT_RUNNING], 100);
        assert_int_equal(context_stop(c), 0);
        counter_fake_advance(c->counters, 500, 500);            /* stopped: no time passes for it */
        read_counters(c, accu);
        assert_int_equal(accu[ACCT_ENABLED], 400);
        context_free(c);
}

static void test_read_maps_values_to_programmed_counters(void **state) {
        Program p = program_with(PM_USER | PM_KERNEL | PM_COUNT);
        AcctVector accu;
        Context *c;

        p.events[1] = EVENT_ID(2);
        p.events[5] = EVENT_ID(1);
        c = new_context(state, &p);
        counter_fake_count(c->counters, 0, 10);        /* group member 0: counter 1 */
        counter_fake_count(c->counters, 1, 20);        /* group member 1: counter 5 */
        read_counters(c, accu);
        for (int k = 0; k < MAX_COUNTERS; k++) {
                int64_t want = k == 1 ? 10 : k == 5 ? 20 : 0;
                if (accu[k] != want)
                        fail_msg("counter %d reads %lld, expected %lld", k, (long long) accu[k],
                                 (long long) want);
        }
        context_free(c);
}

static void test_get_program_reports_current_count_state(void **state) {
        Program p = program_with(PM_USER | PM_KERNEL | PM_NO_INHERIT);
        Program got;
        Context *c;

        p.events[3] = EVENT_ID(7);
        c = new_context(state, &p);
        got = context_get_program(c);
        assert_int_equal(got.mode, PM_USER | PM_KERNEL | PM_NO_INHERIT);
        assert_memory_equal(got.events, p.events, sizeof(p.events));

        assert_int_equal(context_start(c), 0);
        got = context_get_program(c);
        assert_int_equal(got.mode, PM_USER | PM_KERNEL | PM_NO_INHERIT | PM_COUNT);
        assert_memory_equal(got.events, p.events, sizeof(p.events));

        assert_int_equal(context_stop(c), 0);
        got = context_get_program(c);
        assert_int_equal(got.mode, PM_USER | PM_KERNEL | PM_NO_INHERIT);
        context_free(c);
}

static void test_get_program_clears_count_bit_after_stop(void **state) {
        Program p = program_with(PM_USER | PM_COUNT);
        Context *c;

        p.events[0] = EVENT_ID(3);
        c = new_context(state, &p);
        assert_int_equal(context_get_program(c).mode, PM_USER | PM_COUNT);
        assert_int_equal(context_stop(c), 0);
        assert_int_equal(context_get_program(c).mode, PM_USER);
        assert_int_equal(c->program->mode, PM_USER | PM_COUNT);  /* the program as set is kept */
        context_free(c);
}

static void test_new_records_target_and_owner(void **state) {
        Program p = program_with(PM_USER);
        Context *c = NULL;

        p.events[0] = EVENT_ID(1);
        assert_int_equal(context_new(&counter_backend_fake, *state, 1234, 1240, 4321, &p, -1, &c), 0);
        assert_int_equal(c->pid, 1234);
        assert_int_equal(c->tid, 1240);
        assert_int_equal(c->owner_uid, 4321);
        assert_int_equal(c->pidfd, -1);
        assert_ptr_equal(c->backend, &counter_backend_fake);
        assert_int_equal(c->encoding->n_events, 1);
        context_free(c);
}

/* Contexts of one program hold one copy of it (and of its encoding), whatever padding the caller's
 * copy carries; the copy goes with the last of them. */
static void test_contexts_share_one_program(void **state) {
        Program p, q, other = program_with(PM_USER | PM_KERNEL);
        Context *a = NULL, *b = NULL, *c = NULL;
        size_t before = program_share_count();

        memset(&q, 0, sizeof(q));
        q.mode = PM_USER;
        for (size_t i = 0; i < MAX_COUNTERS; i++)
                q.events[i] = COUNT_NOTHING;
        q.events[0] = EVENT_ID(1);
        /* The same program field by field over garbage: only its padding differs from q's. */
        memset(&p, 0xa5, sizeof(p));
        memcpy(p.sets, q.sets, sizeof(p.sets));
        p.n_sets = q.n_sets;
        p.slice_ms = q.slice_ms;
        p.multi_mode = q.multi_mode;
        assert_memory_not_equal(&p, &q, sizeof(p));
        other.events[0] = EVENT_ID(1);
        assert_int_equal(context_new(&counter_backend_fake, *state, 1, 1, 0, &p, -1, &a), 0);
        assert_int_equal(context_new(&counter_backend_fake, *state, 1, 2, 0, &q, -1, &b), 0);
        assert_int_equal(context_new(&counter_backend_fake, *state, 1, 3, 0, &other, -1, &c), 0);
        assert_ptr_equal(a->program, b->program);
        assert_ptr_equal(a->encoding, b->encoding);
        assert_ptr_not_equal(a->program, c->program);
        assert_int_equal(program_share_count(), before + 2);
        context_free(a);
        assert_int_equal(b->encoding->n_events, 1);     /* still there for the other holder */
        context_free(b);
        assert_int_equal(program_share_count(), before + 1);
        context_free(c);
        assert_int_equal(program_share_count(), before);
}

static void test_free_closes_the_counters(void **state) {
        Program p = program_with(PM_USER);
        size_t before = counter_fake_n_open();
        Context *a, *b;

        p.events[0] = EVENT_ID(1);
        a = new_context(state, &p);
        b = new_context(state, &p);
        assert_int_equal(counter_fake_n_open(), before + 2);
        assert_null(context_free(a));
        assert_int_equal(counter_fake_n_open(), before + 1);
        assert_null(context_free(b));
        assert_int_equal(counter_fake_n_open(), before);
        assert_null(context_free(NULL));
}

static void test_failed_open_returns_error_and_leaves_nothing_open(void **state) {
        Program p = program_with(PM_USER | PM_COUNT);
        Context *sentinel = (Context *) &p, *c = sentinel;
        size_t before = counter_fake_n_open();

        p.events[0] = EVENT_ID(1);
        p.events[1] = EVENT_ID(2);
        counter_fake_fail_next_open(-ENOENT);
        assert_int_equal(context_new(&counter_backend_fake, *state, getpid(), gettid(), getuid(), &p, -1, &c),
                         -ENOENT);
        assert_int_equal(counter_fake_n_open(), before);
        assert_ptr_equal(c, sentinel);                  /* ret_ is set on success only */

        /* The failure was for one open only. */
        c = new_context(state, &p);
        assert_int_equal(counter_fake_n_open(), before + 1);
        context_free(c);
        assert_int_equal(counter_fake_n_open(), before);
}

static void test_second_start_or_stop_leaves_counters_alone(void **state) {
        Program p = program_with(PM_USER);
        Context *c = NULL;

        spy_reset();
        p.events[0] = EVENT_ID(1);
        assert_int_equal(context_new(&spy_backend, *state, getpid(), gettid(), getuid(), &p, -1, &c), 0);
        assert_int_equal(spy_n_enable, 0);
        assert_int_equal(context_start(c), 0);
        assert_int_equal(context_start(c), 0);
        assert_int_equal(spy_n_enable, 1);
        assert_int_equal(context_stop(c), 0);
        assert_int_equal(context_stop(c), 0);
        assert_int_equal(spy_n_disable, 1);
        context_free(c);
}

static void test_failed_start_leaves_context_stopped(void **state) {
        Program p = program_with(PM_USER);
        Context *c = NULL;

        spy_reset();
        p.events[0] = EVENT_ID(1);
        assert_int_equal(context_new(&spy_backend, *state, getpid(), gettid(), getuid(), &p, -1, &c), 0);
        spy_enable_error = -EIO;
        assert_int_equal(context_start(c), -EIO);
        assert_false(c->counting);
        assert_int_equal(context_get_program(c).mode, PM_USER);
        counter_fake_count(c->counters, 0, 5);
        assert_int_equal(read_one(c, 0), 0);

        spy_enable_error = 0;                           /* a later start works */
        assert_int_equal(context_start(c), 0);
        assert_true(c->counting);
        context_free(c);
}

static void test_failed_initial_start_closes_the_counters(void **state) {
        Program p = program_with(PM_USER | PM_COUNT);
        size_t before = counter_fake_n_open();
        Context *c = NULL;
        int fd;

        spy_reset();
        p.events[0] = EVENT_ID(1);
        spy_enable_error = -EIO;
        fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(context_new(&spy_backend, *state, getpid(), gettid(), getuid(), &p, fd, &c), -EIO);
        assert_null(c);
        assert_int_equal(spy_n_enable, 1);
        assert_int_equal(counter_fake_n_open(), before);
        assert_true(fcntl(fd, F_GETFD) >= 0);           /* not taken on failure */
        close(fd);
}

static bool fd_is_open(int fd) {
        return fcntl(fd, F_GETFD) >= 0;
}

static void test_pidfd_is_taken_on_success_only(void **state) {
        Program p = program_with(PM_USER);
        Context *c = NULL;
        int fd;

        p.events[0] = EVENT_ID(1);
        fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        counter_fake_fail_next_open(-EMFILE);
        assert_int_equal(context_new(&counter_backend_fake, *state, getpid(), gettid(), getuid(), &p, fd, &c),
                         -EMFILE);
        assert_true(fd_is_open(fd));                    /* still the caller's */

        assert_int_equal(context_new(&counter_backend_fake, *state, getpid(), gettid(), getuid(), &p, fd, &c),
                         0);
        assert_int_equal(c->pidfd, fd);
        context_free(c);
        assert_false(fd_is_open(fd));                   /* the context closed it */
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_counting_at_reports_the_state_at_a_past_time),
                cmocka_unit_test(test_new_without_count_bit_does_not_count),
                cmocka_unit_test(test_new_with_count_bit_counts_at_once),
                cmocka_unit_test(test_start_counts_and_stop_freezes),
                cmocka_unit_test(test_start_and_stop_are_idempotent),
                cmocka_unit_test(test_reset_zeroes_and_keeps_state),
                cmocka_unit_test(test_read_maps_values_to_programmed_counters),
                cmocka_unit_test(test_times_since_reset_and_scaling),
                cmocka_unit_test(test_get_program_reports_current_count_state),
                cmocka_unit_test(test_get_program_clears_count_bit_after_stop),
                cmocka_unit_test(test_new_records_target_and_owner),
                cmocka_unit_test(test_contexts_share_one_program),
                cmocka_unit_test(test_free_closes_the_counters),
                cmocka_unit_test(test_failed_open_returns_error_and_leaves_nothing_open),
                cmocka_unit_test(test_pidfd_is_taken_on_success_only),
                cmocka_unit_test(test_second_start_or_stop_leaves_counters_alone),
                cmocka_unit_test(test_failed_start_leaves_context_stopped),
                cmocka_unit_test(test_failed_initial_start_closes_the_counters),
        };

        return cmocka_run_group_tests(tests, setup_table, teardown_table);
}
