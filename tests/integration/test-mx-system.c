/* test-mx-system.c: the system scope of multiplexing (pm_set_program_mx(3)) against a real pmapid,
 * and the bad input of every _mx and _mm call. Two sets on the caller's process tree, as root and as
 * nobody: a child that existed before the program touches known pages, counted exactly in each set;
 * each set's CPUs add up to its total; root counting every process with two sets. Then each kind of
 * bad program gets its own code (the library's checks and pmapid's), pm_error explains each new
 * code, and pmapid keeps serving. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "check.h"
#include "mx-read.h"
#include "pmapi.h"
#include "workload.h"

#define N_PAGES 3000

static BusFixture fixture;
static MxEvents ev;

/* A child of the caller that touches fresh pages when told (a count over a pipe) and answers when
 * it has. It is forked, and has touched a page and answered once, before the program is set: its
 * later rounds fault on nothing but the pages it is told to touch. */
typedef struct Toucher {
        pid_t pid;
        int cmd, done;                  /* our ends */
} Toucher;

static int toucher_start(Toucher *t) {
        int cmd[2], done[2];
        long n;

        CHECK(pipe2(cmd, O_CLOEXEC) == 0 && pipe2(done, O_CLOEXEC) == 0);
        t->pid = fork();
        CHECK(t->pid >= 0);
        if (t->pid == 0) {
                close(cmd[1]);
                close(done[0]);
                while (read(cmd[0], &n, sizeof(n)) == sizeof(n)) {
                        char ok = touch_fresh_pages((size_t) n) == 0 ? 'y' : 'n';
                        if (write(done[1], &ok, 1) != 1)
                                break;
                }
                _exit(0);
        }
        close(cmd[0]);
        close(done[1]);
        t->cmd = cmd[1];
        t->done = done[0];
        return 0;
}

static int toucher_touch(Toucher *t, long n) {
        char ok = 'n';

        CHECK(write(t->cmd, &n, sizeof(n)) == sizeof(n) && read(t->done, &ok, 1) == 1);
        return ok == 'y' ? 0 : 1;
}

static void toucher_stop(Toucher *t) {
        close(t->cmd);
        close(t->done);
        (void) waitpid(t->pid, NULL, 0);
}

/* Each set's CPUs (read with pm_get_data_lcpu_mx) add up to its total, every counter; CPU 0 reads
 * the same by either numbering. Call it stopped, so that nothing moves in between. */
static int check_cpus_add_up(const MxRead *total) {
        MxRead sum = { .n_sets = total->n_sets }, c, first;
        int n_read = 0;

        for (int cpu = 0; cpu < (int) sysconf(_SC_NPROCESSORS_CONF); cpu++) {
                pm_data_mx_t d = {};
                int r = pm_get_data_lcpu_mx(cpu, &d);

                if (r == PM_ECPU)
                        continue;
                CHECK(mx_take(r, &d, &c) == 0);
                CHECK(c.n_sets == total->n_sets);
                for (int s = 0; s < c.n_sets; s++)
                        for (int k = 0; k < MAX_COUNTERS; k++)
                                sum.sets[s].accu_data[k] += c.sets[s].accu_data[k];
                if (n_read++ == 0)
                        first = c;
        }
        CHECK(n_read > 0);
        CHECK(mx_check_sum(total, MX_PARTS(&sum)) == 0);
        READ_MX(c, pm_get_data_cpu_mx(0, &d_));
        CHECK(mx_check_sum(&c, MX_PARTS(&first)) == 0);
        return 0;
}

/* The caller's tree, two sets: the toucher's pages exactly in each, between two reads of the same
 * kind (the caller, in the tree too, makes the same calls each time: once warm, they fault on no
 * new page). */
static int proctree_body(void *arg) {
        pm_events_prog_t sets[MX_SETS];
        pm_prog_mx_t prog, got = {};
        MxRead a, b, total, r;
        Toucher t;

        (void) arg;
        /* The switch to nobody made this process undumpable, and its child inherits that: pmapid
         * would leave the child out of the tree, as one its owner may not trace. A process that
         * exec'd as nobody is dumpable. */
        CHECK(prctl(PR_SET_DUMPABLE, 1) == 0);
        CHECK(toucher_start(&t) == 0);
        CHECK(toucher_touch(&t, 1) == 0);
        mx_two_sets(&prog, sets, &ev, PM_USER | PM_COUNT);
        if (getuid() != 0)
                CHECK_RC(pm_set_program_mx(&prog), PM_ESYSROOT);
        prog.mode.w |= PM_PROCTREE;
        CHECK_RC(pm_set_program_mx(&prog), 0);
        /* Rounds of the window's calls, into the same variables, until the heap stops growing: the
         * caller is in the tree, and a page it writes for the first time is a fault there. sd-bus
         * calloc()s each message, and glibc serves calloc from the heap, never from its per-thread
         * cache, where it parks up to 7 freed chunks of a size first; a and b may each lie on a
         * page of the stack nothing wrote yet. */
        for (int round = 0; round < 10; round++) {
                READ_MX(a, pm_get_data_mx(&d_));
                CHECK(toucher_touch(&t, 1) == 0);
                READ_MX(b, pm_get_data_mx(&d_));
        }
        READ_MX(a, pm_get_data_mx(&d_));
        CHECK(toucher_touch(&t, N_PAGES) == 0);
        READ_MX(b, pm_get_data_mx(&d_));
        printf("# proctree (uid %d): +%lld and +%lld page faults in the two sets for %d pages\n", (int) getuid(),
               b.sets[0].accu_data[0] - a.sets[0].accu_data[0], b.sets[1].accu_data[0] - a.sets[1].accu_data[0],
               N_PAGES);
        fflush(stdout);                                         /* a child: it ends with _exit() */
        CHECK(b.n_sets == MX_SETS);
        CHECK(mx_check_added(&a, &b, 0, N_PAGES) == 0);
        CHECK(b.sets[0].accu_data[1] - a.sets[0].accu_data[1] == N_PAGES);
        CHECK_RC(pm_stop(), 0);
        READ_MX(total, pm_get_data_mx(&d_));
        CHECK(check_cpus_add_up(&total) == 0);
        for (int s = 0; s < MX_SETS; s++)
                CHECK(mx_ns(total.sets[s].accu_time) > 0 &&
                      mx_ns(total.sets[s].accu_time) <= mx_ns(total.sets[s].accu_purr));
        CHECK_RC(pm_get_program_mx(&got), 0);
        CHECK(got.slice_duration == MX_SLICE_MS && got.nb_events_prog == MX_SETS && got.events_set);
        CHECK(got.mode.w == (PM_USER | PM_PROCTREE));
        CHECK(memcmp(got.events_set, sets, sizeof(sets)) == 0);
        free(got.events_set);
        /* Stopped: the tree's pages are in no set; a reset zeroes every set. */
        CHECK(toucher_touch(&t, 500) == 0);
        READ_MX(r, pm_get_data_mx(&d_));
        CHECK(mx_check_sum(&r, MX_PARTS(&total)) == 0);
        CHECK_RC(pm_reset_data(), 0);
        READ_MX(r, pm_get_data_mx(&d_));
        for (int s = 0; s < MX_SETS; s++)
                for (int k = 0; k < MAX_COUNTERS; k++)
                        CHECK(r.sets[s].accu_data[k] == 0);
        CHECK_RC(pm_delete_program(), 0);
        CHECK_RC(pm_get_data_mx(&(pm_data_mx_t) {}), PM_ENOCONTEXT);
        toucher_stop(&t);
        return 0;
}

static void test_proctree_two_sets_count_the_tree_exactly(void **state) {
        (void) state;
        assert_int_equal(run_as(0, 0, proctree_body, NULL), 0);
        assert_int_equal(run_as_nobody(proctree_body, NULL), 0);
}

/* Root, every process, two sets: each set sees at least this process's pages, and its CPUs add up. */
static int every_process_body(void *arg) {
        pm_events_prog_t sets[MX_SETS];
        pm_prog_mx_t prog;
        MxRead a, b;

        (void) arg;
        mx_two_sets(&prog, sets, &ev, PM_USER | PM_COUNT);
        CHECK_RC(pm_set_program_mx(&prog), 0);
        READ_MX(a, pm_get_data_mx(&d_));
        CHECK(touch_fresh_pages(N_PAGES) == 0);
        CHECK_RC(pm_stop(), 0);
        READ_MX(b, pm_get_data_mx(&d_));
        CHECK(b.n_sets == MX_SETS);
        for (int s = 0; s < MX_SETS; s++)
                CHECK(b.sets[s].accu_data[0] - a.sets[s].accu_data[0] >= N_PAGES);
        CHECK(check_cpus_add_up(&b) == 0);
        CHECK_RC(pm_delete_program(), 0);
        return 0;
}

static void test_root_counts_every_process_in_each_set(void **state) {
        (void) state;
        assert_int_equal(every_process_body(NULL), 0);
}

/* Sets of one event each (page faults); prog uses the first n. */
static void page_fault_sets(pm_prog_mx_t *prog, pm_events_prog_t sets[PM_MX_MAX_SETS + 1], int n) {
        for (int s = 0; s <= PM_MX_MAX_SETS; s++) {
                for (int c = 0; c < MAX_COUNTERS; c++)
                        sets[s][c] = COUNT_NOTHING;
                sets[s][0] = ev.page_flt;
        }
        *prog = (pm_prog_mx_t) { .mode.w = PM_USER, .slice_duration = MX_SLICE_MS, .nb_events_prog = n,
                                 .events_set = sets };
}

/* pmapid answers a plain program after the refusals, and none of them left a context. */
static int still_serving(void) {
        pm_prog_t prog;

        CHECK(wait_for_context_count(0, 10000) == 0);
        program_one(&prog, PM_USER | PM_COUNT, ev.page_flt);
        CHECK_RC(pm_set_program_mythread(&prog), 0);
        CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

/* Each bad program gets its own code, from the library or from pmapid, in the thread, group and
 * system scopes alike; a good program at either end of the ranges is taken. */
static int bad_programs_body(void *arg) {
        static const int bad_slices[] = { 9, 30001, 0, -1 }, good_slices[] = { 10, 30000 };
        pm_events_prog_t sets[PM_MX_MAX_SETS + 1];
        pm_prog_t mm_sets[MX_SETS], one;
        pm_prog_mm_t mm = { .slice_duration = MX_SLICE_MS, .nb_set_prog = MX_SETS, .prog_set = mm_sets };
        pm_prog_mx_t prog;
        timebasestruct_t tb;
        pm_data_mx_t d = {};

        (void) arg;
        page_fault_sets(&prog, sets, MX_SETS);
        for (size_t i = 0; i < sizeof(bad_slices) / sizeof(bad_slices[0]); i++) {
                prog.slice_duration = bad_slices[i];
                CHECK_RC(pm_set_program_mythread_mx(&prog), PM_EMXSLICE);
                CHECK_RC(pm_set_program_mygroup_mx(&prog), PM_EMXSLICE);
                prog.mode.w |= PM_PROCTREE;
                CHECK_RC(pm_set_program_mx(&prog), PM_EMXSLICE);
                prog.mode.w &= ~PM_PROCTREE;
        }
        for (size_t i = 0; i < sizeof(good_slices) / sizeof(good_slices[0]); i++) {
                prog.slice_duration = good_slices[i];
                CHECK_RC(pm_set_program_mythread_mx(&prog), 0);
                CHECK_RC(pm_delete_program_mythread(), 0);
        }
        prog.slice_duration = MX_SLICE_MS;

        /* The library refuses 0, negative and more than PM_MX_MAX_SETS sets; pmapid more than its
         * MaxSets (8 by default). */
        for (int n = -1; n <= PM_MX_MAX_SETS + 1; n++) {
                int expected = n >= 1 && n <= 8 ? 0 : PM_EMXSETS;

                page_fault_sets(&prog, sets, n);
                CHECK_RC(pm_set_program_mythread_mx(&prog), expected);
                if (expected == 0)
                        CHECK_RC(pm_delete_program_mythread(), 0);
        }
        page_fault_sets(&prog, sets, MX_SETS);
        prog.events_set = NULL;
        CHECK_RC(pm_set_program_mythread_mx(&prog), PM_EMXSETS);
        CHECK_RC(pm_set_program_thread_mx(getpid(), gettid(), &prog), PM_EMXSETS);
        mm.prog_set = NULL;
        CHECK_RC(pm_set_program_mythread_mm(&mm), PM_EMXSETS);
        mm.prog_set = mm_sets;
        mm.nb_set_prog = 0;
        CHECK_RC(pm_set_program_mythread_mm(&mm), PM_EMXSETS);
        mm.nb_set_prog = MX_SETS;
        CHECK(still_serving() == 0);

        /* Missing pointers. */
        CHECK_RC(pm_set_program_mythread_mx(NULL), PM_EFAULT);
        CHECK_RC(pm_set_program_mythread_mm(NULL), PM_EFAULT);
        CHECK_RC(pm_get_program_mythread_mx(NULL), PM_EFAULT);
        CHECK_RC(pm_get_program_mythread_mm(NULL), PM_EFAULT);
        CHECK_RC(pm_get_data_mythread_mx(NULL), PM_EFAULT);
        CHECK_RC(pm_get_tdata_mythread_mx(NULL, &tb), PM_EFAULT);
        CHECK_RC(pm_set_program_mygroup_mx(NULL), PM_EFAULT);
        CHECK_RC(pm_get_data_mygroup_mx(NULL), PM_EFAULT);
        CHECK_RC(pm_set_program_thread_mx(getpid(), gettid(), NULL), PM_EFAULT);
        CHECK_RC(pm_get_data_thread_mx(getpid(), gettid(), NULL), PM_EFAULT);
        CHECK_RC(pm_get_data_group_mx(getpid(), gettid(), NULL), PM_EFAULT);
        CHECK_RC(pm_get_data_pthread_mx(getpid(), gettid(), 0, NULL), PM_EFAULT);
        CHECK_RC(pm_set_program_mx(NULL), PM_EFAULT);
        CHECK_RC(pm_set_program_mm(NULL), PM_EFAULT);
        CHECK_RC(pm_get_program_mx(NULL), PM_EFAULT);
        CHECK_RC(pm_get_data_mx(NULL), PM_EFAULT);
        CHECK_RC(pm_get_data_cpu_mx(0, NULL), PM_EFAULT);
        CHECK_RC(pm_get_data_lcpu_mx(0, NULL), PM_EFAULT);

        /* _mm sets that disagree on the count or the proctree bit; other bits may differ (test-mx.c). */
        for (int s = 0; s < MX_SETS; s++)
                program_one(&mm_sets[s], PM_USER, ev.page_flt);
        mm_sets[0].mode.w |= PM_COUNT;
        CHECK_RC(pm_set_program_mythread_mm(&mm), PM_EMXMODE);
        CHECK_RC(pm_set_program_mygroup_mm(&mm), PM_EMXMODE);
        CHECK_RC(pm_set_program_thread_mm(getpid(), gettid(), &mm), PM_EMXMODE);
        mm_sets[0].mode.w = PM_USER | PM_PROCTREE;
        CHECK_RC(pm_set_program_mythread_mm(&mm), PM_EMXMODE);
        mm_sets[1].mode.w = PM_USER | PM_PROCTREE | PM_COUNT;
        CHECK_RC(pm_set_program_mm(&mm), PM_EMXMODE);           /* both in the tree, one counting */
        CHECK(still_serving() == 0);

        /* Each set is checked as a program of its own. */
        page_fault_sets(&prog, sets, MX_SETS);
        sets[1][3] = 987654;
        CHECK_RC(pm_set_program_mythread_mx(&prog), PM_EEVENT);
        CHECK_RC(pm_set_program_mygroup_mx(&prog), PM_EEVENT);
        sets[1][3] = COUNT_NOTHING;
        sets[1][0] = COUNT_NOTHING;
        CHECK_RC(pm_set_program_mythread_mx(&prog), PM_ENOEVENTS);
        prog.mode.w |= PM_PROCTREE;
        CHECK_RC(pm_set_program_mx(&prog), PM_ENOEVENTS);
        for (int s = 0; s < MX_SETS; s++)
                program_one(&mm_sets[s], PM_USER, ev.page_flt);
        mm_sets[1].mode.w |= 0x40;                              /* a spare bit */
        CHECK_RC(pm_set_program_mythread_mm(&mm), PM_EMODE);
        CHECK(still_serving() == 0);

        /* A thread with a context, of either kind, gets no second one. */
        page_fault_sets(&prog, sets, MX_SETS);
        program_one(&one, PM_USER, ev.page_flt);
        for (int s = 0; s < MX_SETS; s++)
                program_one(&mm_sets[s], PM_USER, ev.page_flt);
        CHECK_RC(pm_set_program_mythread_mx(&prog), 0);
        CHECK_RC(pm_set_program_mythread_mx(&prog), PM_EEXIST);
        CHECK_RC(pm_set_program_mythread_mm(&mm), PM_EEXIST);
        CHECK_RC(pm_set_program_mythread(&one), PM_EEXIST);
        CHECK_RC(pm_set_program_mygroup_mx(&prog), PM_EEXIST);
        CHECK_RC(pm_delete_program_mythread(), 0);
        CHECK_RC(pm_set_program_mythread(&one), 0);
        CHECK_RC(pm_set_program_mythread_mx(&prog), PM_EEXIST);
        CHECK_RC(pm_set_program_thread_mx(getpid(), gettid(), &prog), PM_EEXIST);
        CHECK_RC(pm_delete_program_mythread(), 0);
        CHECK_RC(pm_get_data_mythread_mx(&d), PM_ENOCONTEXT);
        CHECK(still_serving() == 0);
        return 0;
}

static void test_bad_programs_get_their_own_codes(void **state) {
        (void) state;
        assert_int_equal(bad_programs_body(NULL), 0);
        assert_int_equal(run_as_nobody(bad_programs_body, NULL), 0);
}

/* pm_error's text for each new code: there, distinct, and naming what to fix. */
static void test_new_codes_are_explained(void **state) {
        const int codes[] = { PM_EMXSLICE, PM_EMXSETS, PM_EMXMODE };
        const char *unknown = pm_strerror(NULL, 9999);

        (void) state;
        for (size_t i = 0; i < 3; i++) {
                const char *text = pm_strerror(NULL, codes[i]);

                printf("# %d: %s\n", codes[i], text);
                assert_non_null(text);
                assert_true(strlen(text) > 0);
                assert_string_not_equal(text, unknown);
                for (size_t j = 0; j < i; j++)
                        assert_string_not_equal(text, pm_strerror(NULL, codes[j]));
        }
        assert_non_null(strstr(pm_strerror(NULL, PM_EMXSETS), "NULL"));
}

/* [Limits] MaxSets= sets the number of sets pmapid takes, up to PM_MX_MAX_SETS: the library
 * leaves that check to pmapid. Runs last: it restarts pmapid. */
static void test_max_sets_comes_from_the_configuration(void **state) {
        pm_events_prog_t sets[PM_MX_MAX_SETS + 1];
        pm_prog_mx_t prog;

        (void) state;
        assert_int_equal(bus_fixture_restart_with_config(&fixture, "[Limits]\nMaxSets=3\n"), 0);
        page_fault_sets(&prog, sets, 4);
        assert_int_equal(pm_set_program_mythread_mx(&prog), PM_EMXSETS);
        prog.nb_events_prog = 3;
        assert_int_equal(pm_set_program_mythread_mx(&prog), 0);
        assert_int_equal(pm_delete_program_mythread(), 0);
        assert_int_equal(bus_fixture_restart_with_config(&fixture, "[Limits]\nMaxSets=16\n"), 0);
        prog.nb_events_prog = PM_MX_MAX_SETS;
        assert_int_equal(pm_set_program_mythread_mx(&prog), 0);
        assert_int_equal(pm_delete_program_mythread(), 0);
        prog.nb_events_prog = PM_MX_MAX_SETS + 1;
        assert_int_equal(pm_set_program_mythread_mx(&prog), PM_EMXSETS);
}

static int setup(void **state) {
        (void) state;
        if (bus_fixture_start(&fixture, NULL) != 0)
                return -1;
        return mx_events_find(&ev);
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_proctree_two_sets_count_the_tree_exactly),
                cmocka_unit_test(test_root_counts_every_process_in_each_set),
                cmocka_unit_test(test_bad_programs_get_their_own_codes),
                cmocka_unit_test(test_new_codes_are_explained),
                cmocka_unit_test(test_max_sets_comes_from_the_configuration),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
