/* test-reply-mx.c: the multi-set shapes of libpmapi (pmapi/reply-mx.c). The library's checks of
 * a program of several sets before any bus call (pointer, initialization, set count and array,
 * slice, each set's events against the catalog); a program laid out as SetProgramMx sends it and
 * read back as GetProgramMx returns it, set for set; and data replies read into a malloc'd
 * pm_accu_mx_t array with the times of each set, or refused whole. Messages are built on an
 * unauthenticated bus on one end of a socket pair, which is enough to build and read them. The
 * installed catalog is process-global, so the test that expects "not initialized" runs first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-bus.h>
#include <unistd.h>
#include <cmocka.h>

#include "catalog.h"
#include "macro.h"
#include "pmapi.h"
#include "reply-mx.h"

#define EV_A 1
#define EV_B 2
#define EV_C 100
#define EV_UNKNOWN 4242

#define ENTRY(id, status, short_name, long_name, description) \
        { id, status, (char *) short_name, (char *) long_name, (char *) description }

static const CatalogEntry sent[] = {
        ENTRY(EV_A, PM_VERIFIED,   "PM_TASK_CLOCK", "perf::TASK-CLOCK",  "task clock"),
        ENTRY(EV_B, PM_VERIFIED,   "PM_PAGE_FLT",   "perf::PAGE-FAULTS", "page faults"),
        ENTRY(EV_C, PM_UNVERIFIED, "PM_CYC",        "perf::CYCLES",      "cycles"),
};

static sd_bus *bus;
static int peer_fd = -1;

static int setup_bus(void **state) {
        int fds[2];

        (void) state;
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
        assert_true(sd_bus_new(&bus) >= 0);
        assert_true(sd_bus_set_fd(bus, fds[0], fds[0]) >= 0);
        assert_true(sd_bus_start(bus) >= 0);
        peer_fd = fds[1];
        return 0;
}

static int teardown_bus(void **state) {
        (void) state;
        bus = sd_bus_close_unref(bus);          /* no flush: nobody answers the authentication */
        peer_fd = safe_close(peer_fd);
        return 0;
}

static void install_catalog(void) {
        Catalog *c = NULL;

        assert_int_equal(catalog_new("Test CPU", MAX_COUNTERS, sent, ELEMENTSOF(sent),
                                     PM_VERIFIED | PM_UNVERIFIED, &c), 0);
        catalog_install(c);
}

/* A message to fill as pmapid would, read from its start once sealed. */
static sd_bus_message *new_message(void) {
        sd_bus_message *m = NULL;

        assert_true(sd_bus_message_new_signal(bus, &m, "/a", "a.b", "C") >= 0);
        return m;
}

static void seal(sd_bus_message *m) {
        assert_true(sd_bus_message_seal(m, 1, 0) >= 0);
        assert_true(sd_bus_message_rewind(m, true) >= 0);
}

static void fill_events(pm_events_prog_t *sets, int n) {
        for (int k = 0; k < n; k++)
                for (int c = 0; c < MAX_COUNTERS; c++)
                        sets[k][c] = c == k % MAX_COUNTERS ? EV_A : c == 0 ? EV_B : COUNT_NOTHING;
}

static void test_nothing_is_sent_before_pm_init(void **state) {
        pm_events_prog_t sets[1];
        pm_prog_mx_t prog = { .mode.w = PM_USER, .slice_duration = 100, .nb_events_prog = 1,
                              .events_set = sets };
        pm_data_mx_t data = { .nb_accu_mx = 7, .accu_set = (pm_accu_mx_t *) sets };
        MxProgram p;

        (void) state;
        fill_events(sets, 1);
        assert_int_equal(mx_program_from_mx(&prog, &p), PM_ENOTINIT);
        assert_int_equal(begin_data_mx(&data), PM_ENOTINIT);
        /* Even then, nothing is left for the caller to free. */
        assert_null(data.accu_set);
        assert_int_equal(data.nb_accu_mx, 0);
        install_catalog();
}

static void test_library_checks_pointer_sets_and_slice_first(void **state) {
        pm_events_prog_t sets[PM_MX_MAX_SETS + 1];
        pm_prog_mx_t prog = { .mode.w = PM_USER, .slice_duration = 100, .events_set = sets };
        MxProgram p;

        (void) state;
        fill_events(sets, ELEMENTSOF(sets));
        assert_int_equal(mx_program_from_mx(NULL, &p), PM_EFAULT);
        assert_int_equal(mx_program_from_mm(NULL, &p), PM_EFAULT);
        assert_int_equal(begin_data_mx(NULL), PM_EFAULT);
        for (int n = -1; n <= PM_MX_MAX_SETS + 1; n++) {
                prog.nb_events_prog = n;
                assert_int_equal(mx_program_from_mx(&prog, &p),
                                 n >= 1 && n <= PM_MX_MAX_SETS ? 0 : PM_EMXSETS);
        }
        prog.nb_events_prog = 2;
        prog.events_set = NULL;
        assert_int_equal(mx_program_from_mx(&prog, &p), PM_EMXSETS);
        prog.events_set = sets;
        const struct { int slice; int r; } slices[] = {
                { 0, PM_EMXSLICE }, { PM_MX_SLICE_MIN - 1, PM_EMXSLICE }, { PM_MX_SLICE_MIN, 0 },
                { PM_MX_SLICE_MAX, 0 }, { PM_MX_SLICE_MAX + 1, PM_EMXSLICE }, { -100, PM_EMXSLICE },
        };
        for (size_t i = 0; i < ELEMENTSOF(slices); i++) {
                prog.slice_duration = slices[i].slice;
                assert_int_equal(mx_program_from_mx(&prog, &p), slices[i].r);
        }
}

static void test_every_set_is_checked_against_the_catalog(void **state) {
        pm_prog_t sets[3] = {
                { .mode.w = PM_USER, .events = { EV_A, EV_B, -1, -1, -1, -1, -1, -1 } },
                { .mode.w = PM_USER, .events = { EV_C, -1, -1, -1, -1, -1, -1, -1 } },
                { .mode.w = PM_USER, .events = { -1, -1, -1, -1, -1, -1, -1, EV_A } },
        };
        pm_prog_mm_t prog = { .slice_duration = 50, .nb_set_prog = 3, .prog_set = sets };
        MxProgram p;

        (void) state;
        assert_int_equal(mx_program_from_mm(&prog, &p), 0);
        sets[2].events[5] = EV_UNKNOWN;         /* the last set, a counter in the middle */
        assert_int_equal(mx_program_from_mm(&prog, &p), PM_EEVENT);
        prog.nb_set_prog = 2;                   /* a set past the count is not looked at */
        assert_int_equal(mx_program_from_mm(&prog, &p), 0);
}

static void test_mx_sends_its_one_mode_in_every_set(void **state) {
        pm_events_prog_t sets[3];
        pm_prog_mx_t prog = { .mode.w = PM_USER | PM_KERNEL | PM_COUNT, .slice_duration = 20,
                              .nb_events_prog = 3, .events_set = sets };
        MxProgram p;

        (void) state;
        fill_events(sets, 3);
        assert_int_equal(mx_program_from_mx(&prog, &p), 0);
        assert_false(p.multi_mode);
        assert_int_equal(p.slice_ms, 20);
        assert_int_equal(p.n_sets, 3);
        for (unsigned k = 0; k < PM_MX_MAX_SETS; k++) {
                assert_int_equal(p.sets[k].mode, k < 3 ? PM_USER | PM_KERNEL | PM_COUNT : 0);
                if (k < 3)
                        assert_memory_equal(p.sets[k].events, sets[k], sizeof(sets[k]));
        }
}

/* p as SetProgramMx sends it, read back as GetProgramMx's reply (which has the same shape). */
static void round_trip(const MxProgram *p, MxProgram *ret) {
        sd_bus_message *m = new_message();

        assert_true(sd_bus_message_append(m, MX_PROGRAM_TYPES, MX_PROGRAM_ARGS(p)) >= 0);
        seal(m);
        assert_string_equal(sd_bus_message_get_signature(m, true), "iba(iai)");
        assert_int_equal(reply_read_program_mx(m, ret), 0);
        assert_true(sd_bus_message_at_end(m, true) > 0);
        sd_bus_message_unref(m);
}

static void test_programs_travel_set_for_set(void **state) {
        (void) state;
        for (int n = 1; n <= PM_MX_MAX_SETS; n++) {
                pm_prog_t sets[PM_MX_MAX_SETS];
                pm_prog_mm_t prog = { .slice_duration = 10 * n, .nb_set_prog = n, .prog_set = sets };
                MxProgram sent_p, got;

                for (int k = 0; k < n; k++) {
                        sets[k] = (pm_prog_t) { .mode.w = PM_COUNT | (k % 2 ? PM_USER : PM_KERNEL) };
                        for (int c = 0; c < MAX_COUNTERS; c++)
                                sets[k].events[c] = (k + c) % 3 == 0 ? EV_C : (k + c) % 3 == 1 ? EV_A : -1;
                }
                assert_int_equal(mx_program_from_mm(&prog, &sent_p), 0);
                assert_true(sent_p.multi_mode);
                round_trip(&sent_p, &got);
                assert_int_equal(got.n_sets, n);
                assert_int_equal(got.slice_ms, 10 * n);
                assert_true(got.multi_mode);
                assert_memory_equal(got.sets, sent_p.sets, sizeof(got.sets));
        }
}

static void test_get_program_hands_over_malloced_sets(void **state) {
        MxProgram p = { .slice_ms = 250, .multi_mode = true, .n_sets = 2, .sets = {
                { PM_USER | PM_COUNT, { EV_A, -1, -1, -1, -1, -1, -1, EV_B } },
                { PM_KERNEL | PM_COUNT, { EV_C, EV_C, -1, -1, -1, -1, -1, -1 } },
        } };
        pm_prog_mx_t mx = {};
        pm_prog_mm_t mm = {};

        (void) state;
        assert_int_equal(mx_program_to_mx(&p, &mx), 0);
        assert_int_equal(mx.mode.w, PM_USER | PM_COUNT);        /* set 0's */
        assert_int_equal(mx.slice_duration, 250);
        assert_int_equal(mx.nb_events_prog, 2);
        assert_memory_equal(mx.events_set[1], p.sets[1].events, sizeof(mx.events_set[1]));
        free(mx.events_set);

        assert_int_equal(mx_program_to_mm(&p, &mm), 0);
        assert_int_equal(mm.slice_duration, 250);
        assert_int_equal(mm.nb_set_prog, 2);
        for (int k = 0; k < 2; k++) {
                assert_int_equal(mm.prog_set[k].mode.w, p.sets[k].mode);
                assert_memory_equal(mm.prog_set[k].events, p.sets[k].events, sizeof(mm.prog_set[k].events));
        }
        free(mm.prog_set);
}

static void test_bad_program_replies_are_refused(void **state) {
        int32_t seven[7] = { EV_A, -1, -1, -1, -1, -1, -1 };
        int32_t eight[8] = { EV_A, -1, -1, -1, -1, -1, -1, -1 };
        MxProgram got;
        sd_bus_message *m;

        (void) state;
        m = new_message();                      /* no set */
        assert_true(sd_bus_message_append(m, "iba(iai)", 100, 0, 0) >= 0);
        seal(m);
        assert_int_equal(reply_read_program_mx(m, &got), PM_EDAEMON);
        sd_bus_message_unref(m);

        m = new_message();                      /* a set of seven counters */
        assert_true(sd_bus_message_append(m, "ib", 100, 0) >= 0);
        assert_true(sd_bus_message_open_container(m, 'a', "(iai)") >= 0);
        assert_true(sd_bus_message_open_container(m, 'r', "iai") >= 0);
        assert_true(sd_bus_message_append(m, "i", PM_USER) >= 0);
        assert_true(sd_bus_message_append_array(m, 'i', seven, sizeof(seven)) >= 0);
        assert_true(sd_bus_message_close_container(m) >= 0);
        assert_true(sd_bus_message_close_container(m) >= 0);
        seal(m);
        assert_int_equal(reply_read_program_mx(m, &got), PM_EDAEMON);
        sd_bus_message_unref(m);

        m = new_message();                      /* one set more than any pmapid sends */
        assert_true(sd_bus_message_append(m, "ib", 100, 0) >= 0);
        assert_true(sd_bus_message_open_container(m, 'a', "(iai)") >= 0);
        for (int k = 0; k <= PM_MX_MAX_SETS; k++) {
                assert_true(sd_bus_message_open_container(m, 'r', "iai") >= 0);
                assert_true(sd_bus_message_append(m, "i", PM_USER) >= 0);
                assert_true(sd_bus_message_append_array(m, 'i', eight, sizeof(eight)) >= 0);
                assert_true(sd_bus_message_close_container(m) >= 0);
        }
        assert_true(sd_bus_message_close_container(m) >= 0);
        seal(m);
        assert_int_equal(reply_read_program_mx(m, &got), PM_EDAEMON);
        sd_bus_message_unref(m);
}

typedef struct DataSet {
        int64_t counts[MAX_COUNTERS];
        uint64_t enabled;
        uint64_t running;
        size_t n_counts;                        /* MAX_COUNTERS unless a test breaks the reply */
} DataSet;

/* A data reply: the sets, the time stamp, members and flags for a group, the rounds. */
static sd_bus_message *data_reply(const DataSet *sets, size_t n, bool group, uint32_t rounds) {
        sd_bus_message *m = new_message();

        assert_true(sd_bus_message_open_container(m, 'a', "(axtt)") >= 0);
        for (size_t k = 0; k < n; k++) {
                assert_true(sd_bus_message_open_container(m, 'r', "axtt") >= 0);
                assert_true(sd_bus_message_append_array(m, 'x', sets[k].counts,
                                                        sets[k].n_counts * sizeof(int64_t)) >= 0);
                assert_true(sd_bus_message_append(m, "tt", sets[k].enabled, sets[k].running) >= 0);
                assert_true(sd_bus_message_close_container(m) >= 0);
        }
        assert_true(sd_bus_message_close_container(m) >= 0);
        assert_true(sd_bus_message_append(m, "t", UINT64_C(0x123456789)) >= 0);
        if (group)
                assert_true(sd_bus_message_append(m, "iu", 5, 0x1 | 0x8) >= 0);
        assert_true(sd_bus_message_append(m, "u", rounds) >= 0);
        seal(m);
        return m;
}

static DataSet data_set(int64_t base, uint64_t enabled, uint64_t running) {
        DataSet s = { .enabled = enabled, .running = running, .n_counts = MAX_COUNTERS };

        for (int c = 0; c < MAX_COUNTERS; c++)
                s.counts[c] = base + c;
        return s;
}

static void test_data_sets_keep_raw_counts_and_their_own_times(void **state) {
        /* Two sets that fit the PMU counted the whole time; the third only a third of it. */
        const DataSet sets[3] = {
                data_set(1000, 3000000000ULL, 3000000000ULL),
                data_set(INT64_C(1) << 40, 3000000000ULL, 3000000000ULL),
                data_set(7, 3000000000ULL, 1000000000ULL),
        };
        pm_data_mx_t data = { .ginfo.members = 99, .ginfo.flags.w = 99 };
        timebasestruct_t time = {};
        sd_bus_message *m = data_reply(sets, 3, /* group= */ false, 12);

        (void) state;
        assert_int_equal(reply_read_data_mx(m, /* group= */ false, &data, &time), 0);
        sd_bus_message_unref(m);
        assert_int_equal(data.nb_accu_mx, 3);
        assert_int_equal(data.nb_mx_round, 12);
        assert_int_equal(data.ginfo.members, 0);                /* not a group read */
        assert_int_equal(data.ginfo.flags.w, 0);
        assert_int_equal(time.flag, PM_TB_MONOTONIC_NS);
        assert_int_equal(PM_TB_TO_NS(time), 0x123456789ULL);
        for (int k = 0; k < 3; k++) {
                const pm_accu_mx_t *a = &data.accu_set[k];

                assert_memory_equal(a->accu_data, sets[k].counts, sizeof(a->accu_data));     /* not scaled */
                assert_int_equal(a->accu_time.flag, PM_TB_MONOTONIC_NS);
                assert_int_equal(PM_TB_TO_NS(a->accu_time), sets[k].running);
                assert_int_equal(a->accu_purr.flag, PM_TB_MONOTONIC_NS);
                assert_int_equal(PM_TB_TO_NS(a->accu_purr), sets[k].enabled);
                assert_int_equal(a->accu_spurr.flag, 0);
                assert_int_equal(PM_TB_TO_NS(a->accu_spurr), 0);
        }
        free(data.accu_set);
}

static void test_group_data_carry_members_and_flags(void **state) {
        const DataSet sets[1] = { data_set(1, 10, 10) };
        pm_data_mx_t data = {};
        sd_bus_message *m = data_reply(sets, 1, /* group= */ true, UINT32_MAX);

        (void) state;
        assert_int_equal(reply_read_data_mx(m, /* group= */ true, &data, NULL), 0);
        sd_bus_message_unref(m);
        assert_int_equal(data.nb_accu_mx, 1);
        assert_int_equal(data.ginfo.members, 5);
        assert_true(data.ginfo.flags.b.consistent);
        assert_true(data.ginfo.flags.b.partial);
        assert_int_equal(data.nb_mx_round, INT32_MAX);          /* clamped, never negative */
        free(data.accu_set);
}

/* A reply that does not have the shape leaves nothing to free, and the time as it was. */
static void assert_refused(const DataSet *sets, size_t n, bool group_reply, bool group_read) {
        pm_data_mx_t data = { .nb_accu_mx = 3, .accu_set = (pm_accu_mx_t *) &data };
        timebasestruct_t time = { .flag = 77 };
        sd_bus_message *m = data_reply(sets, n, group_reply, 1);

        assert_int_equal(reply_read_data_mx(m, group_read, &data, &time), PM_EDAEMON);
        sd_bus_message_unref(m);
        assert_null(data.accu_set);
        assert_int_equal(data.nb_accu_mx, 0);
        assert_int_equal(time.flag, 77);
}

static void test_bad_data_replies_are_refused_whole(void **state) {
        DataSet sets[PM_MX_MAX_SETS + 1];

        (void) state;
        for (size_t k = 0; k < ELEMENTSOF(sets); k++)
                sets[k] = data_set((int64_t) k, 2, 1);
        assert_refused(sets, 0, false, false);                  /* no set */
        assert_refused(sets, PM_MX_MAX_SETS + 1, false, false); /* more than any pmapid sends */
        assert_refused(sets, 2, false, true);                   /* no members and flags */
        assert_refused(sets, 2, true, false);                   /* members where rounds should be */
        sets[1].n_counts = MAX_COUNTERS - 1;
        assert_refused(sets, 2, false, false);                  /* a set of seven counters */
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_nothing_is_sent_before_pm_init),
                cmocka_unit_test(test_library_checks_pointer_sets_and_slice_first),
                cmocka_unit_test(test_every_set_is_checked_against_the_catalog),
                cmocka_unit_test(test_mx_sends_its_one_mode_in_every_set),
                cmocka_unit_test(test_programs_travel_set_for_set),
                cmocka_unit_test(test_get_program_hands_over_malloced_sets),
                cmocka_unit_test(test_bad_program_replies_are_refused),
                cmocka_unit_test(test_data_sets_keep_raw_counts_and_their_own_times),
                cmocka_unit_test(test_group_data_carry_members_and_flags),
                cmocka_unit_test(test_bad_data_replies_are_refused_whole),
        };

        return cmocka_run_group_tests(tests, setup_bus, teardown_bus);
}
