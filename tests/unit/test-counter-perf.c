/* test-counter-perf.c: the real perf backend (daemon/kernel/counter-perf.c) on what the kernel makes hard.
 * A process tree's group is opened with inherit on one CPU; every child process the tree creates
 * gets its own copy of the group, and the kernel takes that copy apart member by member when the
 * child exits. A read in that window fails with ECHILD (kernels with the 2023 fix for mismatched
 * inherited group reads); measured here: about 1 read in 160 while children exit without pause. The
 * backend must wait the window out, never fail the read. And while such a tree forks, the kernel
 * may swap the forking task's perf context with its new child's between the group's first and
 * second open, which refuses the second (counter-perf.c, perf_open): the backend must open the
 * group anyway. Needs software perf events on one's own child (perf_event_paranoid 2 or root);
 * skipped where they are refused. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "counter.h"

#define READS 100000
#define FAULTS 500
#define LIMIT_S 5
#define OPENS 40000

/* Forks children that each touch a few pages and exit, until killed. */
static pid_t start_forking_tree(void) {
        pid_t pid = fork();

        if (pid == 0) {
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);        /* gone with a failed test */
                for (;;) {
                        pid_t child = fork();

                        if (child == 0) {
                                volatile char *p = malloc(1 << 16);

                                for (int i = 0; p && i < 1 << 16; i += 4096)
                                        p[i] = 1;
                                _exit(0);
                        }
                        if (child > 0)
                                (void) waitpid(child, NULL, 0);
                }
        }
        return pid;
}

/* The group both cases open: task clock (the leader, disabled) and page faults, read together. */
static void tree_group_attrs(struct perf_event_attr attrs[2]) {
        memset(attrs, 0, 2 * sizeof(attrs[0]));
        attrs[0].config = PERF_COUNT_SW_TASK_CLOCK;
        attrs[0].disabled = 1;
        attrs[1].config = PERF_COUNT_SW_PAGE_FAULTS;
        for (size_t i = 0; i < 2; i++) {
                attrs[i].type = PERF_TYPE_SOFTWARE;
                attrs[i].size = sizeof(attrs[i]);
                attrs[i].exclude_hv = 1;
                attrs[i].read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                                       PERF_FORMAT_TOTAL_TIME_RUNNING;
        }
}

static void test_an_inherit_groups_read_waits_out_a_childs_exit(void **state) {
        struct perf_event_attr attrs[2];
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        CounterGroup *groups[2] = { NULL, NULL };
        uint64_t last[2] = { 0, 0 };
        size_t n_groups = cpus > 1 ? 2 : 1;
        int failed = 0, first_error = 0;
        time_t start;
        pid_t tree;

        (void) state;
        tree_group_attrs(attrs);
        tree = start_forking_tree();
        assert_true(tree > 0);
        for (size_t c = 0; c < n_groups; c++) {
                CounterTarget t = { .tid = tree, .cpu = (int) c, .inherit = true, .cgroup_fd = -1 };
                int r = counter_backend_perf.open(&t, attrs, 2, &groups[c]);

                if (r == -EACCES || r == -EPERM || r == -ENOENT || r == -ENOSYS) {
                        (void) kill(tree, SIGKILL);
                        (void) waitpid(tree, NULL, 0);
                        skip();
                }
                assert_int_equal(r, 0);
                assert_int_equal(counter_backend_perf.enable(groups[c]), 0);
        }
        /* At least READS reads, and on until the children faulted FAULTS pages (a slow machine,
         * such as a QEMU guest, forks them slowly), for LIMIT_S seconds at most. */
        start = time(NULL);
        for (int i = 0; i < READS || (last[0] + last[1] < FAULTS && time(NULL) - start < LIMIT_S); i++) {
                size_t c = (size_t) i % n_groups;
                uint64_t values[2];
                int r = counter_backend_perf.read(groups[c], values, 2, NULL);

                if (r < 0) {
                        failed++;
                        first_error = first_error ? first_error : r;
                        continue;
                }
                /* An exited child's counts stay: the backend never reads less than before, though
                 * the kernel's group read may (counter-perf.c, perf_read). */
                assert_true(values[1] >= last[c]);
                last[c] = values[1];
        }
        (void) kill(tree, SIGKILL);
        (void) waitpid(tree, NULL, 0);
        for (size_t c = 0; c < n_groups; c++)
                counter_backend_perf.close(groups[c]);
        print_message("# %d reads failed (first: %d); page faults counted: %llu\n", failed, first_error,
                      (unsigned long long) (last[0] + last[1]));
        assert_int_equal(failed, 0);
        assert_true(last[0] + last[1] > 100);   /* children ran and were counted (each faults 16+) */
}

/* The backend's open of a forking process tree's 2-event group, OPENS times (LIMIT_S seconds at
 * most). Without its guard 1 open in 200 to 7,000 failed here (EINVAL, or ENODEV), and 16 of 202
 * in a 6.1 guest even with 8 tries each. */
static void test_a_forking_trees_group_always_opens(void **state) {
        struct perf_event_attr attrs[2];
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        int failed = 0, first_error = 0, opens = 0;
        time_t start = time(NULL);
        pid_t tree;

        (void) state;
        tree_group_attrs(attrs);
        tree = start_forking_tree();
        assert_true(tree > 0);
        for (; opens < OPENS && time(NULL) - start < LIMIT_S; opens++) {
                CounterTarget t = { .tid = tree, .cpu = (int) (opens % (cpus > 1 ? 2 : 1)), .inherit = true,
                                    .cgroup_fd = -1 };
                CounterGroup *g = NULL;
                int r = counter_backend_perf.open(&t, attrs, 2, &g);

                if (opens == 0 && (r == -EACCES || r == -EPERM || r == -ENOENT || r == -ENOSYS)) {
                        (void) kill(tree, SIGKILL);
                        (void) waitpid(tree, NULL, 0);
                        skip();
                }
                if (r < 0) {
                        failed++;
                        first_error = first_error ? first_error : r;
                        continue;
                }
                counter_backend_perf.close(g);
        }
        (void) kill(tree, SIGKILL);
        (void) waitpid(tree, NULL, 0);
        print_message("# %d of %d opens failed (first: %d)\n", failed, opens, first_error);
        assert_int_equal(failed, 0);
        assert_true(opens >= 100);      /* a QEMU guest makes 300 to 700 in the 5 s */
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_an_inherit_groups_read_waits_out_a_childs_exit),
                cmocka_unit_test(test_a_forking_trees_group_always_opens),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
