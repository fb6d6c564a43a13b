/* test-accounting.c: every row of AIX's group accounting (docs/design.md, "Group accounting",
 * rows R1-R10) with exact numbers, on member contexts over the fake counter backend, and
 * interleavings of the rows: reset during a stopped group, leave after another member's death,
 * group delete with live members. Each test names the rows it covers. Counter 0 counts "work" in
 * the fake backend only while the member's counters are enabled. R11 (a thread that cannot join)
 * and R12 (the group released with its last live member) need the Manager: they are tested in
 * tests/integration/test-wide-groups.c and tests/unit/test-manager.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "accounting.h"
#include "counter.h"
#include "event-table.h"
#include "group.h"

static EventTable *table;

static Context *member(int mode) {
        Program p = { .mode = (uint32_t) mode };
        Context *c;

        for (int i = 0; i < MAX_COUNTERS; i++)
                p.events[i] = COUNT_NOTHING;
        p.events[0] = EVENT_ID(2);        /* PM_PAGE_FLT */
        p.events[1] = EVENT_ID(1);        /* PM_TASK_CLOCK */
        assert_int_equal(context_new(&counter_backend_fake, table, 100, 100, 0, &p, -1, &c), 0);
        return c;
}

static Group *group_of(int mode) {
        Program p = { .mode = (uint32_t) mode };
        Group *g;

        for (int i = 0; i < MAX_COUNTERS; i++)
                p.events[i] = COUNT_NOTHING;
        p.events[0] = EVENT_ID(2);
        p.events[1] = EVENT_ID(1);
        assert_int_equal(group_new(1, 100, 0, &p, false, &g), 0);
        return g;
}

/* The thread does work: counter 0 gains n, counter 1 gains 10 n (counted only if enabled). */
static void work(Context *c, uint64_t n) {
        counter_fake_count(c->counters, 0, n);
        counter_fake_count(c->counters, 1, 10 * n);
}

static int64_t thread_value(Context *c) {
        AcctVector v;
        assert_int_equal(context_read(c, v), 0);
        assert_int_equal(v[1], 10 * v[0]);
        return v[0];
}

static int64_t group_value(Group *g) {
        AcctVector v;
        assert_int_equal(group_read(g, v), 0);
        assert_int_equal(v[1], 10 * v[0]);
        for (int i = 2; i < MAX_COUNTERS; i++)
                assert_int_equal(v[i], 0);
        return v[0];
}

/* The formula and R2, R7, R8, R10 as bare arithmetic: the AND, a death, a group reset and its
 * consistency, group = retained + sum of live. */
static void test_pure_rules(void **state) {
        AcctVector retained = { 5 }, live[2] = { { 7 }, { 11 } }, out;

        (void) state;
        assert_true(acct_effective(true, true));
        assert_false(acct_effective(true, false));
        assert_false(acct_effective(false, true));
        acct_group_value(retained, live, 2, out);
        assert_int_equal(out[0], 23);
        acct_member_died(retained, live[0]);
        assert_int_equal(retained[0], 12);
        acct_group_reset(retained, &live[1], 1);
        assert_int_equal(retained[0], -11);
        assert_true(acct_consistent_after_reset(1));
        assert_false(acct_consistent_after_reset(2));
}

/* R10, a thread's read: counts scaled to the enabled time where the PMU time-shared them, as perf
 * stat does; the times since the last reset; a group that never ran keeps 0 and says so. */
static void test_counts_and_times_from_the_kernels_numbers(void **state) {
        int64_t counts[MAX_COUNTERS] = { 1000, 0, 7 };
        int64_t big[MAX_COUNTERS] = { INT64_C(1000000000000000) };
        AcctVector v;

        (void) state;
        acct_from_counts(v, counts, 100, 100, 0, 0);            /* always on the PMU: exact */
        assert_int_equal(v[0], 1000);
        assert_int_equal(v[2], 7);
        assert_int_equal(v[ACCT_ENABLED], 100);
        assert_int_equal(v[ACCT_RUNNING], 100);
        acct_from_counts(v, counts, 100, 50, 0, 0);             /* half the time: twice the count */
        assert_int_equal(v[0], 2000);
        assert_int_equal(v[2], 14);
        assert_int_equal(v[ACCT_RUNNING], 50);
        acct_from_counts(v, counts, 1300, 1050, 300, 50);       /* since a reset at (300, 50) */
        assert_int_equal(v[0], 1000);
        assert_int_equal(v[ACCT_ENABLED], 1000);
        assert_int_equal(v[ACCT_RUNNING], 1000);
        acct_from_counts(v, counts, 1300, 550, 300, 50);
        assert_int_equal(v[0], 2000);
        acct_from_counts(v, (int64_t[MAX_COUNTERS]) {}, 100, 0, 0, 0);     /* never ran */
        assert_int_equal(v[0], 0);
        assert_int_equal(v[ACCT_ENABLED], 100);
        assert_int_equal(v[ACCT_RUNNING], 0);
        acct_from_counts(v, big, UINT64_C(1000000000000), UINT64_C(100000000000), 0, 0);  /* no overflow */
        assert_int_equal(v[0], INT64_C(10000000000000000));
        acct_from_counts(v, counts, 100, 100, 200, 200);        /* a base past the times: nothing */
        assert_int_equal(v[ACCT_ENABLED], 0);
        assert_int_equal(v[0], 1000);
}

/* R7, R8 and R10 for the times: they follow the group rules as counts do: a dead member's stay, a
 * group reset cancels. */
static void test_times_follow_the_group_rules(void **state) {
        AcctVector retained = {}, live[2] = {}, out;

        (void) state;
        live[0][ACCT_RUNNING] = 30;
        live[1][ACCT_RUNNING] = 12;
        acct_group_value(retained, live, 2, out);
        assert_int_equal(out[ACCT_RUNNING], 42);
        acct_member_died(retained, live[0]);
        acct_group_value(retained, &live[1], 1, out);
        assert_int_equal(out[ACCT_RUNNING], 42);
        acct_group_reset(retained, &live[1], 1);
        acct_group_value(retained, &live[1], 1, out);
        assert_int_equal(out[ACCT_RUNNING], 0);
}

/* R1: a new member starts at zero, the group is unchanged, members + 1. */
static void test_new_member_starts_at_zero_and_group_unchanged(void **state) {
        Group *g = group_of(PM_USER | PM_COUNT);
        Context *a = member(PM_USER | PM_COUNT), *b;

        (void) state;
        assert_int_equal(group_add(g, a), 0);
        work(a, 30);
        b = member(PM_USER | PM_COUNT);                 /* created by a: inherits, data 0 */
        assert_int_equal(group_add(g, b), 0);
        assert_int_equal(thread_value(b), 0);
        assert_int_equal(group_value(g), 30);
        assert_int_equal(g->n_members, 2);
        assert_true(g->consistent);
        work(b, 5);
        assert_int_equal(group_value(g), 35);
        group_member_left(g, b);
        group_member_left(g, a);
        context_free(a), context_free(b), group_free(g);
}

/* R2 and R3: own state AND group state. */
static void test_member_counts_only_when_its_state_and_the_groups_are_on(void **state) {
        Group *g = group_of(PM_USER);                   /* group off */
        Context *a = member(PM_USER | PM_COUNT);        /* thread on */

        (void) state;
        assert_int_equal(group_add(g, a), 0);
        work(a, 10);                                    /* on AND off: nothing */
        assert_int_equal(thread_value(a), 0);
        assert_int_equal(group_start(g, a), 0);
        work(a, 10);
        assert_int_equal(thread_value(a), 10);
        assert_int_equal(context_stop(a), 0);           /* off AND on: nothing */
        work(a, 10);
        assert_int_equal(thread_value(a), 10);
        assert_int_equal(group_value(g), 10);
        group_member_left(g, a);
        context_free(a), group_free(g);
}

/* R4 and R3: group stop and start switch the caller; other members keep their own states. */
static void test_group_stop_and_start_resume_only_members_whose_own_state_is_on(void **state) {
        Group *g = group_of(PM_USER | PM_COUNT);
        Context *caller = member(PM_USER | PM_COUNT), *on = member(PM_USER | PM_COUNT), *off = member(PM_USER);

        (void) state;
        assert_int_equal(group_add(g, caller), 0);
        assert_int_equal(group_add(g, on), 0);
        assert_int_equal(group_add(g, off), 0);
        assert_int_equal(group_stop(g, caller), 0);     /* clears the group and the caller only */
        assert_false(caller->counting);
        assert_true(on->counting);
        work(caller, 1), work(on, 1), work(off, 1);
        assert_int_equal(group_value(g), 0);
        assert_int_equal(group_start(g, caller), 0);    /* caller and group on; "on" resumes */
        work(caller, 2), work(on, 3), work(off, 4);
        assert_int_equal(thread_value(caller), 2);
        assert_int_equal(thread_value(on), 3);
        assert_int_equal(thread_value(off), 0);
        assert_int_equal(group_value(g), 5);
        group_member_left(g, caller), group_member_left(g, on), group_member_left(g, off);
        context_free(caller), context_free(on), context_free(off), group_free(g);
}

/* R5: a member's own reset. */
static void test_member_reset_subtracts_its_data_and_keeps_consistency(void **state) {
        Group *g = group_of(PM_USER | PM_COUNT);
        Context *a = member(PM_USER | PM_COUNT), *b = member(PM_USER | PM_COUNT);

        (void) state;
        assert_int_equal(group_add(g, a), 0);
        assert_int_equal(group_add(g, b), 0);
        work(a, 40), work(b, 2);
        assert_int_equal(context_reset(a), 0);
        assert_int_equal(thread_value(a), 0);
        assert_int_equal(group_value(g), 2);
        assert_true(g->consistent);
        assert_int_equal(g->n_members, 2);
        group_member_left(g, a), group_member_left(g, b);
        context_free(a), context_free(b), group_free(g);
}

/* R6: a member leaves. */
static void test_leaver_takes_its_data_and_is_not_a_member(void **state) {
        Group *g = group_of(PM_USER | PM_COUNT);
        Context *a = member(PM_USER | PM_COUNT), *b = member(PM_USER | PM_COUNT);

        (void) state;
        assert_int_equal(group_add(g, a), 0);
        assert_int_equal(group_add(g, b), 0);
        work(a, 7), work(b, 9);
        group_member_left(g, b);
        assert_int_equal(group_value(g), 7);
        assert_int_equal(g->n_members, 1);
        assert_true(g->consistent);
        assert_null(b->group);
        group_member_left(g, a);
        context_free(a), context_free(b), group_free(g);
}

/* R7: a member dies. */
static void test_dead_member_data_stays_and_it_still_counts_as_member(void **state) {
        Group *g = group_of(PM_USER | PM_COUNT);
        Context *a = member(PM_USER | PM_COUNT), *b = member(PM_USER | PM_COUNT);

        (void) state;
        assert_int_equal(group_add(g, a), 0);
        assert_int_equal(group_add(g, b), 0);
        work(a, 7), work(b, 9);
        assert_int_equal(group_member_died(g, b), 0);
        context_free(b);                                /* the context is gone with the thread */
        assert_int_equal(group_value(g), 16);
        assert_int_equal(g->n_members, 2);
        work(a, 1);
        assert_int_equal(group_value(g), 17);
        group_member_left(g, a);
        context_free(a), group_free(g);
}

/* R8 with two members, then R6 after it, then R8 with one. */
static void test_group_reset_zeroes_group_and_caller_and_marks_inconsistent(void **state) {
        Group *g = group_of(PM_USER | PM_COUNT);
        Context *a = member(PM_USER | PM_COUNT), *b = member(PM_USER | PM_COUNT);

        (void) state;
        assert_int_equal(group_add(g, a), 0);
        assert_int_equal(group_add(g, b), 0);
        work(a, 7), work(b, 9);
        assert_int_equal(group_reset(g, a), 0);
        assert_int_equal(group_value(g), 0);
        assert_int_equal(thread_value(a), 0);
        assert_int_equal(thread_value(b), 9);           /* others keep theirs */
        assert_false(g->consistent);
        work(a, 1), work(b, 2);
        assert_int_equal(group_value(g), 3);            /* counts on from zero */
        group_member_left(g, b);
        assert_false(g->consistent);                    /* only a reset with one member mends it */
        assert_int_equal(group_reset(g, a), 0);
        assert_true(g->consistent);
        assert_int_equal(group_value(g), 0);
        group_member_left(g, a);
        context_free(a), context_free(b), group_free(g);
}

/* R8 with one member. */
static void test_group_reset_with_one_member_stays_consistent(void **state) {
        Group *g = group_of(PM_USER | PM_COUNT);
        Context *a = member(PM_USER | PM_COUNT);

        (void) state;
        assert_int_equal(group_add(g, a), 0);
        work(a, 5);
        assert_int_equal(group_reset(g, a), 0);
        assert_true(g->consistent);
        assert_int_equal(group_value(g), 0);
        group_member_left(g, a);
        context_free(a), group_free(g);
}

/* R5 between R4 and R3. */
static void test_reset_during_stopped_group(void **state) {
        Group *g = group_of(PM_USER | PM_COUNT);
        Context *a = member(PM_USER | PM_COUNT), *b = member(PM_USER | PM_COUNT);

        (void) state;
        assert_int_equal(group_add(g, a), 0);
        assert_int_equal(group_add(g, b), 0);
        work(a, 4), work(b, 6);
        assert_int_equal(group_stop(g, a), 0);
        assert_int_equal(context_reset(b), 0);          /* b resets while nothing counts */
        work(a, 100), work(b, 100);
        assert_int_equal(group_value(g), 4);
        assert_int_equal(group_start(g, a), 0);
        work(a, 1), work(b, 1);
        assert_int_equal(group_value(g), 6);
        assert_true(g->consistent);
        group_member_left(g, a), group_member_left(g, b);
        context_free(a), context_free(b), group_free(g);
}

/* R6 after R7. */
static void test_leave_after_another_members_death(void **state) {
        Group *g = group_of(PM_USER | PM_COUNT);
        Context *a = member(PM_USER | PM_COUNT), *b = member(PM_USER | PM_COUNT), *c = member(PM_USER | PM_COUNT);

        (void) state;
        assert_int_equal(group_add(g, a), 0);
        assert_int_equal(group_add(g, b), 0);
        assert_int_equal(group_add(g, c), 0);
        work(a, 1), work(b, 10), work(c, 100);
        assert_int_equal(group_member_died(g, b), 0);
        context_free(b);
        group_member_left(g, c);
        assert_int_equal(group_value(g), 11);           /* a's 1 + dead b's 10 */
        assert_int_equal(g->n_members, 2);
        group_member_left(g, a);
        assert_int_equal(group_value(g), 10);           /* the dead member's data outlives everyone */
        context_free(a), context_free(c), group_free(g);
}

/* R9, the group's side: its live members are detached (the Manager then deletes their contexts). */
static void test_group_delete_with_live_members_detaches_them(void **state) {
        Group *g = group_of(PM_USER | PM_COUNT);
        Context *a = member(PM_USER | PM_COUNT), *b = member(PM_USER | PM_COUNT);

        (void) state;
        assert_int_equal(group_add(g, a), 0);
        assert_int_equal(group_add(g, b), 0);
        group_free(g);
        assert_null(a->group);
        assert_null(b->group);
        context_free(a), context_free(b);
        assert_int_equal(counter_fake_n_open(), 0);
}

static int setup(void **state) {
        (void) state;
        return event_table_new_unprobed(event_sources, n_event_sources, &table);
}

static int teardown(void **state) {
        (void) state;
        event_table_free(table);
        return 0;
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_pure_rules),
                cmocka_unit_test(test_counts_and_times_from_the_kernels_numbers),
                cmocka_unit_test(test_times_follow_the_group_rules),
                cmocka_unit_test(test_new_member_starts_at_zero_and_group_unchanged),
                cmocka_unit_test(test_member_counts_only_when_its_state_and_the_groups_are_on),
                cmocka_unit_test(test_group_stop_and_start_resume_only_members_whose_own_state_is_on),
                cmocka_unit_test(test_member_reset_subtracts_its_data_and_keeps_consistency),
                cmocka_unit_test(test_leaver_takes_its_data_and_is_not_a_member),
                cmocka_unit_test(test_dead_member_data_stays_and_it_still_counts_as_member),
                cmocka_unit_test(test_group_reset_zeroes_group_and_caller_and_marks_inconsistent),
                cmocka_unit_test(test_group_reset_with_one_member_stays_consistent),
                cmocka_unit_test(test_reset_during_stopped_group),
                cmocka_unit_test(test_leave_after_another_members_death),
                cmocka_unit_test(test_group_delete_with_live_members_detaches_them),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
