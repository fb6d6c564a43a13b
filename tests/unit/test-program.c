/* test-program.c: AIX's rules for a thread program and its perf encoding (daemon/core/program.c). The
 * catalog is the curated tables without probing (event_table_new_unprobed), so ids 1..7 are the
 * perf software rows, 100..110 the generic hardware rows, and groups 1, 2 and 10..14 are offered. Checked here: which mode bits a
 * thread context takes and which error each refused bit gives, how counters map to the members of
 * one perf group, and how the group's values come back to the counters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "event-table.h"
#include "macro.h"
#include "pmapi.h"
#include "program.h"

static int setup_table(void **state) {
        EventTable *t = NULL;

        if (event_table_new_unprobed(event_sources, n_event_sources, &t) < 0)
                return -1;
        *state = t;
        return 0;
}

static int teardown_table(void **state) {
        event_table_free(*state);
        return 0;
}

static Program program_with(uint32_t mode) {
        Program p = { .mode = mode };

        for (int c = 0; c < MAX_COUNTERS; c++)
                p.events[c] = COUNT_NOTHING;
        return p;
}

/* Each mode word in the three scopes. proctree and process are accepted on thread programs (real
 * AIX clients set them there; they change nothing) and refused only where they contradict another
 * bit: proctree follows new threads and processes, which no_inherit and a process group do not. */
static void test_mode_bits_give_expected_verdict(void **state) {
        const EventTable *t = *state;
        enum { OK = PROGRAM_OK, BAD = PROGRAM_INVALID_MODE, CONFLICT = PROGRAM_CONFLICTING_MODE,
               FOREIGN = PROGRAM_FOREIGN_LAYOUT };
        static const struct {
                uint32_t mode;
                ProgramError thread, group, system;
        } table[] = {
                { PM_USER,                              OK, OK, OK },
                { PM_KERNEL,                            OK, OK, OK },
                { PM_USER | PM_KERNEL | PM_COUNT,       OK, OK, OK },
                { PM_USER | PM_NO_INHERIT,              OK, OK, BAD },
                { PM_USER | 0x1000000u,                 OK, OK, OK },           /* runlatch */
                { PM_USER | 0x200000u,                  OK, OK, OK },           /* nointerrupt */
                { PM_USER | PM_PROCTREE,                OK, OK, OK },           /* IPM, Jikes RVM */
                { PM_USER | PM_PROCESS,                 OK, OK, BAD },          /* old Paradyn */
                { PM_USER | PM_PROCTREE | PM_PROCESS,   OK, CONFLICT, BAD },
                { PM_USER | PM_PROCTREE | PM_NO_INHERIT, CONFLICT, CONFLICT, BAD },
                { PM_USER | 0x100000u,                  BAD, BAD, BAD },        /* wpar_all */
                { PM_USER | 0x40u,                      BAD, BAD, BAD },        /* spare */
                { PM_USER | 0x40000u,                   BAD, BAD, BAD },        /* spare, highest */
                { PM_USER | 0x04000000u,                PROGRAM_THRESHOLD, PROGRAM_THRESHOLD, PROGRAM_THRESHOLD },
                { PM_USER | 0xfc000000u,                PROGRAM_THRESHOLD, PROGRAM_THRESHOLD, PROGRAM_THRESHOLD },
                { PM_USER | 0x2000000u,                 PROGRAM_THRESHOLD, PROGRAM_THRESHOLD, PROGRAM_THRESHOLD },
                { PM_USER | 0x400000u,                  PROGRAM_THRESHOLD, PROGRAM_THRESHOLD, PROGRAM_THRESHOLD },
                { PM_USER | 0x800000u,                  PROGRAM_HYPERVISOR, PROGRAM_HYPERVISOR, PROGRAM_HYPERVISOR },
                /* Built for another layout: OpenJ9's private big-endian pm_mode_t compiled little-endian
                 * (user, is_group, runlatch, nointerrupt, no_inherit), and PM_USER|PM_COUNT byte-swapped. */
                { 0x24001480u,                          FOREIGN, FOREIGN, FOREIGN },
                { 0x06000000u,                          FOREIGN, FOREIGN, FOREIGN },
                { 0xc0000000u,                          FOREIGN, FOREIGN, FOREIGN },    /* count, proctree */
                { PM_KERNEL | 0x24000000u,              PROGRAM_THRESHOLD, PROGRAM_THRESHOLD, PROGRAM_THRESHOLD },
                { PM_USER | 0x20u,                      PROGRAM_OK, PROGRAM_OK, PROGRAM_OK },   /* is_group: group 1 */
        };

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                Program p = program_with(table[i].mode);
                ProgramError e[3];

                p.events[0] = table[i].mode & MODE_IS_GROUP_BIT ? 1 : EVENT_ID(2);
                e[0] = program_check_thread(&p, t, NULL);
                e[1] = program_check_group(&p, t, NULL);
                e[2] = program_check_system(&p, t, NULL);
                if (e[0] != table[i].thread || e[1] != table[i].group || e[2] != table[i].system)
                        fail_msg("mode %#x: got %d/%d/%d (thread/group/system), expected %d/%d/%d", table[i].mode,
                                 (int) e[0], (int) e[1], (int) e[2], (int) table[i].thread, (int) table[i].group,
                                 (int) table[i].system);
        }
}

/* mode.b.is_group: events[0] is a group id, the other counters are ignored (AIX), and the group's
 * events go on counters 0, 1, 2 in its order; an id the catalog does not offer is refused, named. */
static void test_event_group_expands_to_its_events(void **state) {
        Program p = program_with(PM_USER | MODE_IS_GROUP_BIT);
        ProgramEncoding enc;
        int32_t events[MAX_COUNTERS];
        int counter = -42;

        p.events[0] = 0;                                /* pm_faults: PM_PAGE_FLT, PM_MINOR_FLT, PM_MAJOR_FLT */
        p.events[4] = 12345;                    /* ignored */
        assert_int_equal(program_check_thread(&p, *state, &counter), PROGRAM_OK);
        assert_true(program_set_events(&p.sets[0], *state, events));
        assert_int_equal(events[0], EVENT_ID(2));
        assert_int_equal(events[1], EVENT_ID(5));
        assert_int_equal(events[2], EVENT_ID(6));
        assert_int_equal(events[3], COUNT_NOTHING);
        assert_int_equal(events[4], COUNT_NOTHING);
        program_encode(&p, *state, &enc);
        assert_int_equal(enc.n_events, 3);
        assert_int_equal(enc.slot[0], 0);
        assert_int_equal(enc.slot[2], 2);
        assert_int_equal(enc.attrs[0].disabled, 1);     /* the group's first event leads */
        assert_int_equal(program_n_events(&p, *state), 3);
        assert_true(program_owner_may_count_kernel(&p, *state));
        p.events[0] = 99;
        assert_int_equal(program_check_thread(&p, *state, &counter), PROGRAM_UNKNOWN_GROUP);
        assert_int_equal(counter, 99);
        p.events[0] = -1;                               /* no group, though COUNT_NOTHING elsewhere */
        assert_int_equal(program_check_thread(&p, *state, &counter), PROGRAM_UNKNOWN_GROUP);
        p.events[0] = EVENT_ID(2);                      /* an event id where a group id belongs */
        assert_int_equal(program_check_thread(&p, *state, &counter), PROGRAM_UNKNOWN_GROUP);
        assert_int_equal(counter, EVENT_ID(2));
        p.events[0] = 99;
        assert_false(program_set_events(&p.sets[0], *state, events));
        assert_int_equal(events[0], COUNT_NOTHING);
        /* In a multiplexed program's second set, the error still names the group id, not a counter. */
        p.events[0] = 1;
        p.n_sets = 2;
        p.slice_ms = 100;
        p.sets[1] = p.sets[0];
        p.sets[1].events[0] = 137;
        assert_int_equal(program_check_thread(&p, *state, &counter), PROGRAM_UNKNOWN_GROUP);
        assert_int_equal(counter, 137);
        p.n_sets = 0;
        p.slice_ms = 0;
        p.events[0] = 2;                                /* pm_cpi: hardware, but offered unprobed */
        assert_int_equal(program_check_system(&p, *state, &counter), PROGRAM_OK);
        assert_false(program_owner_may_count_kernel(&p, *state));
}

static void test_all_counters_empty_is_no_events(void **state) {
        Program p = program_with(PM_USER | PM_COUNT);
        int counter = -42;

        assert_int_equal(program_check_thread(&p, *state, &counter), PROGRAM_NO_EVENTS);
}

static void test_unknown_event_names_its_counter(void **state) {
        Program p = program_with(PM_USER);
        int counter = -42;

        p.events[0] = EVENT_ID(1);
        p.events[3] = EVENT_ID(99);
        p.events[5] = EVENT_ID(2);
        assert_int_equal(program_check_thread(&p, *state, &counter), PROGRAM_UNKNOWN_EVENT);
        assert_int_equal(counter, 3);

        p.events[3] = EVENT_ID(0);
        counter = -42;
        assert_int_equal(program_check_thread(&p, *state, &counter), PROGRAM_UNKNOWN_EVENT);
        assert_int_equal(counter, 3);

        p.events[3] = COUNT_NOTHING;
        p.events[7] = EVENT_ID_EXTRA_BASE;              /* not in an unprobed catalog */
        counter = -42;
        assert_int_equal(program_check_thread(&p, *state, &counter), PROGRAM_UNKNOWN_EVENT);
        assert_int_equal(counter, 7);

        p.events[7] = EVENT_ID(106);
        assert_int_equal(program_check_thread(&p, *state, &counter), PROGRAM_OK);
}

static void test_every_curated_id_on_every_counter_is_accepted(void **state) {
        for (size_t s = 0; s < n_event_sources; s++)
                for (size_t i = 0; i < event_sources[s]->n_rows; i++)
                        for (int c = 0; c < MAX_COUNTERS; c++) {
                                Program p = program_with(PM_USER);
                                p.events[c] = event_sources[s]->rows[i].id;
                                assert_int_equal(program_check_thread(&p, *state, NULL), PROGRAM_OK);
                        }
}

static void test_encode_skips_empty_counters_and_maps_slots(void **state) {
        Program p = program_with(PM_USER);
        ProgramEncoding enc;

        p.events[1] = EVENT_ID(2);
        p.events[4] = EVENT_ID(1);
        p.events[7] = EVENT_ID(100);
        memset(&enc, 0xa5, sizeof(enc));
        program_encode(&p, *state, &enc);
        assert_int_equal(enc.n_events, 3);
        assert_int_equal(enc.slot[0], 1);
        assert_int_equal(enc.slot[1], 4);
        assert_int_equal(enc.slot[2], 7);
        for (size_t i = 0; i < enc.n_events; i++)
                assert_int_equal(enc.attrs[i].size, sizeof(struct perf_event_attr));
}

static void test_encode_disables_only_the_leader(void **state) {
        Program p = program_with(PM_USER | PM_COUNT);
        ProgramEncoding enc;

        p.events[2] = EVENT_ID(5);
        p.events[3] = EVENT_ID(6);
        p.events[6] = EVENT_ID(7);
        program_encode(&p, *state, &enc);
        assert_int_equal(enc.n_events, 3);
        assert_int_equal(enc.attrs[0].disabled, 1);
        assert_int_equal(enc.attrs[1].disabled, 0);
        assert_int_equal(enc.attrs[2].disabled, 0);
        for (size_t i = 0; i < enc.n_events; i++) {
                assert_int_equal(enc.attrs[i].exclude_hv, 1);
                assert_true(enc.attrs[i].read_format & PERF_FORMAT_GROUP);
        }
}

static void test_encode_excludes_modes_not_asked(void **state) {
        static const struct {
                uint32_t mode;
                unsigned exclude_user, exclude_kernel;
        } table[] = {
                { PM_USER,                      0, 1 },
                { PM_KERNEL,                    1, 0 },
                { PM_USER | PM_KERNEL,          0, 0 },
                { PM_USER | PM_KERNEL | PM_COUNT, 0, 0 },
                { PM_COUNT,                     1, 1 },
        };

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                Program p = program_with(table[i].mode);
                ProgramEncoding enc;

                p.events[0] = EVENT_ID(1);
                p.events[5] = EVENT_ID(101);
                program_encode(&p, *state, &enc);
                assert_int_equal(enc.n_events, 2);
                for (size_t k = 0; k < enc.n_events; k++) {
                        if (enc.attrs[k].exclude_user != table[i].exclude_user ||
                            enc.attrs[k].exclude_kernel != table[i].exclude_kernel)
                                fail_msg("mode %#x, member %zu: exclude_user %u exclude_kernel %u",
                                         table[i].mode, k, (unsigned) enc.attrs[k].exclude_user,
                                         (unsigned) enc.attrs[k].exclude_kernel);
                        assert_int_equal(enc.attrs[k].exclude_hv, 1);
                }
        }
}

static void test_encode_single_event_is_a_disabled_leader(void **state) {
        Program p = program_with(PM_USER);
        ProgramEncoding enc;

        p.events[6] = EVENT_ID(3);
        program_encode(&p, *state, &enc);
        assert_int_equal(enc.n_events, 1);
        assert_int_equal(enc.slot[0], 6);
        assert_int_equal(enc.attrs[0].disabled, 1);
}

static void test_spread_values_puts_each_value_at_its_counter(void **state) {
        Program p = program_with(PM_USER);
        static const uint64_t values[] = { 11, 22, 33 };
        int64_t accu[MAX_COUNTERS];
        ProgramEncoding enc;

        p.events[1] = EVENT_ID(2);
        p.events[3] = EVENT_ID(1);
        p.events[7] = EVENT_ID(5);
        program_encode(&p, *state, &enc);
        for (int c = 0; c < MAX_COUNTERS; c++)
                accu[c] = -777;                         /* stale data the spread must overwrite */
        program_spread_values(&enc, values, accu);
        assert_int_equal(accu[0], 0);
        assert_int_equal(accu[1], 11);
        assert_int_equal(accu[2], 0);
        assert_int_equal(accu[3], 22);
        assert_int_equal(accu[4], 0);
        assert_int_equal(accu[5], 0);
        assert_int_equal(accu[6], 0);
        assert_int_equal(accu[7], 33);
}

static void test_spread_values_keeps_64_bit_counts(void **state) {
        Program p = program_with(PM_USER);
        const uint64_t values[] = { UINT64_C(0x123456789abc) };
        int64_t accu[MAX_COUNTERS];
        ProgramEncoding enc;

        p.events[0] = EVENT_ID(1);
        program_encode(&p, *state, &enc);
        program_spread_values(&enc, values, accu);
        assert_true(accu[0] == INT64_C(0x123456789abc));
}

static void test_owner_may_count_kernel_for_software_events_only(void **state) {
        Program all_sw = program_with(PM_USER | PM_KERNEL);
        Program mixed;

        for (int id = EVENT_ID(1); id <= EVENT_ID(7); id++) {
                Program p = program_with(PM_USER | PM_KERNEL);
                p.events[0] = id;
                if (!program_owner_may_count_kernel(&p, *state))
                        fail_msg("software id %d should be visible to its owner", id);
                all_sw.events[id - EVENT_ID(0)] = id;
        }
        all_sw.events[0] = EVENT_ID(1);
        assert_true(program_owner_may_count_kernel(&all_sw, *state));

        mixed = all_sw;
        mixed.events[0] = EVENT_ID(100);
        assert_false(program_owner_may_count_kernel(&mixed, *state));

        for (int id = EVENT_ID(100); id <= EVENT_ID(106); id++) {
                Program p = program_with(PM_USER | PM_KERNEL);
                p.events[4] = id;
                assert_false(program_owner_may_count_kernel(&p, *state));
        }
}

static void test_count_bits_are_read_from_mode(void **state) {
        Program p = program_with(PM_USER | PM_COUNT);

        assert_true(program_counts_on_start(&p));
        assert_false(program_counts_kernel(&p));
        p.mode = PM_USER | PM_KERNEL;
        assert_false(program_counts_on_start(&p));
        assert_true(program_counts_kernel(&p));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_mode_bits_give_expected_verdict),
                cmocka_unit_test(test_event_group_expands_to_its_events),
                cmocka_unit_test(test_all_counters_empty_is_no_events),
                cmocka_unit_test(test_unknown_event_names_its_counter),
                cmocka_unit_test(test_every_curated_id_on_every_counter_is_accepted),
                cmocka_unit_test(test_encode_skips_empty_counters_and_maps_slots),
                cmocka_unit_test(test_encode_disables_only_the_leader),
                cmocka_unit_test(test_encode_excludes_modes_not_asked),
                cmocka_unit_test(test_encode_single_event_is_a_disabled_leader),
                cmocka_unit_test(test_spread_values_puts_each_value_at_its_counter),
                cmocka_unit_test(test_spread_values_keeps_64_bit_counts),
                cmocka_unit_test(test_owner_may_count_kernel_for_software_events_only),
                cmocka_unit_test(test_count_bits_are_read_from_mode),
        };

        return cmocka_run_group_tests(tests, setup_table, teardown_table);
}
