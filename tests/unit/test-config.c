/* test-config.c: pmapid.conf (daemon/model/config.c): defaults without a file, the two limits, and every
 * malformed file refused rather than half applied. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "config.h"
#include "macro.h"
#include "manager.h"

static char path[64];

static const char *write_conf(const char *text) {
        FILE *f;

        (void) snprintf(path, sizeof(path), "/tmp/pmapid-conf-XXXXXX");
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        f = fdopen(fd, "w");
        assert_non_null(f);
        fputs(text, f);
        assert_int_equal(fclose(f), 0);
        return path;
}

static int teardown(void **state) {
        (void) state;
        if (path[0])
                unlink(path);
        path[0] = '\0';
        return 0;
}

static void test_missing_default_file_gives_the_defaults(void **state) {
        Config c;

        (void) state;
        assert_int_equal(config_load("/nonexistent/pmapid.conf", /* required= */ false, &c), 0);
        assert_int_equal(c.max_contexts_per_uid, manager_default_max_contexts_per_uid());
        assert_int_equal(c.max_contexts, manager_default_max_contexts());
        assert_true(c.max_contexts >= 1);
}

static void test_missing_required_file_is_an_error(void **state) {
        Config c = { 7, 7 };

        (void) state;
        assert_int_equal(config_load("/nonexistent/pmapid.conf", /* required= */ true, &c), -EINVAL);
        assert_int_equal(c.max_contexts_per_uid, 7);            /* untouched on failure */
}

static void test_limits_are_read(void **state) {
        Config c;

        (void) state;
        write_conf("# comment\n[Limits]\nMaxContextsPerUser = 3\nMaxContexts=40\nMaxSets=16\nCarriedCounters=0\n");
        assert_int_equal(config_load(path, true, &c), 0);
        assert_int_equal(c.max_contexts_per_uid, 3);
        assert_int_equal(c.max_contexts, 40);
        assert_int_equal(c.max_sets, 16);
        assert_int_equal(c.carried_counters, 0);
        write_conf("[Limits]\nCarriedCounters = 4\n");
        assert_int_equal(config_load(path, true, &c), 0);
        assert_int_equal(c.carried_counters, 4);
        write_conf("[Limits]\nCarriedCounters=auto\n");
        assert_int_equal(config_load(path, true, &c), 0);
        assert_int_equal(c.carried_counters, CONFIG_CARRIED_COUNTERS_AUTO);
}

static void test_one_limit_keeps_the_other_default(void **state) {
        Config c;

        (void) state;
        write_conf("[Limits]\nMaxContexts=9\n");
        assert_int_equal(config_load(path, true, &c), 0);
        assert_int_equal(c.max_contexts_per_uid, manager_default_max_contexts_per_uid());
        assert_int_equal(c.max_contexts, 9);
        assert_int_equal(c.max_sets, CONFIG_DEFAULT_MAX_SETS);
        assert_int_equal(c.carried_counters, CONFIG_CARRIED_COUNTERS_AUTO);
}

static void test_malformed_files_are_refused(void **state) {
        static const char *const bad[] = {
                "[Limits]\nMaxContextsPerUser=0\n",
                "[Limits]\nMaxContextsPerUser=-1\n",
                "[Limits]\nMaxContextsPerUser=12abc\n",
                "[Limits]\nMaxContextsPerUser=\n",
                "[Limits]\nMaxContexts=99999999999999999999\n",
                "[Limits]\nMaxContexts=1000001\n",
                "[Limits]\nMaxSets=0\n",
                "[Limits]\nMaxSets=17\n",                      /* past PM_MX_MAX_SETS */
                "[Limits]\nCarriedCounters=9\n",               /* past MAX_COUNTERS */
                "[Limits]\nCarriedCounters=-1\n",
                "[Limits]\nCarriedCounters=some\n",
                "[Limits]\nMaxContextPerUser=5\n",              /* a typo is not ignored */
                "[Limit]\nMaxContexts=5\n",
                "MaxContexts=5\n",                              /* a key outside any section */
                "[Limits\n",
        };

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                Config c = { 7, 7 };
                write_conf(bad[i]);
                if (config_load(path, false, &c) != -EINVAL)
                        fail_msg("accepted: %s", bad[i]);
                assert_int_equal(c.max_contexts, 7);
                teardown(NULL);
        }
}

/* [Access]: names and gids, any separator; every group must exist. */
static void test_access_groups_are_read(void **state) {
        Config c;

        (void) state;
        write_conf("[Access]\nUserModeGroups=users; 50,0\nKernelModeGroups = root\nOnlyGroups=\n");
        assert_int_equal(config_load(path, true, &c), 0);
        assert_int_equal(c.access.user_mode.n, 3);
        assert_int_equal(c.access.user_mode.gids[0], 100);     /* Debian's users */
        assert_int_equal(c.access.user_mode.gids[1], 50);
        assert_int_equal(c.access.user_mode.gids[2], 0);
        assert_int_equal(c.access.kernel_mode.n, 1);
        assert_int_equal(c.access.kernel_mode.gids[0], 0);
        assert_int_equal(c.access.only.n, 0);
}

static void test_bad_access_is_refused(void **state) {
        static const char *const bad[] = {
                "[Access]\nUserModeGroups=no-such-group-pmapi\n",
                "[Access]\nKernelModeGroups=users,4294967000\n",
                "[Access]\nOnlyGroup=users\n",                  /* a typo is not ignored */
        };

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                Config c;
                write_conf(bad[i]);
                if (config_load(path, true, &c) != -EINVAL)
                        fail_msg("accepted: %s", bad[i]);
                teardown(NULL);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_missing_default_file_gives_the_defaults),
                cmocka_unit_test(test_missing_required_file_is_an_error),
                cmocka_unit_test_teardown(test_limits_are_read, teardown),
                cmocka_unit_test_teardown(test_one_limit_keeps_the_other_default, teardown),
                cmocka_unit_test_teardown(test_malformed_files_are_refused, teardown),
                cmocka_unit_test_teardown(test_access_groups_are_read, teardown),
                cmocka_unit_test_teardown(test_bad_access_is_refused, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
