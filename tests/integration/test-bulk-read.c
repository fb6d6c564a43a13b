/* test-bulk-read.c: the Manager's ReadContexts and ReadGroups (what pmdapmapi reads with), against
 * the real pmapid: each row equals what GetData and GetGroupData give for it; pages follow tids and
 * ids, each page resuming after the last row the one before gave (never after a context or group the
 * caller was not shown, such as root's newest); as root every context, and as nobody a context
 * is a row exactly when GetData would answer nobody (its own threads, not root's; not root's
 * kernel-mode counts of events it may not see in kernel mode, at paranoid 2 and 3); hostile pages
 * (max 0, after the last id, a wrong signature) get empty pages or an error, and pmapid serves on;
 * a caller refused every row is stopped after 1,024 checks per call and told where to resume. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "bus-names.h"
#include "check.h"
#include "macro.h"
#include "paranoid.h"
#include "pmapi.h"
#include "target.h"
#include "thread-park.h"
#include "workload.h"

#define NOBODY 65534
#define MAX_ROWS 64

static BusFixture fixture;
static int page_flt, minor_flt, hidden_event;

typedef struct Row {
        int32_t pid, tid;               /* a group's row: its id in tid, the pid it was made in */
        uint32_t owner_uid, group;
        int32_t members;
        uint32_t flags;
        int counting;
        int32_t events[MAX_COUNTERS];
        int64_t data[MAX_COUNTERS];
        uint64_t enabled, running;
} Row;

/* One page: its rows into rows[*n...], more and resume_after into *ret_more and *ret_resume. 0, or
 * the bus error's negative errno. */
static int read_page(sd_bus *bus, bool groups, uint32_t after, uint32_t max, Row *rows, size_t *n, int *ret_more,
                     uint32_t *ret_resume) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *row = groups ? "uiuiubaiaxtt" : "iiubuaiaxtt";
        char array[32];
        int r;

        (void) snprintf(array, sizeof(array), "(%s)", row);
        r = sd_bus_call_method(bus, PMAPI_SERVICE, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE,
                               groups ? "ReadGroups" : "ReadContexts", NULL, &reply, "uu", after, max);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(reply, 'a', array);
        while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'r', row)) > 0) {
                Row *w = &rows[(*n)++];
                const void *p;
                size_t size;

                if (*n > MAX_ROWS)
                        return -E2BIG;
                *w = (Row) {};
                if (groups) {
                        uint32_t id;
                        r = sd_bus_message_read(reply, "uiuiub", &id, &w->pid, &w->owner_uid, &w->members, &w->flags,
                                                &w->counting);
                        w->tid = (int32_t) id;
                } else
                        r = sd_bus_message_read(reply, "iiubu", &w->pid, &w->tid, &w->owner_uid, &w->counting,
                                                &w->group);
                if (r >= 0)
                        r = sd_bus_message_read_array(reply, 'i', &p, &size);
                if (r >= 0 && size == sizeof(w->events))
                        memcpy(w->events, p, size);
                if (r >= 0)
                        r = sd_bus_message_read_array(reply, 'x', &p, &size);
                if (r >= 0 && size == sizeof(w->data))
                        memcpy(w->data, p, size);
                if (r >= 0)
                        r = sd_bus_message_read(reply, "tt", &w->enabled, &w->running);
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        if (r >= 0)
                r = sd_bus_message_read(reply, "bu", ret_more, ret_resume);
        return r < 0 ? r : 0;
}

/* Every page, max rows at a time, each after the last one's resume_after. Returns the number of
 * rows, or -1 (also when a page does not move on, or rows come out of order). */
static int read_all(bool groups, uint32_t max, Row *rows) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        uint32_t after = 0, resume;
        size_t n = 0;
        int more = 1;

        if (sd_bus_open_system(&bus) < 0)
                return -1;
        while (more) {
                size_t before = n;
                if (read_page(bus, groups, after, max, rows, &n, &more, &resume) < 0 || n - before > max)
                        return -1;
                if (n > before && ((uint32_t) rows[before].tid <= after || (uint32_t) rows[n - 1].tid > resume))
                        return -1;
                if (more && resume <= after)
                        return -1;
                after = resume;
        }
        return (int) n;
}

static const Row *find(const Row *rows, int n, int32_t tid) {
        for (int i = 0; i < n; i++)
                if (rows[i].tid == tid)
                        return &rows[i];
        return NULL;
}

static void program(pm_prog_t *prog, int mode) {
        program_one(prog, mode, page_flt);
        prog->events[1] = minor_flt;
}

static void test_rows_equal_getdata_page_by_page(void **state) {
        Row rows[MAX_ROWS];
        pm_prog_t prog;
        pm_data_t d;
        Target t;
        int n;

        (void) state;
        assert_int_equal(target_start(&t, &TARGET_ROOT, 3), 0);
        program(&prog, PM_USER | PM_COUNT);
        for (int i = 0; i < 3; i++) {
                assert_int_equal(pm_set_program_thread(t.pid, t.tids[i], &prog), 0);
                assert_int_equal(target_touch(&t, i, 100 * (size_t) (i + 1)), 0);
                assert_int_equal(pm_stop_thread(t.pid, t.tids[i]), 0);         /* frozen for the compare */
        }
        /* One row a page: three pages, in tid order, each after the last. */
        n = read_all(false, 1, rows);
        assert_int_equal(n, 3);
        for (int i = 0; i < 3; i++) {
                const Row *r = find(rows, n, t.tids[i]);
                assert_non_null(r);
                assert_true(i == 0 || rows[i].tid > rows[i - 1].tid);
                assert_int_equal(pm_get_data_thread(t.pid, t.tids[i], &d), 0);
                assert_in_range(d.accu[0], 100 * (i + 1), 100 * (i + 1) + 2);
                assert_memory_equal(r->data, d.accu, sizeof(d.accu));
                assert_int_equal(r->pid, t.pid);
                assert_int_equal(r->owner_uid, 0);
                assert_int_equal(r->counting, 0);
                assert_int_equal(r->group, 0);
                assert_int_equal(r->events[0], page_flt);
                assert_int_equal(r->events[1], minor_flt);
                assert_int_equal(r->events[2], COUNT_NOTHING);
        }
        target_kill(&t);
        assert_int_equal(wait_for_context_count(0, 5000), 0);
}

static void test_groups_equal_getgroupdata(void **state) {
        Row rows[MAX_ROWS], threads[MAX_ROWS];
        pm_prog_t prog;
        pm_data_t d;
        Target t;
        const Row *g;

        (void) state;
        assert_int_equal(target_start(&t, &TARGET_ROOT, 2), 0);
        program(&prog, PM_USER | PM_COUNT | PM_PROCESS);
        assert_int_equal(pm_set_program_group(t.pid, t.tids[0], &prog), 0);
        assert_int_equal(target_touch(&t, 0, 300), 0);
        assert_int_equal(target_touch(&t, 1, 200), 0);
        assert_int_equal(pm_reset_data_thread(t.pid, t.tids[1]), 0);  /* its 200 leave the group */
        assert_int_equal(read_all(true, 1024, rows), 1);
        assert_int_equal(read_all(false, 1024, threads), 2);
        g = &rows[0];
        assert_int_equal(pm_get_data_group(t.pid, t.tids[1], &d), 0);
        assert_in_range(d.accu[0], 300, 303);
        assert_memory_equal(g->data, d.accu, sizeof(d.accu));
        assert_int_equal(g->members, d.ginfo.members);
        assert_int_equal(g->flags, d.ginfo.flags.w);
        assert_int_equal(g->pid, t.pid);
        assert_int_equal(g->counting, 1);
        assert_int_equal(g->events[0], page_flt);
        /* The members' rows name the group. */
        assert_int_equal(threads[0].group, (uint32_t) g->tid);
        assert_int_equal(threads[1].group, (uint32_t) g->tid);
        target_kill(&t);
        assert_int_equal(wait_for_context_count(0, 5000), 0);
}

/* As nobody: every context root's ListContexts shows is a row exactly when GetData answers. */
typedef struct NobodyCase {
        pid_t mine, mine_kernel, theirs;        /* tids: nobody's user mode, nobody's hidden kernel mode, root's */
        pid_t mine_pid, theirs_pid;
        uint32_t mine_group, theirs_group;
} NobodyCase;

static int nobody_body(void *arg) {
        const NobodyCase *k = arg;
        Row rows[MAX_ROWS], groups[MAX_ROWS];
        pm_info_t info;
        pm_data_t d;
        int n, n_groups;

        CHECK_RC(pm_init(PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT, &info), 0);
        n = read_all(false, 1, rows);
        n_groups = read_all(true, 1, groups);
        CHECK(n >= 0 && n_groups >= 0);
        CHECK_RC(pm_get_data_thread(k->mine_pid, k->mine, &d), 0);
        CHECK(find(rows, n, k->mine) != NULL);
        CHECK(memcmp(find(rows, n, k->mine)->data, d.accu, sizeof(d.accu)) == 0);
        CHECK(pm_get_data_thread(k->theirs_pid, k->theirs, &d) != 0);
        CHECK(find(rows, n, k->theirs) == NULL);
        if (k->mine_kernel > 0) {
                CHECK_RC(pm_get_data_thread(k->mine_pid, k->mine_kernel, &d), PM_EKERNELMODE);
                CHECK(find(rows, n, k->mine_kernel) == NULL);
        }
        CHECK(n == 2);          /* its two threads' user-mode contexts: mine, and its process group's member */
        /* Groups the same: nobody's process group, not root's. */
        CHECK(find(groups, n_groups, (int32_t) k->mine_group) != NULL);
        CHECK(find(groups, n_groups, (int32_t) k->theirs_group) == NULL);
        CHECK(n_groups == 1);
        return 0;
}

static void test_nobody_reads_what_getdata_answers_it(void **state) {
        TargetIdentity id = TARGET_UID(NOBODY);
        Row rows[MAX_ROWS];
        NobodyCase k = {};
        Target mine, theirs, mine_group, theirs_group;
        pm_prog_t prog;
        int n;

        (void) state;
        assert_int_equal(paranoid_set_for_test(2), 0);
        assert_int_equal(target_start(&mine, &id, 2), 0);
        assert_int_equal(target_start(&theirs, &TARGET_ROOT, 1), 0);
        assert_int_equal(target_start(&mine_group, &id, 1), 0);
        assert_int_equal(target_start(&theirs_group, &TARGET_ROOT, 1), 0);
        program(&prog, PM_USER | PM_COUNT);
        /* Root makes every context: owners differ from the threads' users. */
        assert_int_equal(pm_set_program_thread(mine.pid, mine.tids[0], &prog), 0);
        assert_int_equal(pm_set_program_thread(theirs.pid, theirs.tids[0], &prog), 0);
        if (hidden_event > 0) {
                program_one(&prog, PM_USER | PM_KERNEL | PM_COUNT, hidden_event);
                assert_int_equal(pm_set_program_thread(mine.pid, mine.tids[1], &prog), 0);
                k.mine_kernel = mine.tids[1];
        } else
                fprintf(stderr, "# no event here hides its kernel-mode counts from owners: that part not run\n");
        program(&prog, PM_USER | PM_COUNT | PM_PROCESS);
        assert_int_equal(pm_set_program_group(mine_group.pid, mine_group.tids[0], &prog), 0);
        assert_int_equal(pm_set_program_group(theirs_group.pid, theirs_group.tids[0], &prog), 0);
        assert_int_equal(target_touch(&mine, 0, 50), 0);

        /* Root reads every one. */
        n = read_all(false, 2, rows);
        assert_int_equal(n, hidden_event > 0 ? 5 : 4);
        assert_int_equal(read_all(true, 1, rows), 2);
        k.mine = mine.tids[0];
        k.mine_pid = mine.pid;
        k.theirs = theirs.tids[0];
        k.theirs_pid = theirs.pid;
        n = read_all(true, 1, rows);
        for (int i = 0; i < n; i++)
                *(rows[i].pid == mine_group.pid ? &k.mine_group : &k.theirs_group) = (uint32_t) rows[i].tid;
        assert_int_equal(run_as_nobody(nobody_body, &k), 0);
        /* Stock Debian's paranoid 3 changes no read here: the contexts exist, and GetData's rule
         * for reading them is the same (a kernel-mode grant matters for setting, not reading). */
        assert_int_equal(paranoid_set_for_test(3), 0);
        assert_int_equal(run_as_nobody(nobody_body, &k), 0);

        paranoid_restore_for_test();
        target_kill(&mine);
        target_kill(&theirs);
        target_kill(&mine_group);
        target_kill(&theirs_group);
        assert_int_equal(wait_for_context_count(0, 5000), 0);
}

static void test_hostile_pages(void **state) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        Row rows[MAX_ROWS];
        pm_prog_t prog;
        uint32_t resume = 0;
        size_t n = 0;
        int more = -1;
        Target t;

        (void) state;
        assert_int_equal(target_start(&t, &TARGET_ROOT, 1), 0);
        program(&prog, PM_USER | PM_COUNT);
        assert_int_equal(pm_set_program_thread(t.pid, t.tids[0], &prog), 0);
        assert_int_equal(sd_bus_open_system(&bus), 0);
        /* max 0 would read nothing and never move on: refused. */
        assert_int_equal(read_page(bus, false, 0, 0, rows, &n, &more, &resume), -EINVAL);
        assert_int_equal(read_page(bus, true, 0, 0, rows, &n, &more, &resume), -EINVAL);
        /* After the last tid: nothing, and nothing more. */
        assert_int_equal(read_page(bus, false, UINT32_MAX, 1024, rows, &n, &more, &resume), 0);
        assert_int_equal(n, 0);
        assert_false(more);
        assert_int_equal(resume, UINT32_MAX);
        assert_int_equal(read_page(bus, true, UINT32_MAX, UINT32_MAX, rows, &n, &more, &resume), 0);
        assert_false(more);
        /* A huge max is 1,024: one row here, and it is where the next page would resume. */
        assert_int_equal(read_page(bus, false, 0, UINT32_MAX, rows, &n, &more, &resume), 0);
        assert_int_equal(n, 1);
        assert_false(more);
        assert_int_equal(resume, (uint32_t) t.tids[0]);
        /* A wrong signature: an error, and pmapid serves on. */
        assert_true(sd_bus_call_method(bus, PMAPI_SERVICE, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE,
                                       "ReadContexts", &error, NULL, "s", "x") < 0);
        assert_true(sd_bus_error_has_name(&error, SD_BUS_ERROR_INVALID_ARGS));
        assert_int_equal(sd_bus_call_method(bus, PMAPI_SERVICE, PMAPI_MANAGER_PATH, "org.freedesktop.DBus.Peer",
                                            "Ping", NULL, NULL, NULL), 1);
        target_kill(&t);
        assert_int_equal(wait_for_context_count(0, 5000), 0);
}

/* The resume point names nothing the caller was not shown: nobody's page ends at its own context,
 * never at root's newer one; a page without rows resumes where it was asked to, and so does a
 * groups page where root's group is the only one. */
typedef struct ResumeCase {
        uint32_t mine, theirs, theirs_group;
} ResumeCase;

static int resume_body(void *arg) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        const ResumeCase *k = arg;
        Row rows[MAX_ROWS];
        uint32_t resume = 0;
        size_t n = 0;
        int more = -1;

        CHECK(sd_bus_open_system(&bus) >= 0);
        CHECK(read_page(bus, false, 0, 1024, rows, &n, &more, &resume) == 0);
        CHECK(n == 1 && (uint32_t) rows[0].tid == k->mine && !more);
        if (resume != k->mine)
                fprintf(stderr, "# ReadContexts resumes after %u: root's context is %u, nobody's %u\n",
                        resume, k->theirs, k->mine);
        CHECK(resume == k->mine && resume != k->theirs);
        n = 0;
        CHECK(read_page(bus, false, k->mine, 1024, rows, &n, &more, &resume) == 0);
        CHECK(n == 0 && !more && resume == k->mine);
        n = 0;
        CHECK(read_page(bus, true, 0, 1024, rows, &n, &more, &resume) == 0);
        if (resume != 0)
                fprintf(stderr, "# ReadGroups resumes after %u: root's group is %u\n", resume, k->theirs_group);
        CHECK(n == 0 && !more && resume == 0);
        return 0;
}

static void test_resume_names_only_rows_shown(void **state) {
        TargetIdentity id = TARGET_UID(NOBODY);
        Row rows[MAX_ROWS];
        Target mine, theirs, theirs_group;
        ResumeCase k = {};
        pm_prog_t prog;
        uint32_t resume = 0;
        size_t n = 0;
        int more = -1;

        (void) state;
        assert_int_equal(target_start(&mine, &id, 1), 0);
        assert_int_equal(target_start(&theirs, &TARGET_ROOT, 1), 0);
        assert_int_equal(target_start(&theirs_group, &TARGET_ROOT, 1), 0);
        program(&prog, PM_USER | PM_COUNT);
        assert_int_equal(pm_set_program_thread(mine.pid, mine.tids[0], &prog), 0);
        assert_int_equal(pm_set_program_thread(theirs.pid, theirs.tids[0], &prog), 0);
        program(&prog, PM_USER | PM_COUNT | PM_PROCESS);
        assert_int_equal(pm_set_program_group(theirs_group.pid, theirs_group.tids[0], &prog), 0);
        k.mine = (uint32_t) mine.tids[0];
        k.theirs = (uint32_t) (theirs.tids[0] > theirs_group.tids[0] ? theirs.tids[0] : theirs_group.tids[0]);
        {
                _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;

                /* Root is shown every row: its page ends at the newest. */
                assert_int_equal(sd_bus_open_system(&bus), 0);
                assert_int_equal(read_page(bus, false, 0, 1024, rows, &n, &more, &resume), 0);
                assert_int_equal(n, 3);
                assert_int_equal(resume, (uint32_t) rows[2].tid);
                n = 0;
                assert_int_equal(read_page(bus, true, 0, 1024, rows, &n, &more, &resume), 0);
                assert_int_equal(n, 1);
                k.theirs_group = (uint32_t) rows[0].tid;
                assert_int_equal(resume, k.theirs_group);
        }
        if (k.theirs < k.mine)
                fprintf(stderr, "# tids wrapped: root's contexts are older than nobody's here\n");
        for (int paranoid = 2; paranoid <= 3; paranoid++) {
                assert_int_equal(paranoid_set_for_test(paranoid), 0);
                assert_int_equal(run_as_nobody(resume_body, &k), 0);
        }
        paranoid_restore_for_test();
        target_kill(&mine);
        target_kill(&theirs);
        target_kill(&theirs_group);
        assert_int_equal(wait_for_context_count(0, 5000), 0);
}

/* Root's 1,100 contexts, every one refused to nobody: a call stops after 1,024 checks with no row of
 * root's and says where to resume, so nobody holds pmapid no longer than a full page would. Its own
 * thread (it inherited a context at fork, first party here) may be a row of any page: with
 * pid_max 32768 its tid can wrap below the parked threads'. */
#define N_REFUSED 1100
static int refused_pages_body(void *arg) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        Row rows[MAX_ROWS];
        uint32_t resume = 0, after = 0;
        int more = 1, pages = 0;
        size_t n = 0;

        (void) arg;
        CHECK(sd_bus_open_system(&bus) >= 0);
        CHECK(read_page(bus, false, 0, 1024, rows, &n, &more, &resume) == 0);
        CHECK(n <= 1 && more && resume > 0);    /* 1,101 contexts: not all judged in one call */
        /* Paging on reaches the end, and every row is this process's own thread, as GetData would
         * say. */
        for (after = resume; more && pages < 10; pages++, after = resume) {
                CHECK(read_page(bus, false, after, 1024, rows, &n, &more, &resume) == 0);
                CHECK(resume > after || !more);         /* the last page may show nothing */
        }
        CHECK(!more && n == 1);
        CHECK(rows[0].pid == getpid() && rows[0].tid == getpid());
        return 0;
}

static void test_refused_rows_cost_no_more_than_a_page(void **state) {
        ThreadPark park;
        pm_prog_t prog;

        (void) state;
        program(&prog, PM_USER | PM_COUNT);
        prog.events[1] = COUNT_NOTHING;
        assert_int_equal(pm_set_program_mythread(&prog), 0);
        assert_int_equal(thread_park_start(&park, N_REFUSED - 1), 0);
        assert_int_equal(wait_for_context_count(N_REFUSED, 10000), 0);

        assert_int_equal(run_as_nobody(refused_pages_body, NULL), 0);

        thread_park_release(&park);
        assert_int_equal(pm_delete_program_mythread(), 0);
        assert_int_equal(wait_for_context_count(0, 10000), 0);
}

static int setup(void **state) {
        pm_info_t info;

        (void) state;
        if (bus_fixture_start(&fixture, NULL) != 0 || pm_init(PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT, &info) != 0)
                return -1;
        page_flt = find_event_id(&info, "PM_PAGE_FLT");
        minor_flt = find_event_id(&info, "PM_MINOR_FLT");
        /* Counts no getrusage or /proc shows, so its kernel mode is not the owner's to see. */
        hidden_event = find_event_id(&info, "perf::PERF_COUNT_SW_CGROUP_SWITCHES");
        if (hidden_event < 0)
                hidden_event = find_event_id(&info, "PM_CYC");
        return page_flt > 0 && minor_flt > 0 ? 0 : -1;
}

static int teardown(void **state) {
        (void) state;
        paranoid_restore_for_test();
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rows_equal_getdata_page_by_page),
                cmocka_unit_test(test_groups_equal_getgroupdata),
                cmocka_unit_test(test_nobody_reads_what_getdata_answers_it),
                cmocka_unit_test(test_hostile_pages),
                cmocka_unit_test(test_resume_names_only_rows_shown),
                cmocka_unit_test(test_refused_rows_cost_no_more_than_a_page),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
