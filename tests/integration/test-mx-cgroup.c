/* test-mx-cgroup.c: multiplexed programs on a cgroup context (AIX's _wp_mx and _wp_mm) against a
 * real pmapid and a cgroup the test makes: each set counts exactly the pages the cgroup's process
 * touches and nothing of a busier process outside; per set, its CPUs add up to its total; the
 * program comes back as set; _mm counts user and kernel mode apart; bad input gets its code. Skips
 * only where cgroup v2 is not mounted or not writable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "cgroup-tree.h"
#include "pmapi.h"
#include "workload.h"

#define INSIDE 2000
#define OUTSIDE 10000

static BusFixture fixture;
static pm_info_t info;

static void two_sets(pm_events_prog_t sets[2]) {
        for (int k = 0; k < 2; k++)
                for (int c = 0; c < MAX_COUNTERS; c++)
                        sets[k][c] = COUNT_NOTHING;
        sets[0][0] = find_event_id(&info, "PM_PAGE_FLT");
        sets[0][1] = find_event_id(&info, "PM_MINOR_FLT");
        sets[1][0] = find_event_id(&info, "PM_MINOR_FLT");
        sets[1][1] = find_event_id(&info, "PM_PAGE_FLT");
}

/* Counter c of set k summed over every CPU of the context. */
static long long sum_cpus(cid_t cid, int k, int c) {
        long long sum = 0;

        for (int cpu = 0; cpu < (int) sysconf(_SC_NPROCESSORS_CONF); cpu++) {
                pm_data_mx_t d;
                int r = pm_get_data_lcpu_wp_mx(cid, cpu, &d);

                if (r == PM_ECPU)
                        continue;
                assert_int_equal(r, 0);
                sum += d.accu_set[k].accu_data[c];
                free(d.accu_set);
        }
        return sum;
}

static void test_each_set_counts_exactly_the_cgroup(void **state) {
        pm_events_prog_t sets[2];
        pm_prog_mx_t prog = { .mode.w = PM_USER | PM_COUNT, .slice_duration = 50, .nb_events_prog = 2,
                              .events_set = sets }, got;
        Worker inside, outside;
        pm_data_mx_t d;
        timebasestruct_t tb;
        cid_t cid;

        (void) state;
        two_sets(sets);
        assert_int_equal(cgroup_tree_make("mx"), 0);
        cid = cgroup_tree_id("mx");
        assert_true(cid != 0);
        assert_int_equal(worker_start(&inside, 0), 0);
        assert_int_equal(worker_start(&outside, 0), 0);
        assert_int_equal(cgroup_tree_move("mx", inside.pid), 0);
        assert_int_equal(pm_set_program_wp_mx(cid, &prog), 0);
        assert_int_equal(worker_touch(&inside, INSIDE), 0);
        assert_int_equal(worker_touch(&outside, OUTSIDE), 0);
        assert_int_equal(pm_stop_wp(cid), 0);
        assert_int_equal(pm_get_tdata_wp_mx(cid, &d, &tb), 0);
        printf("# cgroup, two sets: %lld %lld | %lld %lld for %d pages (%d outside)\n", d.accu_set[0].accu_data[0],
               d.accu_set[0].accu_data[1], d.accu_set[1].accu_data[0], d.accu_set[1].accu_data[1], INSIDE, OUTSIDE);
        assert_int_equal(d.nb_accu_mx, 2);
        assert_int_equal(d.accu_set[0].accu_data[0], INSIDE);
        assert_int_equal(d.accu_set[0].accu_data[1], INSIDE);
        assert_int_equal(d.accu_set[1].accu_data[0], INSIDE);
        assert_int_equal(d.accu_set[1].accu_data[1], INSIDE);
        assert_true(tb.flag == PM_TB_MONOTONIC_NS && PM_TB_TO_NS(tb) > 0);
        /* Enabled on every CPU all along: each set counted the whole time it was switched on. */
        assert_true(PM_TB_TO_NS(d.accu_set[1].accu_purr) > 0);
        assert_true(PM_TB_TO_NS(d.accu_set[1].accu_time) == PM_TB_TO_NS(d.accu_set[1].accu_purr));
        free(d.accu_set);
        assert_int_equal(sum_cpus(cid, 0, 0), INSIDE);
        assert_int_equal(sum_cpus(cid, 1, 1), INSIDE);
        assert_int_equal(pm_get_program_wp_mx(cid, &got), 0);
        assert_int_equal(got.slice_duration, 50);
        assert_int_equal(got.nb_events_prog, 2);
        assert_memory_equal(got.events_set, sets, sizeof(sets));
        assert_int_equal(got.mode.w & PM_COUNT, 0);             /* stopped now */
        free(got.events_set);
        assert_int_equal(pm_delete_program_wp(cid), 0);
        worker_stop(&inside);
        worker_stop(&outside);
        assert_int_equal(cgroup_tree_remove("mx"), 0);
}

/* _mm: a set in user mode and one in kernel mode count page faults apart (a user page touch is a
 * fault in user mode), and the sets come back with their own modes. */
static void test_mm_counts_modes_apart(void **state) {
        pm_prog_t sets[2];
        pm_prog_mm_t prog = { .slice_duration = 100, .nb_set_prog = 2, .prog_set = sets }, got;
        Worker inside;
        pm_data_mx_t d;
        cid_t cid;

        (void) state;
        for (int k = 0; k < 2; k++)
                program_one(&sets[k], (k == 0 ? PM_USER : PM_KERNEL) | PM_COUNT, find_event_id(&info, "PM_PAGE_FLT"));
        assert_int_equal(cgroup_tree_make("mm"), 0);
        cid = cgroup_tree_id("mm");
        assert_int_equal(worker_start(&inside, 0), 0);
        assert_int_equal(cgroup_tree_move("mm", inside.pid), 0);
        assert_int_equal(pm_set_program_wp_mm(cid, &prog), 0);
        assert_int_equal(worker_touch(&inside, INSIDE), 0);
        assert_int_equal(pm_get_data_wp_mx(cid, &d), 0);
        assert_int_equal(d.accu_set[0].accu_data[0], INSIDE);
        assert_int_equal(d.accu_set[1].accu_data[0], 0);
        free(d.accu_set);
        assert_int_equal(pm_get_program_wp_mm(cid, &got), 0);
        assert_int_equal(got.nb_set_prog, 2);
        assert_int_equal(got.prog_set[0].mode.w & (PM_USER | PM_KERNEL), PM_USER);
        assert_int_equal(got.prog_set[1].mode.w & (PM_USER | PM_KERNEL), PM_KERNEL);
        free(got.prog_set);
        assert_int_equal(pm_delete_program_wp(cid), 0);
        worker_stop(&inside);
        assert_int_equal(cgroup_tree_remove("mm"), 0);
}

static void test_bad_input(void **state) {
        pm_events_prog_t sets[2];
        pm_prog_mx_t prog = { .mode.w = PM_USER, .slice_duration = 100, .nb_events_prog = 2, .events_set = sets };
        pm_data_mx_t d;
        cid_t cid;

        (void) state;
        two_sets(sets);
        assert_int_equal(cgroup_tree_make("bad"), 0);
        cid = cgroup_tree_id("bad");
        prog.slice_duration = 5;
        assert_int_equal(pm_set_program_wp_mx(cid, &prog), PM_EMXSLICE);
        prog.slice_duration = 100;
        prog.nb_events_prog = 0;
        assert_int_equal(pm_set_program_wp_mx(cid, &prog), PM_EMXSETS);
        prog.nb_events_prog = 2;
        prog.mode.w |= PM_PROCTREE;
        assert_int_equal(pm_set_program_wp_mx(cid, &prog), PM_EMODE);
        prog.mode.w &= ~PM_PROCTREE;
        assert_int_equal(pm_set_program_wp_mx(1ULL << 62, &prog), PM_ENOCGROUP);
        assert_int_equal(pm_set_program_wp_mx(cid, NULL), PM_EFAULT);
        assert_int_equal(pm_get_data_wp_mx(cid, &d), PM_ENOCONTEXT);
        assert_null(d.accu_set);
        assert_int_equal(pm_set_program_wp_mx(cid, &prog), 0);
        assert_int_equal(pm_set_program_wp_mx(cid, &prog), PM_EEXIST);
        assert_int_equal(pm_get_data_lcpu_wp_mx(cid, -1, &d), PM_ECPU);
        assert_int_equal(pm_get_data_lcpu_wp_mx(cid, 4096, &d), PM_ECPU);
        assert_int_equal(pm_get_data_wp_mx(cid, NULL), PM_EFAULT);
        assert_int_equal(pm_delete_program_wp(cid), 0);
        assert_int_equal(cgroup_tree_remove("bad"), 0);
}

static int setup(void **state) {
        (void) state;
        if (cgroup_tree_setup() < 0)
                exit(77);
        if (bus_fixture_start(&fixture, NULL) != 0)
                return -1;
        return pm_init(PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT, &info) == 0 ? 0 : -1;
}

static int teardown(void **state) {
        (void) state;
        cgroup_tree_teardown();
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_each_set_counts_exactly_the_cgroup),
                cmocka_unit_test(test_mm_counts_modes_apart),
                cmocka_unit_test(test_bad_input),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
