/* test-event-table.c: the event catalog (daemon/kernel/event-table.c and the curated tables of
 * daemon/core/events/). The curated rows are validated as data: stable ids below the libpfm4 range and
 * increasing across sources, unique AIX-style names, a libpfm4 name, a description, a status, and
 * for verified and caveat rows the test that checks the count, which must exist in the tree. The
 * unprobed catalog must keep the rows in order and find each by id. Last, the real catalog is
 * loaded with libpfm4 and perf_event_open on this thread, which works unprivileged with
 * perf_event_paranoid 2; it skips only where perf_event_open is unavailable. */
#include <errno.h>
#include <fcntl.h>             /* O_EXCL, which perf-syscall.h uses without including it */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "event-table.h"
#include "macro.h"
#include "perf-syscall.h"
#include "pmapi.h"

#define FOREACH_ROW(s, i) \
        for (size_t s = 0; s < n_event_sources; s++) \
                for (size_t i = 0; i < event_sources[s]->n_rows; i++)

static size_t n_curated_rows(void) {
        size_t n = 0;

        for (size_t s = 0; s < n_event_sources; s++)
                n += event_sources[s]->n_rows;
        return n;
}

static bool is_status(int status) {
        return status == PM_VERIFIED || status == PM_CAVEAT || status == PM_UNVERIFIED;
}

static void test_every_source_names_its_family_and_origin(void **state) {
        assert_true(n_event_sources > 0);
        for (size_t s = 0; s < n_event_sources; s++) {
                const EventTableSource *src = event_sources[s];

                assert_non_null(src);
                assert_non_null(src->family);
                assert_non_null(src->source);
                assert_true(src->family[0] != '\0');
                assert_true(src->source[0] != '\0');
                assert_non_null(src->rows);
                assert_true(src->n_rows > 0);
        }
}

/* Curated ids lie in EVENT_ID(1) .. below the extra range: far above any POWER per-counter index. */
static void test_ids_are_in_the_curated_range(void **state) {
        FOREACH_ROW(s, i) {
                const EventDef *d = &event_sources[s]->rows[i];
                if (d->id <= EVENT_ID_BASE || d->id >= EVENT_ID_EXTRA_BASE)
                        fail_msg("%s: id %d outside %d..%d", d->short_name, d->id, EVENT_ID(1), EVENT_ID_EXTRA_BASE - 1);
        }
}

static void test_ids_increase_across_all_sources(void **state) {
        int last = 0;

        FOREACH_ROW(s, i) {
                const EventDef *d = &event_sources[s]->rows[i];
                if (d->id <= last)
                        fail_msg("%s: id %d follows id %d", d->short_name, d->id, last);
                last = d->id;
        }
}

static void test_short_names_are_unique_and_aix_style(void **state) {
        FOREACH_ROW(s, i) {
                const EventDef *d = &event_sources[s]->rows[i];

                assert_non_null(d->short_name);
                if (strncmp(d->short_name, "PM_", 3) != 0 || d->short_name[3] == '\0')
                        fail_msg("id %d: short name '%s' is not PM_*", d->id, d->short_name);
                FOREACH_ROW(s2, i2) {
                        const EventDef *e = &event_sources[s2]->rows[i2];
                        if (e != d && strcmp(e->short_name, d->short_name) == 0)
                                fail_msg("ids %d and %d share '%s'", d->id, e->id, d->short_name);
                }
        }
}

/* A row's libpfm4 name is pmu::NAME, except a CPU family's row, whose names (with alternatives) are
 * looked up on the PMUs present and hold no "::"; no two rows encode the same name. */
static void test_pfm_names_are_qualified_and_unique(void **state) {
        FOREACH_ROW(s, i) {
                const EventDef *d = &event_sources[s]->rows[i];
                bool family = d->alternatives[0] != NULL;

                assert_non_null(d->pfm_name);
                if (family ? strstr(d->pfm_name, "::") != NULL :
                             (!strstr(d->pfm_name, "::") || strncmp(d->pfm_name, "::", 2) == 0))
                        fail_msg("%s: libpfm4 name '%s' is not %s", d->short_name, d->pfm_name,
                                 family ? "a family's NAME" : "pmu::NAME");
                for (size_t k = 0; family && k < ELEMENTSOF(d->alternatives) && d->alternatives[k]; k++)
                        if (strstr(d->alternatives[k], "::"))
                                fail_msg("%s: alternative '%s' names a PMU", d->short_name, d->alternatives[k]);
                FOREACH_ROW(s2, i2) {
                        const EventDef *e = &event_sources[s2]->rows[i2];
                        if (e != d && strcmp(e->pfm_name, d->pfm_name) == 0)
                                fail_msg("%s and %s both encode '%s'", d->short_name, e->short_name,
                                         d->pfm_name);
                }
        }
}

static void test_every_row_has_description_and_status(void **state) {
        FOREACH_ROW(s, i) {
                const EventDef *d = &event_sources[s]->rows[i];

                if (!d->description || d->description[0] == '\0')
                        fail_msg("%s has no description", d->short_name);
                if (!is_status(d->status))
                        fail_msg("%s: status %d is not PM_VERIFIED, PM_CAVEAT or PM_UNVERIFIED",
                                 d->short_name, d->status);
        }
}

static void test_checked_rows_name_an_existing_test(void **state) {
        const char *root = getenv("PMAPI_SOURCE_ROOT");
        size_t n_checked = 0;

        if (!root)
                fail_msg("PMAPI_SOURCE_ROOT is not set: run this test through 'meson test'");
        FOREACH_ROW(s, i) {
                const EventDef *d = &event_sources[s]->rows[i];
                char path[4096];

                if (d->status == PM_UNVERIFIED)
                        continue;
                if (!d->checked_by || d->checked_by[0] == '\0')
                        fail_msg("%s is %s but names no test", d->short_name,
                                 d->status == PM_VERIFIED ? "verified" : "caveat");
                (void) snprintf(path, sizeof(path), "%s/%s", root, d->checked_by);
                if (access(path, R_OK) < 0)
                        fail_msg("%s: checked_by '%s' does not exist (%s)", d->short_name, d->checked_by,
                                 strerror(errno));
                n_checked++;
        }
        assert_true(n_checked > 0);
}

static void test_unprobed_table_keeps_rows_in_order(void **state) {
        EventTable *t = NULL;
        size_t k = 0;

        assert_int_equal(event_table_new_unprobed(event_sources, n_event_sources, &t), 0);
        assert_non_null(t);
        assert_int_equal(t->n_events, n_curated_rows());
        assert_non_null(t->pmu_name);
        FOREACH_ROW(s, i) {
                const EventDef *d = &event_sources[s]->rows[i];
                const Event *e = &t->events[k++];

                assert_int_equal(e->id, d->id);
                assert_string_equal(e->short_name, d->short_name);
                assert_string_equal(e->long_name, d->pfm_name);
                assert_string_equal(e->description, d->description);
                assert_int_equal(e->status, d->status);
                assert_int_equal(e->owner_may_count_kernel, d->owner_may_count_kernel);
        }
        event_table_free(t);
}

static void test_find_returns_each_row_and_null_for_missing_ids(void **state) {
        static const int missing[] = { 0, 1, 2, 5, 8, 99, 1000, EVENT_ID(0), EVENT_ID(8), EVENT_ID(99), -1,
                                       COUNT_NOTHING, EVENT_ID(111), 2147483647 };
        EventTable *t = NULL;

        assert_int_equal(event_table_new_unprobed(event_sources, n_event_sources, &t), 0);
        for (size_t k = 0; k < t->n_events; k++)
                assert_ptr_equal(event_table_find(t, t->events[k].id), &t->events[k]);
        for (size_t k = 0; k < ELEMENTSOF(missing); k++)
                if (event_table_find(t, missing[k]))
                        fail_msg("id %d found", missing[k]);
        event_table_free(t);
}

static void test_unprobed_table_of_one_source(void **state) {
        const EventTableSource *const only_hw[] = { &event_source_perf_generic_hw };
        EventTable *t = NULL;

        assert_int_equal(event_table_new_unprobed(only_hw, 1, &t), 0);
        assert_int_equal(t->n_events, event_source_perf_generic_hw.n_rows);
        assert_null(event_table_find(t, EVENT_ID(1)));
        assert_non_null(event_table_find(t, EVENT_ID(100)));
        assert_string_equal(event_table_find(t, EVENT_ID(100))->short_name, "PM_CYC");
        event_table_free(t);

        assert_int_equal(event_table_new_unprobed(only_hw, 0, &t), 0);
        assert_int_equal(t->n_events, 0);
        assert_null(event_table_find(t, EVENT_ID(100)));
        event_table_free(t);
}

/* Whether perf_event_open works at all here; if not, says why. */
static bool perf_available(char *why, size_t n) {
        struct perf_event_attr a = {
                .size = sizeof(a), .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK,
                .disabled = 1, .exclude_kernel = 1, .exclude_hv = 1,
        };
        int fd;

        if (access("/proc/sys/kernel/perf_event_paranoid", R_OK) < 0) {
                (void) snprintf(why, n, "no /proc/sys/kernel/perf_event_paranoid: %s", strerror(errno));
                return false;
        }
        fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd < 0) {
                (void) snprintf(why, n, "perf_event_open(task-clock) fails: %s", strerror(errno));
                return false;
        }
        close(fd);
        return true;
}

static void test_loaded_table_lists_software_events_in_id_order(void **state) {
        EventTable *t = NULL;
        const Event *e;
        char why[256];

        if (!perf_available(why, sizeof(why))) {
                print_message("# SKIP: %s\n", why);
                skip();
        }
        assert_int_equal(event_table_load(&t), 0);
        assert_non_null(t);
        assert_non_null(t->pmu_name);
        assert_true(t->pmu_name[0] != '\0');

        e = event_table_find(t, EVENT_ID(1));
        assert_non_null(e);
        assert_string_equal(e->short_name, "PM_TASK_CLOCK");
        assert_int_equal(e->attr.type, PERF_TYPE_SOFTWARE);
        assert_int_equal(e->attr.config, PERF_COUNT_SW_TASK_CLOCK);
        e = event_table_find(t, EVENT_ID(2));
        assert_non_null(e);
        assert_string_equal(e->short_name, "PM_PAGE_FLT");
        assert_int_equal(e->attr.type, PERF_TYPE_SOFTWARE);
        assert_int_equal(e->attr.config, PERF_COUNT_SW_PAGE_FAULTS);

        for (size_t k = 0; k < t->n_events; k++) {
                e = &t->events[k];
                if (k > 0 && e->id <= t->events[k - 1].id)
                        fail_msg("id %d follows id %d", e->id, t->events[k - 1].id);
                if (!is_status(e->status))
                        fail_msg("id %d: status %d", e->id, e->status);
                if (!e->short_name || !e->short_name[0] || !e->long_name || !e->long_name[0] ||
                    !e->description || !e->description[0])
                        fail_msg("id %d lacks a name or description", e->id);
                if (e->id >= EVENT_ID_EXTRA_BASE && e->status != PM_UNVERIFIED)
                        fail_msg("libpfm4 event %s (id %d) is not unverified", e->short_name, e->id);
                if (!strstr(e->long_name, "::"))
                        fail_msg("id %d: long name '%s' is not pmu::NAME", e->id, e->long_name);
                assert_ptr_equal(event_table_find(t, e->id), e);
        }
        event_table_free(t);
}

/* A row's long name is its pfm_name, or pmu::NAME for the name (pfm_name or an alternative) that
 * the PMU present took. */
static bool long_name_is_defs(const char *long_name, const EventDef *d) {
        const char *bare = strstr(long_name, "::");

        if (strcmp(long_name, d->pfm_name) == 0)
                return true;
        if (!bare)
                return false;
        bare += 2;
        if (strcmp(bare, d->pfm_name) == 0)
                return true;
        for (size_t k = 0; k < ELEMENTSOF(d->alternatives) && d->alternatives[k]; k++)
                if (strcmp(bare, d->alternatives[k]) == 0)
                        return true;
        return false;
}

static void test_loaded_curated_rows_keep_their_definition(void **state) {
        EventTable *t = NULL;
        char why[256];

        if (!perf_available(why, sizeof(why))) {
                print_message("# SKIP: %s\n", why);
                skip();
        }
        assert_int_equal(event_table_load(&t), 0);
        FOREACH_ROW(s, i) {
                const EventDef *d = &event_sources[s]->rows[i];
                const Event *e = event_table_find(t, d->id);

                if (!e)
                        continue;               /* does not open here (no CPU PMU) */
                assert_string_equal(e->short_name, d->short_name);
                if (!long_name_is_defs(e->long_name, d))
                        fail_msg("id %d: long name '%s' is none of its row's names", d->id, e->long_name);
                assert_int_equal(e->status, d->status);
                assert_int_equal(e->owner_may_count_kernel, d->owner_may_count_kernel);
        }
        /* The software rows open wherever perf_event_open does. */
        for (int id = EVENT_ID(1); id <= EVENT_ID(7); id++)
                if (!event_table_find(t, id))
                        fail_msg("software id %d missing from the loaded table", id);
        /* No event is listed twice under different ids. */
        for (size_t a = 0; a < t->n_events; a++)
                for (size_t b = a + 1; b < t->n_events; b++) {
                        const struct perf_event_attr *x = &t->events[a].attr, *y = &t->events[b].attr;
                        if (x->type == y->type && x->config == y->config && x->config1 == y->config1 &&
                            x->config2 == y->config2)
                                fail_msg("%s and %s have the same encoding", t->events[a].short_name,
                                         t->events[b].short_name);
                }
        event_table_free(t);
}

/* The predefined groups (daemon/core/events/groups.c) are data: AIX-style lower-case names, unique, at
 * most MAX_COUNTERS events each, every one a curated row, none twice; the software ones, which every
 * machine offers, first. Offered, they are numbered from 0 in that order. */
static void test_group_defs_are_valid(void **state) {
        EventTable *t = NULL;

        (void) state;
        assert_int_equal(event_table_new_unprobed(event_sources, n_event_sources, &t), 0);
        for (size_t g = 0; g < n_event_group_defs; g++) {
                const EventGroupDef *d = &event_group_defs[g];
                size_t n = 0;

                if (strncmp(d->short_name, "pm_", 3) != 0 || !d->long_name[0] || !d->description[0])
                        fail_msg("group %zu: names or description", g);
                for (size_t o = 0; o < g; o++)
                        if (strcmp(event_group_defs[o].short_name, d->short_name) == 0)
                                fail_msg("group name %s twice", d->short_name);
                for (; n < MAX_COUNTERS && d->events[n]; n++) {
                        if (!event_table_find_name(t, d->events[n]))
                                fail_msg("group %s names %s, not a curated row", d->short_name, d->events[n]);
                        for (size_t o = 0; o < n; o++)
                                if (strcmp(d->events[o], d->events[n]) == 0)
                                        fail_msg("group %s names %s twice", d->short_name, d->events[n]);
                }
                if (n == 0)
                        fail_msg("group %s is empty", d->short_name);
        }
        /* Unprobed, every group is offered, its events on counters 0, 1, ... */
        assert_int_equal(t->n_groups, n_event_group_defs);
        for (size_t g = 0; g < t->n_groups; g++) {
                assert_int_equal(t->groups[g].id, (int) g);
                assert_ptr_equal(event_table_find_group(t, (int) g), &t->groups[g]);
        }
        assert_string_equal(event_table_find_group(t, 0)->def->short_name, "pm_faults");
        assert_int_equal(event_table_find_group(t, 0)->events[0], EVENT_ID(2));     /* PM_PAGE_FLT */
        assert_int_equal(event_table_find_group(t, 0)->events[3], COUNT_NOTHING);
        assert_string_equal(event_table_find_group(t, 1)->def->short_name, "pm_sched");
        assert_null(event_table_find_group(t, -1));
        assert_null(event_table_find_group(t, (int) t->n_groups));
        assert_null(event_table_find_group(t, EVENT_ID(2)));       /* an event id is no group */
        event_table_free(t);
}

/* The derived metrics (daemon/core/events/metrics.c) are data: unique names, curated events, a scale
 * and a unit each; offered where their events are. */
static void test_metric_defs_are_valid(void **state) {
        const EventTableSource *const only_sw[] = { &event_source_perf_software };
        EventTable *t = NULL, *sw = NULL;

        (void) state;
        assert_int_equal(event_table_new_unprobed(event_sources, n_event_sources, &t), 0);
        assert_int_equal(event_table_new_unprobed(only_sw, 1, &sw), 0);
        for (size_t i = 0; i < n_metric_defs; i++) {
                const MetricDef *m = &metric_defs[i];

                if (!m->name[0] || !m->description[0] || !m->unit[0] || !(m->scale > 0))
                        fail_msg("metric %zu: name, description, unit or scale", i);
                for (size_t o = 0; o < i; o++)
                        if (strcmp(metric_defs[o].name, m->name) == 0)
                                fail_msg("metric %s twice", m->name);
                if (!event_table_has_metric(t, m))
                        fail_msg("metric %s names an event that is not a curated row", m->name);
        }
        /* Software events only: the per-second ones and CPU utilization, not IPC. */
        for (size_t i = 0; i < n_metric_defs; i++)
                if (strcmp(metric_defs[i].name, "cpu_utilization") == 0)
                        assert_true(event_table_has_metric(sw, &metric_defs[i]));
                else if (strcmp(metric_defs[i].name, "ipc") == 0)
                        assert_false(event_table_has_metric(sw, &metric_defs[i]));
        event_table_free(sw);
        event_table_free(t);
}

/* A group naming an event the catalog lacks is not offered. */
static void test_group_with_an_absent_event_is_not_offered(void **state) {
        static const EventGroupDef defs[] = {
                { "pm_gone", "gone", "gone", { "PM_PAGE_FLT", "PM_NO_SUCH_EVENT" } },
                { "pm_ok", "ok", "ok", { "PM_PAGE_FLT" } },
        };
        const EventTableSource *const only_sw[] = { &event_source_perf_software };
        EventTable *t = NULL;

        (void) state;
        assert_int_equal(event_table_new_unprobed(only_sw, 1, &t), 0);
        assert_int_equal(t->n_groups, 2);      /* pm_faults and pm_sched: software only */
        free(t->groups);
        t->groups = NULL;
        t->n_groups = 0;
        assert_int_equal(event_table_load_groups(t, defs, ELEMENTSOF(defs), false), 0);
        assert_int_equal(t->n_groups, 1);
        assert_string_equal(t->groups[0].def->short_name, "pm_ok");      /* numbered after the gaps */
        assert_int_equal(event_table_find_group(t, 0)->id, 0);
        assert_null(event_table_find_group(t, 1));
        event_table_free(t);
}

/* Probed on this machine: the software groups are offered (their events always open together), and
 * every group offered has all its events in the catalog. */
static void test_loaded_table_offers_the_software_groups(void **state) {
        EventTable *t = NULL;
        char why[256];

        (void) state;
        if (!perf_available(why, sizeof(why))) {
                print_message("# SKIP: %s\n", why);
                skip();
        }
        assert_int_equal(event_table_load(&t), 0);
        assert_string_equal(event_table_find_group(t, 0)->def->short_name, "pm_faults");
        assert_string_equal(event_table_find_group(t, 1)->def->short_name, "pm_sched");
        for (size_t g = 0; g < t->n_groups; g++)
                for (int c = 0; c < MAX_COUNTERS; c++)
                        if (t->groups[g].events[c] != COUNT_NOTHING && !event_table_find(t, t->groups[g].events[c]))
                                fail_msg("group %s counter %d: event %d not in the catalog", t->groups[g].def->short_name, c,
                                         t->groups[g].events[c]);
        event_table_free(t);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_every_source_names_its_family_and_origin),
                cmocka_unit_test(test_ids_are_in_the_curated_range),
                cmocka_unit_test(test_ids_increase_across_all_sources),
                cmocka_unit_test(test_short_names_are_unique_and_aix_style),
                cmocka_unit_test(test_pfm_names_are_qualified_and_unique),
                cmocka_unit_test(test_every_row_has_description_and_status),
                cmocka_unit_test(test_checked_rows_name_an_existing_test),
                cmocka_unit_test(test_unprobed_table_keeps_rows_in_order),
                cmocka_unit_test(test_find_returns_each_row_and_null_for_missing_ids),
                cmocka_unit_test(test_unprobed_table_of_one_source),
                cmocka_unit_test(test_loaded_table_lists_software_events_in_id_order),
                cmocka_unit_test(test_loaded_curated_rows_keep_their_definition),
                cmocka_unit_test(test_group_defs_are_valid),
                cmocka_unit_test(test_metric_defs_are_valid),
                cmocka_unit_test(test_group_with_an_absent_event_is_not_offered),
                cmocka_unit_test(test_loaded_table_offers_the_software_groups),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
