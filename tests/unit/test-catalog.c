/* test-catalog.c: the library's event catalog (pmapi/catalog.c). From the list pmapid sends, in
 * any order, it keeps the events whose status the pm_init filter selects, sorts them by id, and
 * lays them out as pm_info_t and pm_info2_t; it then decides which ids a program may name on which
 * counter. The installed catalog is process-global, so the test that expects "not initialized"
 * runs first. No bus is involved. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "catalog.h"
#include "macro.h"
#include "pmapi.h"

/* What pmapid might send: out of order, every status, curated and libpfm4 ids. */
#define ENTRY(id, status, short_name, long_name, description) \
        { id, status, (char *) short_name, (char *) long_name, (char *) description }

static const CatalogEntry sent[] = {
        ENTRY(7,    PM_CAVEAT,     "PM_CPU_CLOCK",    "perf::CPU-CLOCK",    "cpu clock"),
        ENTRY(1000, PM_UNVERIFIED, "perf::ALIGNMENT", "perf::ALIGNMENT",    "alignment"),
        ENTRY(2,    PM_VERIFIED,   "PM_PAGE_FLT",     "perf::PAGE-FAULTS",  "page faults"),
        ENTRY(100,  PM_UNVERIFIED, "PM_CYC",          "perf::CYCLES",       "cycles"),
        ENTRY(1,    PM_VERIFIED,   "PM_TASK_CLOCK",   "perf::TASK-CLOCK",   "task clock"),
        ENTRY(6,    PM_UNVERIFIED, "PM_MAJOR_FLT",    "perf::MAJOR-FAULTS", "major faults"),
};

#define N_COUNTERS 4

static const CatalogEntry *sent_entry(int id) {
        for (size_t i = 0; i < ELEMENTSOF(sent); i++)
                if (sent[i].id == id)
                        return &sent[i];
        fail_msg("id %d was never sent", id);
        return NULL;
}

static Catalog *new_catalog(int n_counters, int filter) {
        Catalog *c = NULL;

        assert_int_equal(catalog_new("Test CPU", n_counters, sent, ELEMENTSOF(sent), filter, &c), 0);
        assert_non_null(c);
        return c;
}

static void program_none(pm_prog_t *p) {
        memset(p, 0, sizeof(*p));
        p->mode.w = PM_USER;
        for (int k = 0; k < MAX_COUNTERS; k++)
                p->events[k] = COUNT_NOTHING;
}

static int check(const pm_prog_t *p) {
        int32_t sent[MAX_COUNTERS];

        return catalog_check_program(p, sent);
}

/* Must stay the first test: nothing is installed yet. */
static void test_check_program_before_install_is_not_initialized(void **state) {
        pm_prog_t p;

        program_none(&p);
        p.events[0] = 2;
        assert_false(catalog_is_installed());
        assert_int_equal(check(&p), PM_ENOTINIT);
        program_none(&p);
        assert_int_equal(check(&p), PM_ENOTINIT);
}

static void check_filter_keeps(int filter, const int *ids, size_t n_ids) {
        Catalog *c = new_catalog(N_COUNTERS, filter);

        assert_int_equal(c->n_entries, n_ids);
        for (size_t i = 0; i < n_ids; i++) {
                const CatalogEntry *want = sent_entry(ids[i]);
                const CatalogEntry *got = &c->entries[i];

                assert_int_equal(got->id, ids[i]);
                assert_int_equal(got->status, want->status);
                assert_true(got->status & filter);
                assert_string_equal(got->short_name, want->short_name);
                assert_string_equal(got->long_name, want->long_name);
                assert_string_equal(got->description, want->description);
                /* Copies: the message they came from is gone after pm_init returns. */
                assert_ptr_not_equal(got->short_name, want->short_name);
                assert_ptr_not_equal(got->long_name, want->long_name);
                assert_ptr_not_equal(got->description, want->description);
        }
        catalog_free(c);
}

static void test_filter_verified_keeps_verified_only(void **state) {
        static const int ids[] = { 1, 2 };
        check_filter_keeps(PM_VERIFIED, ids, ELEMENTSOF(ids));
}

static void test_filter_verified_caveat_keeps_both(void **state) {
        static const int ids[] = { 1, 2, 7 };
        check_filter_keeps(PM_VERIFIED | PM_CAVEAT, ids, ELEMENTSOF(ids));
}

static void test_filter_all_keeps_everything_sorted_by_id(void **state) {
        static const int ids[] = { 1, 2, 6, 7, 100, 1000 };
        check_filter_keeps(PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT, ids, ELEMENTSOF(ids));
}

static void test_filter_unverified_keeps_unverified_only(void **state) {
        static const int ids[] = { 6, 100, 1000 };
        check_filter_keeps(PM_UNVERIFIED, ids, ELEMENTSOF(ids));
}

static void test_filter_caveat_keeps_caveat_only(void **state) {
        static const int ids[] = { 7 };
        check_filter_keeps(PM_CAVEAT, ids, ELEMENTSOF(ids));
}

static void test_filter_without_status_bits_keeps_nothing(void **state) {
        check_filter_keeps(PM_GET_GROUPS, NULL, 0);
        check_filter_keeps(0, NULL, 0);
}

static void test_info_lists_same_events_on_every_counter(void **state) {
        const int filter = PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT;
        Catalog *c = new_catalog(N_COUNTERS, filter);
        pm_info_t info;

        memset(&info, 0xa5, sizeof(info));
        catalog_fill_info(c, &info);
        assert_int_equal(info.maxpmcs, N_COUNTERS);
        assert_string_equal(info.proc_name, "Test CPU");
        assert_int_equal(info.thresholdmult, 0);
        assert_int_equal(info.hthresholdmult, 0);
        for (int k = 0; k < MAX_COUNTERS; k++)
                assert_int_equal(info.maxevents[k], k < N_COUNTERS ? (int) ELEMENTSOF(sent) : 0);
        for (int k = 0; k < N_COUNTERS; k++)
                for (int i = 0; i < info.maxevents[k]; i++) {
                        const pm_events_t *e = &info.list_events[k][i];
                        const CatalogEntry *want = sent_entry(e->event_id);

                        if (i > 0)
                                assert_true(e->event_id > info.list_events[k][i - 1].event_id);
                        assert_int_equal(e->status, want->status);
                        assert_int_equal(e->threshold, 'n');
                        assert_string_equal(e->short_name, want->short_name);
                        assert_string_equal(e->long_name, want->long_name);
                        assert_string_equal(e->description, want->description);
                }
        catalog_free(c);
}

static void test_info_status_char_is_the_filter_bit(void **state) {
        Catalog *c = new_catalog(N_COUNTERS, PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT);
        pm_info_t info;

        catalog_fill_info(c, &info);
        assert_int_equal(info.maxevents[0], 6);
        /* Sorted: 1 V, 2 V, 6 U, 7 C, 100 U, 1000 U. */
        assert_int_equal(info.list_events[0][0].status, PM_VERIFIED);
        assert_int_equal(info.list_events[0][1].status, PM_VERIFIED);
        assert_int_equal(info.list_events[0][2].status, PM_UNVERIFIED);
        assert_int_equal(info.list_events[0][3].status, PM_CAVEAT);
        assert_int_equal(info.list_events[0][4].status, PM_UNVERIFIED);
        assert_int_equal(info.list_events[0][5].status, PM_UNVERIFIED);
        catalog_free(c);
}

static void test_counter_count_is_clamped_to_max_counters(void **state) {
        Catalog *c = new_catalog(MAX_COUNTERS + 4, PM_VERIFIED);
        Catalog *none = new_catalog(-1, PM_VERIFIED);
        pm_info_t info;

        catalog_fill_info(c, &info);
        assert_int_equal(info.maxpmcs, MAX_COUNTERS);
        for (int k = 0; k < MAX_COUNTERS; k++)
                assert_int_equal(info.maxevents[k], 2);
        catalog_fill_info(none, &info);
        assert_int_equal(info.maxpmcs, 0);
        for (int k = 0; k < MAX_COUNTERS; k++)
                assert_int_equal(info.maxevents[k], 0);
        assert_false(catalog_allows(none, 0, 1));
        catalog_free(c);
        catalog_free(none);
}

static void test_status2_sets_one_status_bit_and_support_mode(void **state) {
        assert_int_equal((unsigned int) catalog_status2(PM_VERIFIED).w, 0x40000000u | 0x1000u);
        assert_int_equal((unsigned int) catalog_status2(PM_UNVERIFIED).w, 0x80000000u | 0x1000u);
        assert_int_equal((unsigned int) catalog_status2(PM_CAVEAT).w, 0x20000000u | 0x1000u);
        assert_int_equal(catalog_status2(PM_CAVEAT).b.caveat, 1);
        assert_int_equal(catalog_status2(PM_VERIFIED).b.verified, 1);
        assert_int_equal(catalog_status2(PM_UNVERIFIED).b.unverified, 1);
}

static void test_info2_carries_status_bits(void **state) {
        Catalog *c = new_catalog(N_COUNTERS, PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT);
        pm_info2_t info;

        memset(&info, 0xa5, sizeof(info));
        catalog_fill_info2(c, &info);
        assert_int_equal(info.maxpmcs, N_COUNTERS);
        assert_string_equal(info.proc_name, "Test CPU");
        assert_int_equal(info.thresholdmult, 0);
        assert_int_equal(info.hthresholdmult, 0);
        assert_int_equal(info.Hthresholdmult, 0);
        assert_int_equal(info.proc_feature.w, 0);
        for (int k = 0; k < MAX_COUNTERS; k++)
                assert_int_equal(info.maxevents[k], k < N_COUNTERS ? (int) ELEMENTSOF(sent) : 0);
        for (int k = 0; k < N_COUNTERS; k++)
                for (int i = 0; i < info.maxevents[k]; i++) {
                        const pm_events2_t *e = &info.list_events[k][i];
                        const CatalogEntry *want = sent_entry(e->event_id);

                        if (i > 0)
                                assert_true(e->event_id > info.list_events[k][i - 1].event_id);
                        assert_int_equal(e->status.w, catalog_status2(want->status).w);
                        assert_int_equal(e->status.b.support_mode, 1);
                        assert_string_equal(e->short_name, want->short_name);
                        assert_string_equal(e->long_name, want->long_name);
                        assert_string_equal(e->description, want->description);
                }
        catalog_free(c);
}

static void test_allows_only_listed_ids_on_existing_counters(void **state) {
        Catalog *c = new_catalog(N_COUNTERS, PM_VERIFIED | PM_CAVEAT);

        assert_true(catalog_allows(c, 0, 1));
        assert_true(catalog_allows(c, 0, 2));
        assert_true(catalog_allows(c, N_COUNTERS - 1, 7));
        assert_false(catalog_allows(c, -1, 1));
        assert_false(catalog_allows(c, N_COUNTERS, 1));
        assert_false(catalog_allows(c, MAX_COUNTERS, 1));
        assert_false(catalog_allows(c, 0, 6));          /* unverified: filtered out */
        assert_false(catalog_allows(c, 0, 100));
        assert_false(catalog_allows(c, 0, 1000));
        assert_false(catalog_allows(c, 0, 3));          /* never sent */
        assert_false(catalog_allows(c, 0, 0));
        assert_false(catalog_allows(c, 0, COUNT_NOTHING));
        catalog_free(c);
}

static void test_check_program_against_installed_catalog(void **state) {
        pm_prog_t p;

        catalog_install(new_catalog(N_COUNTERS, PM_VERIFIED));
        assert_true(catalog_is_installed());

        program_none(&p);
        assert_int_equal(check(&p), 0);         /* the daemon rejects it, not the library */

        p.events[0] = 2;
        p.events[3] = 1;
        assert_int_equal(check(&p), 0);

        p.events[1] = 6;                                        /* unverified: not returned by pm_init */
        assert_int_equal(check(&p), PM_EEVENT);

        /* A counter past maxpmcs does not exist here: ignored, as AIX ignores it (Paradyn leaves
         * those 0), and sent as COUNT_NOTHING. */
        program_none(&p);
        p.events[0] = 2;
        p.events[N_COUNTERS] = 0;
        {
                int32_t sent[MAX_COUNTERS];

                assert_int_equal(catalog_check_program(&p, sent), 0);
                assert_int_equal(sent[0], 2);
                for (int k = 1; k < MAX_COUNTERS; k++)
                        assert_int_equal(sent[k], COUNT_NOTHING);
        }

        program_none(&p);
        p.events[0] = 0;
        assert_int_equal(check(&p), PM_EEVENT);
}

static void test_reinstall_applies_new_filter_and_keeps_old_catalog(void **state) {
        Catalog *first = new_catalog(N_COUNTERS, PM_VERIFIED);
        Catalog *second = new_catalog(N_COUNTERS, PM_VERIFIED | PM_UNVERIFIED);
        pm_info_t old_info;
        pm_prog_t p;

        catalog_install(first);
        catalog_fill_info(first, &old_info);
        program_none(&p);
        p.events[2] = 6;
        assert_int_equal(check(&p), PM_EEVENT);

        catalog_install(second);
        assert_int_equal(check(&p), 0);
        p.events[2] = 7;                                        /* caveat: not in the new filter */
        assert_int_equal(check(&p), PM_EEVENT);

        /* The application may still hold the first pm_info_t: it must stay readable. */
        assert_int_equal(old_info.maxevents[0], 2);
        assert_string_equal(old_info.list_events[0][1].short_name, "PM_PAGE_FLT");
}

/* pm_init(PM_GET_GROUPS) lists every group pmapid offers whatever the filter, so that
 * event_groups[i].group_id == i as AIX clients expect (a group of an unverified event stays at its
 * place under PM_VERIFIED), with copies of pmapid's names and events; a second set replaces the
 * first. */
static void test_groups_are_all_listed_at_their_index(void **state) {
        static const CatalogGroup groups[] = {
                { 0, "pm_faults", "Page faults", "faults", { 2, 6, -1, -1, -1, -1, -1, -1 } },
                { 1, "pm_sched", "Scheduling", "sched", { 1, 7, -1, -1, -1, -1, -1, -1 } },
        };
        Catalog *c = new_catalog(N_COUNTERS, PM_VERIFIED | PM_CAVEAT);
        pm_groups_info_t g = { -1, NULL };

        (void) state;
        assert_int_equal(catalog_set_groups(c, groups, ELEMENTSOF(groups)), 0);
        catalog_fill_groups(c, &g);
        assert_int_equal(g.maxgroups, 2);       /* PM_MAJOR_FLT (unverified) does not drop pm_faults */
        for (int i = 0; i < g.maxgroups; i++)
                assert_int_equal(g.event_groups[i].group_id, i);
        assert_string_equal(g.event_groups[1].short_name, "pm_sched");
        assert_ptr_not_equal(g.event_groups[1].short_name, groups[1].short_name);
        assert_int_equal(g.event_groups[1].events[1], 7);
        assert_int_equal(g.event_groups[1].events[2], COUNT_NOTHING);
        assert_int_equal(g.event_groups[0].events[1], 6);
        catalog_free(c);
        c = new_catalog(N_COUNTERS, PM_VERIFIED | PM_CAVEAT | PM_UNVERIFIED);
        assert_int_equal(catalog_set_groups(c, groups, ELEMENTSOF(groups)), 0);
        assert_int_equal(catalog_set_groups(c, groups, 1), 0);
        catalog_fill_groups(c, &g);
        assert_int_equal(g.maxgroups, 1);
        assert_int_equal(g.event_groups[0].group_id, 0);
        assert_int_equal(catalog_set_groups(c, groups, 0), 0);
        catalog_fill_groups(c, &g);
        assert_int_equal(g.maxgroups, 0);
        assert_null(g.event_groups);
        catalog_free(c);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_check_program_before_install_is_not_initialized),
                cmocka_unit_test(test_filter_verified_keeps_verified_only),
                cmocka_unit_test(test_filter_verified_caveat_keeps_both),
                cmocka_unit_test(test_filter_all_keeps_everything_sorted_by_id),
                cmocka_unit_test(test_filter_unverified_keeps_unverified_only),
                cmocka_unit_test(test_filter_caveat_keeps_caveat_only),
                cmocka_unit_test(test_filter_without_status_bits_keeps_nothing),
                cmocka_unit_test(test_info_lists_same_events_on_every_counter),
                cmocka_unit_test(test_info_status_char_is_the_filter_bit),
                cmocka_unit_test(test_counter_count_is_clamped_to_max_counters),
                cmocka_unit_test(test_status2_sets_one_status_bit_and_support_mode),
                cmocka_unit_test(test_info2_carries_status_bits),
                cmocka_unit_test(test_allows_only_listed_ids_on_existing_counters),
                cmocka_unit_test(test_check_program_against_installed_catalog),
                cmocka_unit_test(test_reinstall_applies_new_filter_and_keeps_old_catalog),
                cmocka_unit_test(test_groups_are_all_listed_at_their_index),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
