/* test-log-budget.c: the per-uid budget of refusal log lines (daemon/util/log-budget.c): LOG_BUDGET_LINES
 * lines per window, the rest counted and reported with the next allowed line, each uid apart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "log-budget.h"

#define SECOND LOG_BUDGET_WINDOW_USEC

static void test_lines_past_the_budget_are_counted_and_reported_next_window(void **state) {
        LogBudget *b = log_budget_new();
        uint64_t suppressed;

        (void) state;
        for (int i = 0; i < LOG_BUDGET_LINES; i++) {
                assert_true(log_budget_allow(b, 1, 1000 + i, &suppressed));
                assert_int_equal(suppressed, 0);
        }
        for (int i = 0; i < 190; i++)
                assert_false(log_budget_allow(b, 1, 2000 + i, &suppressed));
        assert_false(log_budget_allow(b, 1, 1000 + SECOND - 1, &suppressed));    /* still the same window */
        assert_true(log_budget_allow(b, 1, 1000 + SECOND, &suppressed));
        assert_int_equal(suppressed, 191);
        assert_true(log_budget_allow(b, 1, 1000 + SECOND + 1, &suppressed));
        assert_int_equal(suppressed, 0);
        log_budget_free(b);
}

static void test_each_uid_has_its_own_budget(void **state) {
        LogBudget *b = log_budget_new();
        uint64_t suppressed;

        (void) state;
        for (int i = 0; i < 3 * LOG_BUDGET_LINES; i++)
                (void) log_budget_allow(b, 65534, 10, &suppressed);
        assert_false(log_budget_allow(b, 65534, 11, &suppressed));
        assert_true(log_budget_allow(b, 0, 11, &suppressed));
        assert_true(log_budget_allow(b, (uid_t) -1, 11, &suppressed));
        log_budget_free(b);
}

static void test_no_budget_allows_everything(void **state) {
        uint64_t suppressed = 7;

        (void) state;
        for (int i = 0; i < 100; i++)
                assert_true(log_budget_allow(NULL, 1, 0, &suppressed));
        assert_int_equal(suppressed, 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_lines_past_the_budget_are_counted_and_reported_next_window),
                cmocka_unit_test(test_each_uid_has_its_own_budget),
                cmocka_unit_test(test_no_budget_allows_everything),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
