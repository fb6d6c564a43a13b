/* test-aix-client-code.c: what the pm_* code of real AIX clients assumes beyond its call sequences
 * (those are test-aix-clients.c's): group ids that are indices from 0, AIX's processor-type
 * constants and pm_get_procindex(), the number a client retries on when a new thread inherited a
 * context, POWER event ids written into the source, a mode word built from a private copy of AIX's
 * big-endian pm_mode_t, and string literals handed to pm_error. Each replay runs in a process of
 * its own as root and as uid 65534 against the real pmapid, with exact page counts; the file is
 * compiled with -Wwrite-strings, as a C++ client's literals are const. The code is ours; each
 * replay names the client file whose behaviour it follows. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "aix-client.h"
#include "bus-fixture.h"
#include "check.h"
#include "paranoid.h"
#include "pmapi.h"
#include "workload.h"

#define ALL_STATUSES (PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT)
#define PAGES 500

static BusFixture fixture;

/* The short name of a group's event on counter c, looked up in list_events[c] as Jikes RVM's
 * hpm_print_group and PAPI's native table do; NULL for an idle counter. */
static const char *group_event_name(const pm_info_t *info, const pm_groups_t *g, int c) {
        if (c >= info->maxpmcs || g->events[c] == COUNT_NOTHING)
                return NULL;
        for (int k = 0; k < info->maxevents[c]; k++)
                if (info->list_events[c][k].event_id == g->events[c])
                        return info->list_events[c][k].short_name;
        return "?";
}

/* The counts a group's counters hold after PAGES fresh pages, judged by the names the client
 * prints them under: page faults are the pages, exactly; the task clock is nanoseconds, far more
 * than PAGES. A label from another group than the one counting fails one or the other. */
static int check_labelled_counts(const pm_info_t *info, const pm_groups_t *g, const pm_data_t *d, int *ret_judged) {
        for (int c = 0; c < info->maxpmcs; c++) {
                const char *name = group_event_name(info, g, c);

                if (!name)
                        continue;
                if (strcmp(name, "PM_PAGE_FLT") == 0 || strcmp(name, "PM_MINOR_FLT") == 0) {
                        CHECK_RANGE(d->accu[c], PAGES, PAGES + 2);
                        (*ret_judged)++;
                } else if (strcmp(name, "PM_TASK_CLOCK") == 0) {
                        CHECK(d->accu[c] > 10 * PAGES);
                        (*ret_judged)++;
                } else if (strcmp(name, "PM_MAJOR_FLT") == 0) {
                        CHECK(d->accu[c] == 0);
                }
        }
        return 0;
}

/* Jikes RVM's hpm library (JikesRVM, rvm/src/vm/HPM/powerPC/hpm.c, hpm_set_program_mythread with a
 * group, and hpm_print_group): -X:hpm:group=N sets is_group and events[0] = N, then prints each
 * counter under the name of event_groups[N].events[c]. The group that counts must be the one it
 * names: group N is event_groups[N], for every N below maxgroups. */
static int jikes_group_body(void *arg) {
        pm_groups_info_t groups;
        pm_info_t info;
        pm_prog_t prog, got;
        pm_data_t d;
        int judged = 0;

        (void) arg;
        CHECK(touch_fresh_pages(1) == 0);
        CHECK_RC(pm_init(ALL_STATUSES | PM_GET_GROUPS, &info, &groups), 0);
        CHECK(groups.maxgroups >= 2);
        for (int n = 0; n < groups.maxgroups; n++) {
                const pm_groups_t *g = &groups.event_groups[n];

                client_program(&prog, PM_USER, n, COUNT_NOTHING);
                prog.mode.b.is_group = 1;
                CHECK_RC(pm_set_program_mythread(&prog), 0);
                CHECK_RC(pm_start_mythread(), 0);
                CHECK(touch_fresh_pages(PAGES) == 0);
                CHECK_RC(pm_stop_mythread(), 0);
                CHECK_RC(pm_get_data_mythread(&d), 0);
                fprintf(stderr, "# group %d (%s): %s = %lld\n", n, g->short_name, group_event_name(&info, g, 0),
                        d.accu[0]);
                CHECK(check_labelled_counts(&info, g, &d, &judged) == 0);
                CHECK_RC(pm_get_program_mythread(&got), 0);
                CHECK(got.mode.b.is_group && got.events[0] == n);
                CHECK_RC(pm_delete_program_mythread(), 0);
        }
        CHECK(judged >= 3);             /* pm_faults' two and pm_sched's clock, at least */
        return 0;
}

/* IPM's HPM module (src/ipm_hpm.c, ipm_hpm_start): on POWER6 is_group with events[0] = 186 +
 * eventset, and the report names event_groups[186 + eventset] without a bound check (past
 * maxgroups that reads out of bounds); a port checks the bound, counts the groups this machine has
 * by their index, and gets a clean PM_EGROUPS for 186. On POWER3 it writes POWER's per-counter ids
 * straight into events[] ({5, 3, 2, 1, ...}: PM_IC_MISS, PM_CYC, ...): none is an id of this
 * catalog, so each is PM_EEVENT, never the count of another event. */
static int ipm_groups_body(void *arg) {
        static const int power3[] = { 5, 3, 2, 1, 7, 6, 4, 0 };
        pm_groups_info_t groups;
        pm_info2_t info;
        pm_info_t info1;
        pm_prog_t prog;
        pm_data_t d;
        int judged = 0;

        (void) arg;
        CHECK(touch_fresh_pages(1) == 0);
        CHECK_RC(pm_initialize(ALL_STATUSES | PM_GET_GROUPS, &info, &groups, PM_CURRENT), 0);
        CHECK_RC(pm_init(ALL_STATUSES | PM_GET_GROUPS, &info1, &groups), 0);   /* names, pm_init flavour */
        for (int eventset = 0; eventset < groups.maxgroups; eventset++) {
                CHECK(groups.event_groups[eventset].group_id == eventset);
                client_program(&prog, PM_USER | PM_PROCTREE, eventset, COUNT_NOTHING);
                prog.mode.b.is_group = 1;
                CHECK_RC(pm_set_program_mythread(&prog), 0);
                CHECK_RC(pm_start_mythread(), 0);
                CHECK_RC(pm_reset_data_mythread(), 0);
                CHECK(touch_fresh_pages(PAGES) == 0);
                CHECK_RC(pm_get_data_mythread(&d), 0);
                CHECK(check_labelled_counts(&info1, &groups.event_groups[eventset], &d, &judged) == 0);
                CHECK_RC(pm_stop_mythread(), 0);
                CHECK_RC(pm_delete_program_mythread(), 0);
        }
        CHECK(judged >= 3);
        CHECK(186 >= groups.maxgroups);                         /* the port's bound check */
        client_program(&prog, PM_USER | PM_PROCTREE, 186, COUNT_NOTHING);
        prog.mode.b.is_group = 1;
        CHECK_RC(pm_set_program_mythread(&prog), PM_EGROUPS);

        memset(&prog, 0, sizeof(prog));
        prog.mode.b.user = 1;
        memcpy(prog.events, power3, sizeof(prog.events));
        CHECK_RC(pm_set_program_mythread(&prog), PM_EEVENT);
        for (size_t i = 0; i < sizeof(power3) / sizeof(power3[0]); i++) {
                client_program(&prog, PM_USER, power3[i], COUNT_NOTHING);
                CHECK_RC(pm_set_program_mythread(&prog), PM_EEVENT);
        }
        CHECK_RC(pm_get_program_mythread(&prog), PM_ENOCONTEXT);       /* nothing was set */
        return 0;
}

/* PAPI's AIX component (icl-utk-edu/papi, src/aix.c): built with _POWER6 it calls
 * pm_initialize(PM_VERIFIED|PM_UNVERIFIED|PM_CAVEAT|PM_GET_GROUPS, ..., PM_POWER6), the type itself
 * rather than PM_CURRENT so that a second call initializes too; _aix_init_component then switches
 * over pm_get_procindex() (PM_POWER5, PM_POWER5_II, PM_POWER6, PM_PowerPC970, PM_POWER7) and says
 * "not supported" in its default branch. aix_ppc64_setup_gps keeps a map indexed by group_id (below
 * MAX_GROUPS); the event set runs as is_group with the lowest group that holds its events.
 * _aix_start: set; on 13 delete and set again; then start. Linux answers an inherited context with
 * 59 (AIX 7's number), so a thread created while its creator counts fails PAPI's start, unless the
 * process sets PMAPI_EEXIST=13. */
#define PAPI_MAX_GROUPS 256

typedef struct PapiThread {
        pm_prog_t *prog;
        int position;
        long long counted;
        int rc;
} PapiThread;

/* A PAPI thread: _aix_start, a read of PAGES fresh pages after a reset, _aix_stop. */
static void *papi_thread(void *arg) {
        PapiThread *p = arg;
        pm_data_t d;

        p->rc = client_papi_start(p->prog);
        if (p->rc != 0)
                return NULL;
        if (pm_reset_data_mythread() != 0 || touch_fresh_pages(PAGES) != 0 || pm_get_data_mythread(&d) != 0) {
                p->rc = -1;
                return NULL;
        }
        p->counted = d.accu[p->position];
        p->rc = client_papi_stop();
        return NULL;
}

static int papi_component_body(void *arg) {
        int group_map[PAPI_MAX_GROUPS][MAX_COUNTERS];
        pm_groups_info_t pmgroups;
        pm_info2_t pminfo;
        int page_flt = -1, group = -1, position = -1, procidx;
        pm_prog_t prog;
        pm_data_t d;
        PapiThread p;
        pthread_t t;

        (void) arg;
        CHECK(touch_fresh_pages(1) == 0);
        CHECK_RC(pm_initialize(ALL_STATUSES | PM_GET_GROUPS, &pminfo, &pmgroups, PM_POWER6), PM_EPROCTYPE);
        CHECK_RC(pm_initialize(ALL_STATUSES | PM_GET_GROUPS, &pminfo, &pmgroups, PM_POWER7), PM_EPROCTYPE);
        procidx = pm_get_procindex();
        switch (procidx) {
        case PM_POWER5:
        case PM_POWER5_II:
        case PM_POWER6:
        case PM_PowerPC970:
        case PM_POWER7:
                return 20;                                      /* no POWER here */
        default:
                break;                                          /* "%s is not supported!" */
        }
        CHECK(procidx == PM_LINUX_PERF && (procidx < 0 || procidx > PM_MAXPROCTYPE));
        CHECK_RC(pm_initialize(ALL_STATUSES | PM_GET_GROUPS, &pminfo, &pmgroups, procidx), 0);
        CHECK_RC(pm_initialize(ALL_STATUSES | PM_GET_GROUPS, &pminfo, &pmgroups, procidx), 0);

        /* The native table and the group map, as aix_ppc64_setup_native_table and _setup_gps build
         * them; then do_counter_allocation's choice: the lowest group holding PM_PAGE_FLT. */
        page_flt = client_event2_id(&pminfo, 0, "PM_PAGE_FLT");
        CHECK(page_flt > 0);
        for (int gnum = 0; gnum < pmgroups.maxgroups; gnum++) {
                int id = pmgroups.event_groups[gnum].group_id;

                CHECK(id >= 0 && id < PAPI_MAX_GROUPS);          /* "group number trying to go past MAX GROUPS" */
                for (int c = 0; c < MAX_COUNTERS; c++)
                        group_map[id][c] = pmgroups.event_groups[gnum].events[c];
        }
        for (int id = 0; id < pmgroups.maxgroups && group < 0; id++)
                for (int c = 0; c < pminfo.maxpmcs; c++)
                        if (group_map[id][c] == page_flt) {
                                group = id;
                                position = c;
                        }
        CHECK(group == 0 && position == 0);                     /* pm_faults: every machine's first */

        client_program(&prog, PM_USER, group, COUNT_NOTHING);   /* _aix_init_control_state */
        prog.mode.b.is_group = 1;
        CHECK_RC(client_papi_start(&prog), 0);
        CHECK_RC(pm_reset_data_mythread(), 0);
        CHECK(touch_fresh_pages(PAGES) == 0);
        CHECK_RC(pm_get_data_mythread(&d), 0);                  /* _aix_read */
        CHECK_RANGE(d.accu[position], PAGES, PAGES + 2);

        /* Threaded PAPI, the creator counting: 59 by default, which PAPI does not retry on. */
        p = (PapiThread) { .prog = &prog, .position = position };
        CHECK(pthread_create(&t, NULL, papi_thread, &p) == 0);
        CHECK(pthread_join(t, NULL) == 0);
        CHECK(p.rc == PM_EEXIST);
        /* With PMAPI_EEXIST=13 the same thread retries, replaces what it inherited, and counts. */
        CHECK(setenv("PMAPI_EEXIST", "13", 1) == 0);
        p = (PapiThread) { .prog = &prog, .position = position };
        CHECK(pthread_create(&t, NULL, papi_thread, &p) == 0);
        CHECK(pthread_join(t, NULL) == 0);
        CHECK(p.rc == 0);
        CHECK_RANGE(p.counted, PAGES, PAGES + 2);
        CHECK(strstr(pm_strerror(NULL, 13), "already") != NULL);
        CHECK(unsetenv("PMAPI_EEXIST") == 0);
        CHECK_RC(client_papi_stop(), 0);                               /* _aix_stop */
        return 0;
}

/* Eclipse OpenJ9's profiler (runtime/compiler/p/runtime/PPCHWProfilerAIX.cpp) declares its own
 * copy of pm_mode_t in AIX's field order (AIX allocates bit-fields from the most significant bit):
 * compiled little-endian its user, is_group, runlatch, nointerrupt and no_inherit bits make
 * 0x24001480, where <pmapi.h>'s pm_mode_t puts them at AIX's values. That word is refused as built
 * for another layout (PM_EMODELAYOUT), not as a threshold or an event it does not name; a word
 * byte-swapped on its way is the same. With <pmapi.h>'s type the same program counts. */
typedef union {
        int w;
        struct {
                unsigned threshold   : 6;
                unsigned thresh_res  : 1;
                unsigned runlatch    : 1;
                unsigned hypervisor  : 1;
                unsigned thresh_hres : 1;
                unsigned nointerrupt : 1;
                unsigned wpar_all    : 1;
                unsigned no_inherit  : 1;
                unsigned spare       : 13;
                unsigned is_group    : 1;
                unsigned process     : 1;
                unsigned kernel      : 1;
                unsigned user        : 1;
                unsigned count       : 1;
                unsigned proctree    : 1;
        } b;
} aix_order_mode_t;

typedef struct {
        aix_order_mode_t mode;
        int events[MAX_COUNTERS];
        long reserved;
} aix_order_prog_t;

static int openj9_mode_body(void *arg) {
        const char *where = "TR_PPCHWProfiler: pm_set_program_mythread";   /* a literal: const */
        pm_groups_info_t groups;
        pm_info2_t info;
        aix_order_prog_t foreign;
        pm_prog_t prog;
        pm_data_t d;

        (void) arg;
        CHECK(touch_fresh_pages(1) == 0);
        CHECK_RC(pm_initialize(ALL_STATUSES | PM_GET_GROUPS, &info, &groups, PM_CURRENT), 0);
        memset(&foreign, 0, sizeof(foreign));
        foreign.mode.b.user = 1;
        foreign.mode.b.runlatch = 1;
        foreign.mode.b.nointerrupt = 1;
        foreign.mode.b.no_inherit = 1;
        foreign.mode.b.is_group = 1;
        for (int c = 0; c < MAX_COUNTERS; c++)
                foreign.events[c] = COUNT_NOTHING;
        foreign.events[0] = 0;
        memcpy(&prog, &foreign, sizeof(prog));                  /* what dlsym'd calls receive */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        CHECK(prog.mode.w == 0x24001480);
        CHECK_RC(pm_set_program_mythread(&prog), PM_EMODELAYOUT);
        CHECK(strstr(pm_strerror(where, PM_EMODELAYOUT), "layout") != NULL);
        pm_error(where, PM_EMODELAYOUT);                        /* to the test's log */
        prog.mode.w = (int) __builtin_bswap32(PM_USER | PM_COUNT);
        CHECK_RC(pm_set_program_mythread(&prog), PM_EMODELAYOUT);
        CHECK_RC(pm_get_program_mythread(&prog), PM_ENOCONTEXT);       /* nothing was set */
#endif
        client_program(&prog, 0, 0, COUNT_NOTHING);             /* <pmapi.h>'s layout */
        prog.mode.b.user = 1;
        prog.mode.b.runlatch = 1;
        prog.mode.b.nointerrupt = 1;
        prog.mode.b.no_inherit = 1;
        prog.mode.b.is_group = 1;
        CHECK(prog.mode.w == (PM_USER | 0x20 | 0x1000000 | 0x200000 | PM_NO_INHERIT));
        CHECK_RC(pm_set_program_mythread(&prog), 0);
        CHECK_RC(pm_start_mythread(), 0);
        CHECK(touch_fresh_pages(PAGES) == 0);
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(pm_get_data_mythread(&d), 0);
        CHECK_RANGE(d.accu[0], PAGES, PAGES + 2);               /* group 0 leads with PM_PAGE_FLT */
        CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

CLIENT_TEST(test_jikes_rvm_group_run_is_labelled_with_the_group_that_counts, jikes_group_body)
CLIENT_TEST(test_ipm_counts_groups_by_index_and_power_ids_are_refused, ipm_groups_body)
CLIENT_TEST(test_papi_aix_component_builds_initializes_and_retries_on_13, papi_component_body)
CLIENT_TEST(test_openj9_big_endian_mode_copy_is_named_as_a_layout_error, openj9_mode_body)

/* kernel.perf_event_paranoid at 3, as stock Debian sets it (restored after, even on failure:
 * paranoid.h). Root runs the four as at 2. Debian's 3 refuses perf to every unprivileged user, and
 * pmapid's policy follows it: nobody's programs are PM_EPERM, cleanly, while what the library
 * judges before asking pmapid (the processor type, POWER ids, a foreign mode word) reads the same. */
static int all_bodies(void *arg) {
        int (*const bodies[])(void *) = { jikes_group_body, ipm_groups_body, papi_component_body, openj9_mode_body };

        for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++)
                CHECK_RC(bodies[i](arg), 0);
        return 0;
}

static int refused_at_3_body(void *arg) {
        pm_groups_info_t groups;
        pm_info2_t info;
        pm_prog_t prog;

        (void) arg;
        CHECK_RC(pm_initialize(ALL_STATUSES | PM_GET_GROUPS, &info, &groups, PM_POWER6), PM_EPROCTYPE);
        CHECK_RC(pm_initialize(ALL_STATUSES | PM_GET_GROUPS, &info, &groups, pm_get_procindex()), 0);
        CHECK(groups.maxgroups >= 2 && groups.event_groups[1].group_id == 1);
        client_program(&prog, PM_USER, 0, COUNT_NOTHING);
        prog.mode.b.is_group = 1;
        CHECK_RC(pm_set_program_mythread(&prog), PM_EPERM);
        client_program(&prog, PM_USER, 5, 3);                   /* IPM's POWER3 ids */
        CHECK_RC(pm_set_program_mythread(&prog), PM_EEVENT);
        client_program(&prog, 0x24001480, 0, COUNT_NOTHING);    /* OpenJ9's word */
        CHECK_RC(pm_set_program_mythread(&prog), PM_EMODELAYOUT);
        return 0;
}

static void test_every_client_at_paranoid_3(void **state) {
        (void) state;
        assert_int_equal(paranoid_set_for_test(3), 0);
        assert_int_equal(run_as(0, 0, all_bodies, NULL), 0);
        assert_int_equal(run_as_nobody(refused_at_3_body, NULL), 0);
        paranoid_restore_for_test();
        assert_int_equal(wait_for_context_count(0, 10000), 0);
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
                cmocka_unit_test(test_jikes_rvm_group_run_is_labelled_with_the_group_that_counts),
                cmocka_unit_test(test_ipm_counts_groups_by_index_and_power_ids_are_refused),
                cmocka_unit_test(test_papi_aix_component_builds_initializes_and_retries_on_13),
                cmocka_unit_test(test_openj9_big_endian_mode_copy_is_named_as_a_layout_error),
                cmocka_unit_test(test_every_client_at_paranoid_3),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
