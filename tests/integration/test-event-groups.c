/* test-event-groups.c: predefined event groups (AIX pm_init(PM_GET_GROUPS), mode.b.is_group)
 * through the real pmapid: the software groups are listed with their events, numbered from 0 as AIX
 * numbers them (event_groups[i].group_id == i, whatever the filter); a program naming a group
 * counts the group's events (pages
 * touched → page faults, exactly) in the thread, group, system and multiplexed scopes, as root and
 * as nobody, and gives the group back from get_program; an id the machine does not offer is
 * PM_EGROUPS everywhere, with pmapid serving on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "macro.h"
#include "pmapi.h"
#include "workload.h"

#define ALL_STATUSES (PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT)
#define GROUP_FAULTS 0                  /* the software groups come first on every machine */
#define GROUP_SCHED 1
#define PAGES 1500

static BusFixture fixture;

static const pm_groups_t *find_group(const pm_groups_info_t *g, int id) {
        for (int i = 0; i < g->maxgroups; i++)
                if (g->event_groups[i].group_id == id)
                        return &g->event_groups[i];
        return NULL;
}

static void group_program(pm_prog_t *prog, int mode, int group) {
        *prog = (pm_prog_t) { .mode.w = mode | 0x20 };
        for (int c = 0; c < MAX_COUNTERS; c++)
                prog->events[c] = COUNT_NOTHING;
        prog->events[0] = group;
}

static void test_groups_are_listed_with_their_events(void **state) {
        pm_groups_info_t groups = { -1, NULL }, verified = { -1, NULL };
        pm_info2_t info2;
        pm_info_t info;
        const pm_groups_t *g;

        (void) state;
        assert_int_equal(pm_init(ALL_STATUSES | PM_GET_GROUPS, &info, &groups), 0);
        g = find_group(&groups, GROUP_FAULTS);
        assert_non_null(g);
        assert_string_equal(g->short_name, "pm_faults");
        assert_non_null(g->long_name);
        assert_non_null(g->description);
        assert_int_equal(g->events[0], find_event_id(&info, "PM_PAGE_FLT"));
        assert_int_equal(g->events[1], find_event_id(&info, "PM_MINOR_FLT"));
        assert_int_equal(g->events[2], find_event_id(&info, "PM_MAJOR_FLT"));
        for (int c = 3; c < MAX_COUNTERS; c++)
                assert_int_equal(g->events[c], COUNT_NOTHING);
        g = find_group(&groups, GROUP_SCHED);
        assert_non_null(g);
        assert_int_equal(g->events[1], find_event_id(&info, "PM_CTX_SW"));
        assert_null(find_group(&groups, 99));
        /* AIX's numbering: the index is the id, from 0, with no gap. */
        for (int i = 0; i < groups.maxgroups; i++)
                assert_int_equal(groups.event_groups[i].group_id, i);
        /* The same list whatever the filter, or the ids would shift: pm_faults has an unverified
         * event (PM_MAJOR_FLT), yet stays group 0 under PM_VERIFIED. */
        assert_int_equal(pm_init(PM_VERIFIED | PM_GET_GROUPS, &info, &verified), 0);
        assert_int_equal(verified.maxgroups, groups.maxgroups);
        for (int i = 0; i < verified.maxgroups; i++) {
                assert_int_equal(verified.event_groups[i].group_id, i);
                assert_string_equal(verified.event_groups[i].short_name, groups.event_groups[i].short_name);
        }
        /* pm_initialize fills them too; pm_init without PM_GET_GROUPS reads no third argument. */
        memset(&groups, 0xff, sizeof(groups));
        assert_int_equal(pm_initialize(ALL_STATUSES, &info2, &groups, PM_CURRENT), 0);
        assert_non_null(find_group(&groups, GROUP_FAULTS));
        assert_int_equal(pm_init(ALL_STATUSES, &info), 0);
        assert_int_equal(pm_init(ALL_STATUSES | PM_GET_GROUPS, &info, NULL), PM_EFAULT);
}

/* pm_faults on the calling thread: PAGES page faults, PAGES minor, 0 major, exactly. */
static int count_group_on_mythread(void *arg) {
        pm_groups_info_t groups;
        pm_info_t info;
        pm_prog_t prog, got;
        pm_data_t d;

        (void) arg;
        if (pm_init(ALL_STATUSES | PM_GET_GROUPS, &info, &groups) != 0 || !find_group(&groups, GROUP_FAULTS))
                return 10;
        group_program(&prog, PM_USER, GROUP_FAULTS);
        prog.events[5] = 424242;                /* ignored, as on AIX */
        if (pm_set_program_mythread(&prog) != 0 || touch_fresh_pages(100) != 0)
                return 11;
        if (pm_start_mythread() != 0 || touch_fresh_pages(PAGES) != 0 || pm_stop_mythread() != 0)
                return 12;
        if (pm_get_data_mythread(&d) != 0)
                return 13;
        printf("# pm_faults on the thread: %lld %lld %lld for %d pages\n", d.accu[0], d.accu[1], d.accu[2], PAGES);
        if (d.accu[0] != PAGES || d.accu[1] != PAGES || d.accu[2] != 0 || d.accu[3] != 0)
                return 14;
        /* get_program gives back what was set: the group bit and its id. */
        if (pm_get_program_mythread(&got) != 0 || !got.mode.b.is_group || got.events[0] != GROUP_FAULTS)
                return 15;
        return pm_delete_program_mythread() == 0 ? 0 : 16;
}

static void test_group_program_counts_its_events(void **state) {
        (void) state;
        assert_int_equal(count_group_on_mythread(NULL), 0);
        assert_int_equal(run_as_nobody(count_group_on_mythread, NULL), 0);
}

/* In a counting group, in a multiplexed program's second set, and system-wide over the caller's
 * process tree. */
static void test_group_program_in_every_scope(void **state) {
        pm_groups_info_t groups;
        pm_info_t info;
        pm_prog_t prog, sets[2];
        pm_prog_mm_t mm = { .slice_duration = 100, .nb_set_prog = 2, .prog_set = sets };
        pm_data_mx_t dmx;
        pm_data_t d;

        (void) state;
        assert_int_equal(pm_init(ALL_STATUSES | PM_GET_GROUPS, &info, &groups), 0);
        group_program(&prog, PM_USER | PM_COUNT, GROUP_FAULTS);
        assert_int_equal(pm_set_program_mygroup(&prog), 0);
        assert_int_equal(touch_fresh_pages(100), 0);
        assert_int_equal(pm_reset_data_mygroup(), 0);
        assert_int_equal(touch_fresh_pages(PAGES), 0);
        assert_int_equal(pm_stop_mygroup(), 0);
        assert_int_equal(pm_get_data_mygroup(&d), 0);
        assert_int_equal(d.accu[0], PAGES);
        assert_int_equal(d.accu[1], PAGES);
        assert_int_equal(d.ginfo.members, 1);
        assert_int_equal(pm_delete_program_mygroup(), 0);

        /* Set 0 names the events, set 1 the group (in user mode too: _mm). */
        program_one(&sets[0], PM_USER | PM_COUNT, find_event_id(&info, "PM_PAGE_FLT"));
        group_program(&sets[1], PM_USER | PM_COUNT, GROUP_FAULTS);
        assert_int_equal(pm_set_program_mythread_mm(&mm), 0);
        assert_int_equal(touch_fresh_pages(100), 0);
        assert_int_equal(pm_reset_data_mythread(), 0);
        assert_int_equal(touch_fresh_pages(PAGES), 0);
        assert_int_equal(pm_stop_mythread(), 0);
        assert_int_equal(pm_get_data_mythread_mx(&dmx), 0);
        assert_int_equal(dmx.nb_accu_mx, 2);
        assert_int_equal(dmx.accu_set[0].accu_data[0], PAGES);
        assert_int_equal(dmx.accu_set[1].accu_data[0], PAGES);
        assert_int_equal(dmx.accu_set[1].accu_data[1], PAGES);
        free(dmx.accu_set);
        assert_int_equal(pm_delete_program_mythread(), 0);

        /* System scope, the caller's process tree: this process's pages are counted on some CPU. */
        group_program(&prog, PM_USER | PM_PROCTREE, GROUP_FAULTS);
        assert_int_equal(pm_set_program(&prog), 0);
        assert_int_equal(touch_fresh_pages(100), 0);
        assert_int_equal(pm_start(), 0);
        assert_int_equal(touch_fresh_pages(PAGES), 0);
        assert_int_equal(pm_stop(), 0);
        assert_int_equal(pm_get_data(&d), 0);
        printf("# pm_faults system-wide over the tree: %lld for %d pages\n", d.accu[1], PAGES);
        assert_in_range(d.accu[1], PAGES, PAGES + 50);  /* the calls' own first touches may add a few */
        assert_int_equal(d.accu[0], d.accu[1] + d.accu[2]);
        assert_int_equal(pm_delete_program(), 0);
}

/* A group id this machine does not offer: PM_EGROUPS in every scope, and pmapid serves on. */
static void test_unknown_group_is_refused_everywhere(void **state) {
        pm_prog_t prog, ok, sets[1];
        pm_prog_mm_t mm = { .slice_duration = 100, .nb_set_prog = 1, .prog_set = sets };
        pm_info_t info;
        char text[512];

        (void) state;
        pm_groups_info_t groups;
        int bad[5] = { 99, 137, -1, 0, 0 };   /* none; a POWER group; not an id; then the two below */

        assert_int_equal(pm_init(ALL_STATUSES | PM_GET_GROUPS, &info, &groups), 0);
        bad[3] = groups.maxgroups;              /* one past the last */
        bad[4] = find_event_id(&info, "PM_PAGE_FLT");   /* an event id where a group id belongs */
        assert_true(bad[4] >= groups.maxgroups);
        for (size_t id = 0; id < ELEMENTSOF(bad); id++) {
                group_program(&prog, PM_USER, bad[id]);
                sets[0] = prog;
                assert_int_equal(pm_set_program_mythread(&prog), PM_EGROUPS);
                assert_int_equal(pm_set_program_mygroup(&prog), PM_EGROUPS);
                assert_int_equal(pm_set_program_thread(getpid(), gettid(), &prog), PM_EGROUPS);
                assert_int_equal(pm_set_program_mythread_mm(&mm), PM_EGROUPS);
                prog.mode.w |= PM_PROCTREE;
                assert_int_equal(pm_set_program(&prog), PM_EGROUPS);
        }
        snprintf(text, sizeof(text), "%s", pm_strerror("x", PM_EGROUPS));
        assert_non_null(strstr(text, "group"));
        page_fault_program(&ok, PM_USER);
        assert_int_equal(pm_set_program_mythread(&ok), 0);
        assert_int_equal(pm_delete_program_mythread(), 0);
}

static int setup(void **state) {
        (void) state;
        return bus_fixture_start(&fixture, NULL);
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_groups_are_listed_with_their_events),
                cmocka_unit_test(test_group_program_counts_its_events),
                cmocka_unit_test(test_group_program_in_every_scope),
                cmocka_unit_test(test_unknown_group_is_refused_everywhere),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
