/* test-prog-text.c: how the tools read an event list (pmapi/utils/prog-text.c) against a made-up
 * pm_init catalog: short names, long names, ids, '-' and perf's raw codes (rNNN, found by the
 * "(raw: rNNN)" pmapid ends a PMU event's description with), and the errors that name what was
 * not found. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pmapi.h"
#include "prog-text.h"

static pm_events_t events[] = {
        { .event_id = 2, .short_name = "PM_PAGE_FLT", .long_name = "perf::PAGE-FAULTS",
          .description = "Page faults" },
        { .event_id = 120, .short_name = "PM_LD_CMPL", .long_name = "MEM_INST_RETIRED:ALL_LOADS",
          .description = "Loads completed (raw: r81d0)" },
        { .event_id = 1000, .short_name = "skl::L2_RQSTS:PF_MISS", .long_name = "skl::L2_RQSTS:PF_MISS",
          .description = "L2 requests: misses (raw: r3824)" },
};

static int maxevents[MAX_COUNTERS];
static pm_events_t *lists[MAX_COUNTERS];
static pm_info_t info = { .maxpmcs = 2, .maxevents = maxevents, .list_events = lists };

static int setup(void **state) {
        (void) state;
        for (int c = 0; c < 2; c++) {
                maxevents[c] = 3;
                lists[c] = events;
        }
        return 0;
}

static void test_names_ids_and_raw_codes(void **state) {
        char error[PROG_TEXT_ERROR_MAX];
        int ev[MAX_COUNTERS];

        (void) state;
        assert_int_equal(prog_text_parse_events(&info, "pm_page_flt,r3824", ev, error), 0);
        assert_int_equal(ev[0], 2);
        assert_int_equal(ev[1], 1000);
        assert_int_equal(ev[2], COUNT_NOTHING);
        assert_int_equal(prog_text_parse_events(&info, "R81D0,-", ev, error), 0);   /* any case */
        assert_int_equal(ev[0], 120);
        assert_int_equal(ev[1], COUNT_NOTHING);
        assert_int_equal(prog_text_parse_events(&info, "MEM_INST_RETIRED:ALL_LOADS,120", ev, error), 0);
        assert_int_equal(ev[0], 120);
        assert_int_equal(ev[1], 120);
        assert_ptr_equal(prog_text_event_by_name(&info, 0, "r81d0"), &events[1]);
        assert_null(prog_text_event_by_name(&info, 2, "r81d0"));       /* past maxpmcs */
}

/* A code no event has, a part of one, not hex, or a umask that does not exist: refused, named. */
static void test_unknown_codes_and_umasks_are_named(void **state) {
        static const char *const bad[] = { "r1234", "r81d", "r81d00", "rxyz", "r", "skl::L2_RQSTS:NO_SUCH_UMASK" };
        char error[PROG_TEXT_ERROR_MAX];
        int ev[MAX_COUNTERS];

        (void) state;
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                assert_int_equal(prog_text_parse_events(&info, bad[i], ev, error), -EINVAL);
                if (!strstr(error, bad[i]) || !strstr(error, "unknown event"))
                        fail_msg("%s: '%s'", bad[i], error);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_names_ids_and_raw_codes),
                cmocka_unit_test(test_unknown_codes_and_umasks_are_named),
        };
        return cmocka_run_group_tests(tests, setup, NULL);
}
