/* test-pmu-budget.c: the split of the CPU PMU's counters between pinned sources of carried hardware
 * events and the perf groups pmapid opens (pmu-budget.h), on a PMU of 6 counters and a share of 4:
 * no group that the pins leave no room for, no pin past the share or past an open group's room,
 * and counters come back from the reclaim hook before anything is refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "pmu-budget.h"

static int reclaimed;

static bool give_one_back(void) {
        if (pmu_budget_pinned() == 0)
                return false;
        pmu_budget_unpin();
        reclaimed++;
        return true;
}

static void test_groups_and_pins_share_the_counters(void **state) {
        (void) state;
        pmu_budget_configure(6, 4);
        assert_int_equal(pmu_budget_group_opened(6), 0);        /* nothing pinned: the whole PMU */
        assert_int_equal(pmu_budget_pin(), -ENOSPC);            /* it would never count again */
        pmu_budget_group_closed(6);
        for (int i = 0; i < 4; i++)
                assert_int_equal(pmu_budget_pin(), 0);
        assert_int_equal(pmu_budget_pin(), -ENOSPC);            /* the share */
        assert_int_equal(pmu_budget_group_opened(3), -ENOSPC);  /* 4 + 3 > 6: never scheduled */
        assert_int_equal(pmu_budget_group_opened(2), 0);
        assert_int_equal(pmu_budget_group_opened(0), 0);        /* software groups: always */
        assert_false(pmu_budget_may_pin(1));
        pmu_budget_group_closed(2);
        pmu_budget_group_closed(0);
        for (int i = 0; i < 4; i++)
                pmu_budget_unpin();
        assert_int_equal(pmu_budget_pinned(), 0);
}

static void test_reclaim_comes_before_a_refusal(void **state) {
        (void) state;
        pmu_budget_configure(6, 4);
        for (int i = 0; i < 4; i++)
                assert_int_equal(pmu_budget_pin(), 0);
        pmu_budget_set_reclaim(give_one_back);
        reclaimed = 0;
        assert_int_equal(pmu_budget_group_opened(4), 0);        /* two pins given back first */
        assert_int_equal(reclaimed, 2);
        assert_int_equal(pmu_budget_pinned(), 2);
        pmu_budget_group_closed(4);
        pmu_budget_set_reclaim(NULL);
        pmu_budget_unpin();
        pmu_budget_unpin();
}

static void test_no_pmu_means_no_limit(void **state) {
        (void) state;
        pmu_budget_configure(0, 0);
        assert_int_equal(pmu_budget_group_opened(8), 0);
        assert_int_equal(pmu_budget_pin(), -ENOSPC);            /* nothing hardware to carry */
        pmu_budget_group_closed(8);
}

static void test_hardware_events_are_told_apart(void **state) {
        struct perf_event_attr sw = { .type = PERF_TYPE_SOFTWARE }, hw = { .type = PERF_TYPE_HARDWARE },
                               raw = { .type = PERF_TYPE_RAW }, pmu = { .type = PERF_TYPE_MAX + 3 },
                               tp = { .type = PERF_TYPE_TRACEPOINT };
        struct perf_event_attr all[] = { sw, hw, raw, pmu, tp };

        (void) state;
        assert_false(pmu_budget_is_hardware(&sw));
        assert_false(pmu_budget_is_hardware(&tp));
        assert_int_equal(pmu_budget_hardware_events(all, 5), 3);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_groups_and_pins_share_the_counters),
                cmocka_unit_test(test_reclaim_comes_before_a_refusal),
                cmocka_unit_test(test_no_pmu_means_no_limit),
                cmocka_unit_test(test_hardware_events_are_told_apart),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
