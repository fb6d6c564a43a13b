/* test-cgroup-fs.c: how pmapid reads a cgroup path a client gives (daemon/kernel/cgroup-fs.c): from the v2
 * root or under the mount point, "." and repeated slashes dropped, ".." and overlong paths refused
 * before anything is opened. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cgroup-fs.h"

static void expect(const char *mount, const char *path, const char *want) {
        char *got = NULL;

        assert_int_equal(cgroup_path_normalize(mount, path, &got), 0);
        assert_string_equal(got, want);
        free(got);
}

static void refused(const char *mount, const char *path) {
        char *got = NULL;

        assert_int_equal(cgroup_path_normalize(mount, path, &got), -EINVAL);
        assert_null(got);
}

static void test_paths_from_the_root_and_under_the_mount(void **state) {
        (void) state;
        expect("/sys/fs/cgroup", "/", "/");
        expect("/sys/fs/cgroup", "/a/b", "/a/b");
        expect("/sys/fs/cgroup", "a/b", "/a/b");
        expect("/sys/fs/cgroup", "//a/./b///", "/a/b");
        expect("/sys/fs/cgroup", "/sys/fs/cgroup", "/");
        expect("/sys/fs/cgroup", "/sys/fs/cgroup/", "/");
        expect("/sys/fs/cgroup", "/sys/fs/cgroup/system.slice/cron.service", "/system.slice/cron.service");
        expect("/sys/fs/cgroup/unified", "/sys/fs/cgroup/unified/x", "/x");
        /* Only a whole mount point is taken off. */
        expect("/sys/fs/cgroup", "/sys/fs/cgroupx/a", "/sys/fs/cgroupx/a");
        expect("/sys/fs/cgroup", "/sys/fs/cgroup/unified/x", "/unified/x");
        /* Names that only look like dots. */
        expect("/sys/fs/cgroup", "/a/.../b/.x", "/a/.../b/.x");
}

static void test_dot_dot_and_sizes_are_refused(void **state) {
        char *long_path = malloc(CGROUP_PATH_MAX + 10);

        (void) state;
        refused("/sys/fs/cgroup", "");
        refused("/sys/fs/cgroup", NULL);
        refused("/sys/fs/cgroup", "..");
        refused("/sys/fs/cgroup", "/a/..");
        refused("/sys/fs/cgroup", "/a/../a");
        refused("/sys/fs/cgroup", "/sys/fs/cgroup/../../etc");
        assert_non_null(long_path);
        memset(long_path, 'a', CGROUP_PATH_MAX + 9);
        long_path[0] = '/';
        long_path[CGROUP_PATH_MAX + 9] = '\0';
        refused("/sys/fs/cgroup", long_path);
        long_path[CGROUP_PATH_MAX] = '\0';              /* "/" and 4094 more: fits */
        expect("/sys/fs/cgroup", long_path, long_path);
        free(long_path);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_paths_from_the_root_and_under_the_mount),
                cmocka_unit_test(test_dot_dot_and_sizes_are_refused),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
