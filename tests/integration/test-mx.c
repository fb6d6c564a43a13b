/* test-mx.c: multiplexing (_mx) and multi-mode (_mm) contexts of threads and groups against a real
 * pmapid, as root and as nobody, with exact page-fault counts in every set: two sets of software
 * events (which always fit, so each counts all the time: running == enabled); what get_program_mx
 * and the plain calls report; start, stop, reset and delete acting on every set; new threads and
 * group members inheriting every set; the third-party forms on a child process; a user-mode and a
 * kernel-mode set of one event, and perf_event_paranoid's verdict; a context that survives pmapid's
 * re-execution. The system scope and the bad input are test-mx-system.c's. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "check.h"
#include "mx-read.h"
#include "paranoid.h"
#include "pmapi.h"
#include "stepper.h"
#include "target.h"
#include "workload.h"

#define N_PAGES 2000
#define N_SETS MX_SETS
#define SLICE_MS MX_SLICE_MS
#define SPIN_NS 600000000LL             /* 600 ms of CPU: three rounds of two 100 ms slices */
#define NOBODY 65534

static BusFixture fixture;
static MxEvents ev;

static void two_sets(pm_prog_mx_t *prog, pm_events_prog_t sets[N_SETS], int mode) {
        mx_two_sets(prog, sets, &ev, mode);
}

static long long clock_ns(clockid_t id) {
        struct timespec ts;

        clock_gettime(id, &ts);
        return (long long) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void spin_cpu(long long spin_ns) {
        long long end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + spin_ns;

        while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
                ;
}

/* The calling thread's context counts pages fresh pages and spin_ns of CPU, from its counts at
 * zero, between a start and a stop; ret gets the read. The library's calls in that window (Start's
 * reply, Stop's call) fault on no page once warm_calls() ran. */
static int counted_round(size_t pages, long long spin_ns, MxRead *ret) {
        CHECK_RC(pm_reset_data_mythread(), 0);
        CHECK_RC(pm_start_mythread(), 0);
        CHECK(touch_fresh_pages(pages) == 0);
        spin_cpu(spin_ns);
        CHECK_RC(pm_stop_mythread(), 0);
        READ_MX(*ret, pm_get_data_mythread_mx(&d_));
        return 0;
}

/* Rounds of the same calls until the heap stops growing: sd-bus calloc()s each message, and glibc
 * serves calloc from the heap, never from its per-thread cache, where it parks up to 7 freed chunks
 * of a size first; until then a call may extend the heap onto a page never written (a fault). The
 * first round also faults the stack and this thread's pages that the fork of run_as_nobody shares
 * (see LIBRARY_FAULTS in test-inheritance.c). */
static int warm_calls(void) {
        MxRead r;

        for (int round = 0; round < 4; round++)
                CHECK(counted_round(1, 0, &r) == 0);
        return 0;
}

/* Two sets on the calling thread: each counts every page, raw, with its time; the estimate from
 * the times is the count; the rounds follow from the time enabled. */
static int mythread_counts_body(void *arg) {
        pm_events_prog_t sets[N_SETS];
        pm_prog_mx_t prog;
        MxRead r;

        (void) arg;
        two_sets(&prog, sets, PM_USER);
        CHECK_RC(pm_set_program_mythread_mx(&prog), 0);
        CHECK(warm_calls() == 0);
        CHECK(counted_round(N_PAGES, SPIN_NS, &r) == 0);
        CHECK(r.n_sets == N_SETS);
        for (int s = 0; s < N_SETS; s++) {
                long long running = mx_ns(r.sets[s].accu_time), enabled = mx_ns(r.sets[s].accu_purr);

                printf("# uid %d, set %d: %lld page faults for %d pages, running %lld ns of %lld enabled, "
                       "%d rounds\n", (int) getuid(), s, r.sets[s].accu_data[0], N_PAGES, running, enabled,
                       r.rounds);
                fflush(stdout);                                 /* run_as_nobody's child ends in _exit() */
                CHECK(r.sets[s].accu_data[0] == N_PAGES);
                CHECK(running > 0 && running <= enabled);
                CHECK(mx_ns(r.sets[s].accu_spurr) == 0);
                CHECK_NEAR((long long) ((double) r.sets[s].accu_data[0] * (double) enabled / (double) running),
                           N_PAGES, N_PAGES / 10);
                for (int c = 2; c < MAX_COUNTERS; c++)
                        CHECK(r.sets[s].accu_data[c] == 0);
        }
        CHECK(r.sets[0].accu_data[1] == N_PAGES);                       /* minor faults */
        /* The task clock is the thread's CPU time while set 1 ran. */
        CHECK_NEAR(r.sets[1].accu_data[1], mx_ns(r.sets[1].accu_time), mx_ns(r.sets[1].accu_time) / 10);
        CHECK(mx_ns(r.sets[0].accu_purr) >= SPIN_NS);
        CHECK_NEAR(r.rounds, mx_ns(r.sets[0].accu_purr) / (SLICE_MS * 1000000LL * N_SETS), 1);
        CHECK(r.rounds >= 2);
        CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

/* get_program_mx gives back the sets, the slice, and the count bit as it is now; the plain calls
 * report set 0; a single-set context is one set with slice 0. */
static int get_program_body(void *arg) {
        pm_events_prog_t sets[N_SETS];
        pm_prog_mx_t prog, got;
        pm_prog_mm_t got_mm;
        pm_prog_t one;
        pm_data_t d;
        timebasestruct_t tb;
        long long before, after;
        MxRead r;

        (void) arg;
        two_sets(&prog, sets, PM_USER);
        CHECK_RC(pm_set_program_mythread_mx(&prog), 0);
        for (int on = 0; on < 2; on++) {
                if (on)
                        CHECK_RC(pm_start_mythread(), 0);
                got = (pm_prog_mx_t) {};
                CHECK_RC(pm_get_program_mythread_mx(&got), 0);
                CHECK(got.slice_duration == SLICE_MS && got.nb_events_prog == N_SETS && got.events_set);
                CHECK(got.mode.w == (PM_USER | (on ? PM_COUNT : 0)));
                CHECK(memcmp(got.events_set, sets, sizeof(sets)) == 0);
                free(got.events_set);
        }
        CHECK_RC(pm_get_program_mythread(&one), 0);
        CHECK(one.mode.w == (PM_USER | PM_COUNT));
        CHECK(memcmp(one.events, sets[0], sizeof(one.events)) == 0);
        got_mm = (pm_prog_mm_t) {};
        CHECK_RC(pm_get_program_mythread_mm(&got_mm), 0);
        CHECK(got_mm.slice_duration == SLICE_MS && got_mm.nb_set_prog == N_SETS && got_mm.prog_set);
        for (int s = 0; s < N_SETS; s++) {
                CHECK(got_mm.prog_set[s].mode.w == (PM_USER | PM_COUNT));
                CHECK(memcmp(got_mm.prog_set[s].events, sets[s], sizeof(sets[s])) == 0);
        }
        free(got_mm.prog_set);
        /* A plain read of a multi-set context is set 0, raw; tdata stamps the read with a time
         * inside the call. */
        CHECK(touch_fresh_pages(100) == 0);
        CHECK_RC(pm_stop_mythread(), 0);
        before = clock_ns(CLOCK_MONOTONIC);
        READ_MX(r, pm_get_tdata_mythread_mx(&d_, &tb));
        after = clock_ns(CLOCK_MONOTONIC);
        CHECK(tb.flag == PM_TB_MONOTONIC_NS && mx_ns(tb) >= before && mx_ns(tb) <= after);
        CHECK_RC(pm_get_data_mythread(&d), 0);
        CHECK(r.sets[0].accu_data[0] >= 100);
        CHECK(memcmp(d.accu, r.sets[0].accu_data, sizeof(d.accu)) == 0);
        CHECK_RC(pm_delete_program_mythread(), 0);

        program_one(&one, PM_USER | PM_COUNT, ev.page_flt);
        CHECK_RC(pm_set_program_mythread(&one), 0);
        got = (pm_prog_mx_t) {};
        CHECK_RC(pm_get_program_mythread_mx(&got), 0);
        CHECK(got.slice_duration == 0 && got.nb_events_prog == 1 && got.events_set);
        CHECK(got.mode.w == (PM_USER | PM_COUNT));
        CHECK(memcmp(got.events_set[0], one.events, sizeof(one.events)) == 0);
        free(got.events_set);
        READ_MX(r, pm_get_data_mythread_mx(&d_));
        CHECK(r.n_sets == 1);
        CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

/* Stop, reset and start act on every set; delete then set works again. */
static int every_set_switches_body(void *arg) {
        pm_events_prog_t sets[N_SETS];
        pm_prog_mx_t prog;
        MxRead a, b, r;

        (void) arg;
        two_sets(&prog, sets, PM_USER | PM_COUNT);
        CHECK_RC(pm_set_program_mythread_mx(&prog), 0);
        CHECK(touch_fresh_pages(300) == 0);
        CHECK_RC(pm_stop_mythread(), 0);
        READ_MX(a, pm_get_data_mythread_mx(&d_));
        CHECK(touch_fresh_pages(500) == 0);                             /* stopped: not counted */
        READ_MX(b, pm_get_data_mythread_mx(&d_));
        for (int s = 0; s < N_SETS; s++) {
                CHECK(a.sets[s].accu_data[0] >= 300);
                CHECK(mx_ns(b.sets[s].accu_purr) == mx_ns(a.sets[s].accu_purr));
        }
        CHECK(mx_check_sum(&b, MX_PARTS(&a)) == 0);
        CHECK_RC(pm_reset_data_mythread(), 0);
        READ_MX(r, pm_get_data_mythread_mx(&d_));
        for (int s = 0; s < N_SETS; s++)
                for (int c = 0; c < MAX_COUNTERS; c++)
                        CHECK(r.sets[s].accu_data[c] == 0);
        CHECK(warm_calls() == 0);
        CHECK(counted_round(700, 0, &r) == 0);
        for (int s = 0; s < N_SETS; s++)
                CHECK(r.sets[s].accu_data[0] == 700);
        CHECK_RC(pm_delete_program_mythread(), 0);
        CHECK_RC(pm_get_data_mythread_mx(&(pm_data_mx_t) {}), PM_ENOCONTEXT);
        CHECK_RC(pm_set_program_mythread_mx(&prog), 0);
        READ_MX(r, pm_get_data_mythread_mx(&d_));
        CHECK(r.n_sets == N_SETS);
        CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

/* A thread created afterwards inherits every set: read as a third party on this process, each
 * set counts exactly the pages it touches. */
static int inheritance_body(void *arg) {
        pm_events_prog_t sets[N_SETS];
        pm_prog_mx_t prog, got;
        MxRead a, b, p;
        Stepper w;

        (void) arg;
        two_sets(&prog, sets, PM_USER | PM_COUNT);
        CHECK_RC(pm_set_program_mythread_mx(&prog), 0);
        CHECK(stepper_start(&w, false) == 0);
        stepper_step(&w, 1);                                    /* its stack, before the counted step */
        READ_MX(a, pm_get_data_thread_mx(getpid(), w.tid, &d_));
        stepper_step(&w, N_PAGES);
        READ_MX(b, pm_get_data_thread_mx(getpid(), w.tid, &d_));
        CHECK(b.n_sets == N_SETS);
        CHECK(mx_check_added(&a, &b, 0, N_PAGES) == 0);
        CHECK(b.sets[0].accu_data[1] - a.sets[0].accu_data[1] == N_PAGES);
        READ_MX(p, pm_get_data_pthread_mx(getpid(), w.tid, 0, &d_));
        CHECK(mx_check_same_faults(&p, &b) == 0);               /* it waits at a barrier */
        got = (pm_prog_mx_t) {};
        CHECK_RC(pm_get_program_thread_mx(getpid(), w.tid, &got), 0);
        CHECK(got.slice_duration == SLICE_MS && got.nb_events_prog == N_SETS && got.events_set);
        CHECK(got.mode.w == (PM_USER | PM_COUNT));
        CHECK(memcmp(got.events_set, sets, sizeof(sets)) == 0);
        free(got.events_set);
        stepper_stop(&w);
        CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

/* A group of this thread and two threads created after it: the group's sets are the sum of its
 * members' exactly, and a member that exits leaves its data in every set. */
static int group_body(void *arg) {
        pm_events_prog_t sets[N_SETS];
        pm_prog_mx_t prog;
        MxRead a0, a1, b0, b1, b2, self, g, g2, g3;
        Stepper a, b;

        (void) arg;
        two_sets(&prog, sets, PM_USER | PM_COUNT);
        CHECK_RC(pm_set_program_mygroup_mx(&prog), 0);
        CHECK(stepper_start(&a, false) == 0 && stepper_start(&b, false) == 0);
        stepper_step(&a, 1);
        stepper_step(&b, 1);
        READ_MX(a0, pm_get_data_thread_mx(getpid(), a.tid, &d_));
        READ_MX(b0, pm_get_data_thread_mx(getpid(), b.tid, &d_));
        stepper_step(&a, 300);
        stepper_step(&b, 500);
        CHECK_RC(pm_stop_mygroup(), 0);                         /* nothing moves between the reads */
        READ_MX(a1, pm_get_data_thread_mx(getpid(), a.tid, &d_));
        READ_MX(b1, pm_get_data_thread_mx(getpid(), b.tid, &d_));
        READ_MX(self, pm_get_data_mythread_mx(&d_));
        READ_MX(g, pm_get_data_mygroup_mx(&d_));
        CHECK(mx_check_added(&a0, &a1, 0, 300) == 0);
        CHECK(mx_check_added(&b0, &b1, 0, 500) == 0);
        CHECK(g.n_sets == N_SETS && g.ginfo.members == 3 && g.ginfo.flags.b.consistent);
        CHECK(mx_check_sum(&g, MX_PARTS(&self, &a1, &b1)) == 0);

        stepper_stop(&a);                                       /* dies a member */
        CHECK(wait_for_context_count(2, 10000) == 0);
        READ_MX(g2, pm_get_data_mygroup_mx(&d_));
        CHECK(mx_check_sum(&g2, MX_PARTS(&g)) == 0);
        CHECK(g2.ginfo.members == 3);
        CHECK_RC(pm_start_mygroup(), 0);
        stepper_step(&b, 200);
        CHECK_RC(pm_stop_mygroup(), 0);
        READ_MX(b2, pm_get_data_thread_mx(getpid(), b.tid, &d_));
        READ_MX(self, pm_get_data_mythread_mx(&d_));
        READ_MX(g3, pm_get_data_mygroup_mx(&d_));
        CHECK(mx_check_added(&b1, &b2, 0, 200) == 0);
        CHECK(mx_check_sum(&g3, MX_PARTS(&self, &a1, &b2)) == 0);     /* the dead member's part is a1 */
        CHECK(g3.ginfo.members == 3);
        stepper_stop(&b);
        CHECK_RC(pm_delete_program_mygroup(), 0);
        return 0;
}

/* The third-party forms on a child process (root's on nobody's child, nobody's on its own): a
 * thread context read with _thread_mx and _pthread_mx, stop acting on every set; a descendant group
 * made from outside, read with _group_mx and _pgroup_mx (ptid 0 or the tid). */
static int third_party_body(void *arg) {
        /* Inside run_as_nobody, "root" is "as it is": the child stays nobody's. */
        TargetIdentity id = getuid() == 0 ? TARGET_UID(NOBODY) : TARGET_ROOT;
        pm_events_prog_t sets[N_SETS];
        pm_prog_mx_t prog, got;
        MxRead r, p, g, pg;
        pid_t pid, tid1, tid2;
        Target t;

        (void) arg;
        CHECK(target_start(&t, &id, 3) == 0);
        pid = t.pid;
        tid1 = t.tids[1];
        tid2 = t.tids[2];
        CHECK(target_touch(&t, 1, 1) == 0 && target_touch(&t, 2, 1) == 0);    /* their command paths */
        two_sets(&prog, sets, PM_USER | PM_COUNT);
        CHECK_RC(pm_set_program_thread_mx(pid, tid1, &prog), 0);
        CHECK(target_touch(&t, 1, 700) == 0);
        READ_MX(r, pm_get_data_thread_mx(pid, tid1, &d_));
        CHECK(r.n_sets == N_SETS);
        for (int s = 0; s < N_SETS; s++)
                CHECK(r.sets[s].accu_data[0] == 700);
        CHECK(r.sets[0].accu_data[1] == 700);
        READ_MX(p, pm_get_data_pthread_mx(pid, tid1, 0, &d_));
        CHECK(mx_check_same_faults(&p, &r) == 0);
        READ_MX(p, pm_get_data_pthread_mx(pid, 0, (ptid_t) tid1, &d_));
        CHECK(mx_check_same_faults(&p, &r) == 0);
        got = (pm_prog_mx_t) {};
        CHECK_RC(pm_get_program_pthread_mx(pid, tid1, 0, &got), 0);
        CHECK(got.slice_duration == SLICE_MS && got.nb_events_prog == N_SETS && got.events_set);
        CHECK(got.mode.w == (PM_USER | PM_COUNT) && memcmp(got.events_set, sets, sizeof(sets)) == 0);
        free(got.events_set);
        CHECK_RC(pm_stop_thread(pid, tid1), 0);
        CHECK(target_touch(&t, 1, 300) == 0);                   /* stopped: in no set */
        READ_MX(p, pm_get_data_thread_mx(pid, tid1, &d_));
        CHECK(mx_check_same_faults(&p, &r) == 0);
        CHECK_RC(pm_set_program_thread_mx(pid, tid1, &prog), PM_EEXIST);
        CHECK_RC(pm_delete_program_thread(pid, tid1), 0);
        CHECK_RC(pm_get_data_thread_mx(pid, tid1, &(pm_data_mx_t) {}), PM_ENOCONTEXT);

        CHECK_RC(pm_set_program_pgroup_mx(pid, tid2, 0, &prog), 0);
        CHECK(target_touch(&t, 2, 400) == 0);
        CHECK(target_touch(&t, 1, 200) == 0);                   /* created before: not a member */
        READ_MX(g, pm_get_data_group_mx(pid, tid2, &d_));
        CHECK(g.n_sets == N_SETS && g.ginfo.members == 1 && !g.ginfo.flags.b.process);
        for (int s = 0; s < N_SETS; s++)
                CHECK(g.sets[s].accu_data[0] == 400);
        READ_MX(pg, pm_get_data_pgroup_mx(pid, 0, (ptid_t) tid2, &d_));
        CHECK(mx_check_same_faults(&pg, &g) == 0 && pg.ginfo.members == 1);
        got = (pm_prog_mx_t) {};
        CHECK_RC(pm_get_program_group_mx(pid, tid2, &got), 0);
        CHECK(got.slice_duration == SLICE_MS && got.nb_events_prog == N_SETS && got.events_set);
        CHECK(memcmp(got.events_set, sets, sizeof(sets)) == 0);
        free(got.events_set);
        CHECK_RC(pm_reset_data_group(pid, tid2), 0);
        READ_MX(g, pm_get_data_group_mx(pid, tid2, &d_));
        for (int s = 0; s < N_SETS; s++)
                CHECK(g.sets[s].accu_data[0] == 0);
        CHECK_RC(pm_delete_program_group(pid, tid2), 0);
        target_kill(&t);
        return 0;
}

/* A user-mode and a kernel-mode set of the same events: a page touched from user code is a
 * user-mode fault, in the first set only. Kernel mode gets the single-set call's verdict under
 * perf_event_paranoid; expected is that verdict. */
static int mm_body(void *arg) {
        int expected = *(const int *) arg;
        pm_prog_t set[N_SETS], kernel, got_one;
        pm_prog_mm_t prog = { .slice_duration = SLICE_MS, .nb_set_prog = N_SETS, .prog_set = set }, got;
        MxRead r;

        program_one(&kernel, PM_KERNEL, ev.page_flt);
        CHECK_RC(pm_set_program_mythread(&kernel), expected);
        if (expected == 0)
                CHECK_RC(pm_delete_program_mythread(), 0);
        for (int s = 0; s < N_SETS; s++) {
                program_one(&set[s], (s == 0 ? PM_USER : PM_KERNEL) | PM_COUNT, ev.page_flt);
                set[s].events[1] = ev.minor_flt;
        }
        CHECK_RC(pm_set_program_mythread_mm(&prog), expected);
        if (expected != 0)
                return 0;
        CHECK_RC(pm_stop_mythread(), 0);
        got = (pm_prog_mm_t) {};
        CHECK_RC(pm_get_program_mythread_mm(&got), 0);
        CHECK(got.slice_duration == SLICE_MS && got.nb_set_prog == N_SETS && got.prog_set);
        CHECK(got.prog_set[0].mode.w == PM_USER && got.prog_set[1].mode.w == PM_KERNEL);
        for (int s = 0; s < N_SETS; s++)
                CHECK(memcmp(got.prog_set[s].events, set[s].events, sizeof(set[s].events)) == 0);
        free(got.prog_set);
        CHECK_RC(pm_get_program_mythread(&got_one), 0);         /* the plain call: set 0 */
        CHECK(got_one.mode.w == PM_USER && memcmp(got_one.events, set[0].events, sizeof(got_one.events)) == 0);
        CHECK(warm_calls() == 0);
        CHECK(counted_round(N_PAGES, 0, &r) == 0);
        printf("# uid %d: user-mode set %lld, %lld; kernel-mode set %lld, %lld for %d pages\n", (int) getuid(),
               r.sets[0].accu_data[0], r.sets[0].accu_data[1], r.sets[1].accu_data[0], r.sets[1].accu_data[1],
               N_PAGES);
        fflush(stdout);
        CHECK(r.n_sets == N_SETS);
        CHECK(r.sets[0].accu_data[0] == N_PAGES && r.sets[0].accu_data[1] == N_PAGES);
        CHECK(r.sets[1].accu_data[0] == 0 && r.sets[1].accu_data[1] == 0);
        CHECK(mx_ns(r.sets[1].accu_time) > 0);                  /* it ran: it had nothing to count */
        CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

static void test_mm_user_and_kernel_sets(void **state) {
        int ok = 0, eperm = PM_EPERM;

        (void) state;
        assert_int_equal(mm_body(&ok), 0);
        if (paranoid_set_for_test(2) < 0)
                skip();
        /* Page faults: their owner sees them in getrusage anyway, so kernel mode is allowed at 2
         * (test-bad-input.c), for the single set and for the _mm sets alike. */
        assert_int_equal(run_as_nobody(mm_body, &ok), 0);
        assert_int_equal(paranoid_set_for_test(3), 0);
        assert_int_equal(run_as_nobody(mm_body, &eperm), 0);
        assert_int_equal(mm_body(&ok), 0);                      /* root still may */
        paranoid_restore_for_test();
}

/* pmapid re-executes itself on SIGHUP (test-reexec.c); the new image logs its restore. */
static int reexec_pmapid(void) {
        int before = bus_fixture_log_count(&fixture, "Restored from the previous image", NULL);

        CHECK(kill(fixture.daemon_pid, SIGHUP) == 0);
        for (int i = 0; i < 500; i++) {
                if (bus_fixture_log_count(&fixture, "Restored from the previous image", NULL) == before + 1)
                        return 0;
                usleep(10 * 1000);
        }
        fprintf(stderr, "pmapid did not come back from SIGHUP\n");
        return 1;
}

/* Counts of both sets, their times and the program are the same after the re-exec, and both sets
 * count on exactly. */
static int reexec_body(void *arg) {
        pm_events_prog_t sets[N_SETS];
        pm_prog_mx_t prog, got = {};
        MxRead before, after, warm, more;

        (void) arg;
        two_sets(&prog, sets, PM_USER);
        CHECK_RC(pm_set_program_mythread_mx(&prog), 0);
        CHECK(warm_calls() == 0);
        CHECK(counted_round(N_PAGES, 0, &before) == 0);
        for (int s = 0; s < N_SETS; s++)
                CHECK(before.sets[s].accu_data[0] == N_PAGES);
        CHECK(reexec_pmapid() == 0);
        READ_MX(after, pm_get_data_mythread_mx(&d_));
        CHECK(after.n_sets == N_SETS && mx_check_sum(&after, MX_PARTS(&before)) == 0);
        for (int s = 0; s < N_SETS; s++) {
                CHECK(mx_ns(after.sets[s].accu_time) == mx_ns(before.sets[s].accu_time));
                CHECK(mx_ns(after.sets[s].accu_purr) == mx_ns(before.sets[s].accu_purr));
        }
        CHECK_RC(pm_get_program_mythread_mx(&got), 0);
        CHECK(got.slice_duration == SLICE_MS && got.nb_events_prog == N_SETS && got.events_set);
        CHECK(got.mode.w == PM_USER && memcmp(got.events_set, sets, sizeof(sets)) == 0);
        free(got.events_set);
        /* Without a reset: rounds that warm the calls to the new image (the library looks pmapid's
         * name up again), then the counted one. */
        for (int round = 0; round < 4; round++) {
                CHECK_RC(pm_start_mythread(), 0);
                CHECK(touch_fresh_pages(1) == 0);
                CHECK_RC(pm_stop_mythread(), 0);
        }
        READ_MX(warm, pm_get_data_mythread_mx(&d_));
        CHECK_RC(pm_start_mythread(), 0);
        CHECK(touch_fresh_pages(1500) == 0);
        CHECK_RC(pm_stop_mythread(), 0);
        READ_MX(more, pm_get_data_mythread_mx(&d_));
        CHECK(warm.sets[0].accu_data[0] >= before.sets[0].accu_data[0] + 4);
        CHECK(mx_check_added(&warm, &more, 0, 1500) == 0);
        CHECK(more.sets[0].accu_data[1] - warm.sets[0].accu_data[1] == 1500);
        CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

#define BOTH_USERS(name, body)                                                                     \
        static void name(void **state) {                                                           \
                (void) state;                                                                      \
                assert_int_equal(body(NULL), 0);                                                   \
                assert_int_equal(run_as_nobody(body, NULL), 0);                                    \
        }

BOTH_USERS(test_mythread_two_sets_count_every_page, mythread_counts_body)
BOTH_USERS(test_get_program_mx_reports_every_set, get_program_body)
BOTH_USERS(test_stop_reset_start_act_on_every_set, every_set_switches_body)
BOTH_USERS(test_new_thread_inherits_every_set, inheritance_body)
BOTH_USERS(test_group_sets_are_the_sum_of_the_members, group_body)
BOTH_USERS(test_third_party_mx_on_a_child_process, third_party_body)

static void test_two_sets_survive_reexec(void **state) {
        pid_t before = fixture.daemon_pid;

        (void) state;
        assert_int_equal(reexec_body(NULL), 0);
        assert_int_equal(kill(before, 0), 0);                   /* the same process, re-executed */
}

static int setup(void **state) {
        (void) state;
        if (bus_fixture_start_bus(&fixture) != 0)
                return -1;
        fixture.capture_log = true;                             /* reexec_pmapid() reads it */
        if (bus_fixture_start_daemon(&fixture, NULL) != 0)
                return -1;
        return mx_events_find(&ev);
}

static int teardown(void **state) {
        (void) state;
        paranoid_restore_for_test();                            /* what a failed case left */
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_mythread_two_sets_count_every_page),
                cmocka_unit_test(test_get_program_mx_reports_every_set),
                cmocka_unit_test(test_stop_reset_start_act_on_every_set),
                cmocka_unit_test(test_new_thread_inherits_every_set),
                cmocka_unit_test(test_group_sets_are_the_sum_of_the_members),
                cmocka_unit_test(test_third_party_mx_on_a_child_process),
                cmocka_unit_test(test_mm_user_and_kernel_sets),
                cmocka_unit_test(test_two_sets_survive_reexec),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
