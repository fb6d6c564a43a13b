/* test-policy-grants.c: the administrator's grants on made-up callers: membership by primary or
 * supplementary group (the primary one only where the bus vouched for it), KernelModeGroups over UserModeGroups, OnlyGroups admitting root and its
 * members only, and the perf_event_paranoid each grant is judged by, through caller_may_count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "access-policy.h"

static const AccessPolicy policy = {
        .user_mode = { .gids = { 100 }, .n = 1 },
        .kernel_mode = { .gids = { 50 }, .n = 1 },
};

static Caller caller(uid_t uid, gid_t egid, gid_t supplementary) {
        Caller c = { .pid = 1, .euid = uid, .egid = egid, .egid_vouched = true };

        if (supplementary != (gid_t) -1)
                c.groups[c.n_groups++] = supplementary;
        return c;
}

static void test_grants_follow_membership(void **state) {
        Caller in_users = caller(65534, 65534, 100), primary_staff = caller(65534, 50, (gid_t) -1);
        Caller both = caller(65534, 100, 50), none = caller(65534, 65534, 7);

        (void) state;
        assert_int_equal(access_policy_grant(&policy, &in_users), POLICY_GRANT_USER);
        assert_int_equal(access_policy_grant(&policy, &primary_staff), POLICY_GRANT_KERNEL);
        assert_int_equal(access_policy_grant(&policy, &both), POLICY_GRANT_KERNEL);
        assert_int_equal(access_policy_grant(&policy, &none), POLICY_GRANT_NONE);
        assert_int_equal(access_policy_grant(&(AccessPolicy) {}, &in_users), POLICY_GRANT_NONE);
        /* A primary group the bus did not vouch for (a set-group-ID program's) grants nothing. */
        primary_staff.egid_vouched = false;
        assert_int_equal(access_policy_grant(&policy, &primary_staff), POLICY_GRANT_NONE);
}

static void test_grants_lower_paranoid_only(void **state) {
        (void) state;
        for (int p = -1; p <= 4; p++) {
                assert_int_equal(access_policy_paranoid(POLICY_GRANT_NONE, p), p);
                assert_int_equal(access_policy_paranoid(POLICY_GRANT_USER, p), p < 2 ? p : 2);
                assert_int_equal(access_policy_paranoid(POLICY_GRANT_KERNEL, p), p < 1 ? p : 1);
        }
        /* At paranoid 3: a grant of user mode counts user mode and the owner-visible kernel events. */
        assert_int_equal(caller_may_count(65534, access_policy_paranoid(POLICY_GRANT_USER, 3), false, false),
                         COUNT_ALLOWED);
        assert_int_equal(caller_may_count(65534, access_policy_paranoid(POLICY_GRANT_USER, 3), true, false),
                         COUNT_KERNEL_DENIED);
        assert_int_equal(caller_may_count(65534, access_policy_paranoid(POLICY_GRANT_USER, 3), true, true),
                         COUNT_ALLOWED);
        assert_int_equal(caller_may_count(65534, access_policy_paranoid(POLICY_GRANT_KERNEL, 3), true, false),
                         COUNT_ALLOWED);
        assert_int_equal(caller_may_count(65534, access_policy_paranoid(POLICY_GRANT_NONE, 3), false, false),
                         COUNT_DENIED);
}

static void test_only_groups_admit_root_and_members(void **state) {
        AccessPolicy only = { .only = { .gids = { 100 }, .n = 1 } };
        Caller root = caller(0, 0, (gid_t) -1), member = caller(65534, 65534, 100), other = caller(65534, 65534, 50);

        (void) state;
        assert_true(access_policy_admits(&only, &root));
        assert_true(access_policy_admits(&only, &member));
        assert_false(access_policy_admits(&only, &other));
        assert_true(access_policy_admits(&policy, &other));            /* no OnlyGroups: everyone */
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_grants_follow_membership),
                cmocka_unit_test(test_grants_lower_paranoid_only),
                cmocka_unit_test(test_only_groups_admit_root_and_members),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
