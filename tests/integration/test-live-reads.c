/* test-live-reads.c: a born thread that keeps its CPU is read as of the call, not of its last
 * switch. Its creator (on CPU 0) counts a descendants group of task clock and page faults; the one
 * member, born counting inside the kernel and pinned to the last CPU, touches pages and then spins
 * without ever blocking. As root and as uid 65534:
 * - every 100 ms the group's read and a third-party read of the member hold at least what the
 *   member did before the call, and no more than it (and its creator) did by the call's end: its
 *   CPU time (the kernel's clock of the thread) and its faults (the kernel's count of them);
 * - a third party's stop of the running member keeps what it did before the stop, and the member
 *   counts nothing more while it spins on; a start counts it again from the call; a reset leaves
 *   only what it did after the reset.
 * Without the fold (pmapid's program run on the member's CPU before it reads or switches it), the
 * reads fell short by up to the member's whole time on its CPU (seconds), its stop dropped what it
 * had done since its last switch, and its reset kept it. */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "check.h"
#include "pmapi.h"
#include "workload.h"

static BusFixture fixture;

/* The references: what the member did before a call is at least perf's task clock of it then (a
 * counter this test opens on it: perf counts from each switch in to the next switch out, inside
 * the slices pmapid adds, so never more), or, where perf_event_paranoid refuses that counter, its
 * CPU time (the kernel's clock of the thread, less CLOCK_SLACK_NS: the scheduler starts a thread's
 * time a little before the switch tracepoint, microseconds a switch); and what it did by a call's
 * end is at most the time since its birth (one thread is on one CPU at a time). What a read misses
 * without the fold is the member's time on its CPU since its last switch, 100 ms and more here. */
#define CLOCK_SLACK_NS 1000000LL

typedef struct Member {
        volatile pid_t tid;
        long long born_ns;              /* CLOCK_MONOTONIC before its creation */
        volatile bool spin_only;        /* after the pages: spin, never block */
        volatile bool stop;
        int rc;
        int task_clock;                 /* perf_task_clock_of() the member, or -1 */
} Member;

static void pin_to(int cpu) {
        cpu_set_t set;

        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        (void) sched_setaffinity(0, sizeof(set), &set);
}

static void *member_main(void *p) {
        Member *m = p;

        pin_to(last_online_cpu());
        m->tid = (pid_t) syscall(SYS_gettid);
        while (!m->stop && !m->spin_only) {
                if (touch_fresh_pages(64) < 0) {
                        m->rc = 1;
                        break;
                }
        }
        while (!m->stop)
                ;
        return NULL;
}

/* A program of the task clock (counter 0) and page faults (counter 1), user mode. */
static int clock_and_faults(pm_prog_t *prog) {
        pm_info_t info;

        CHECK_RC(pm_init(PM_VERIFIED, &info), 0);
        program_one(prog, PM_USER | PM_COUNT, find_event_id(&info, "PM_TASK_CLOCK"));
        prog->events[1] = find_event_id(&info, "PM_PAGE_FLT");
        CHECK(prog->events[0] > 0 && prog->events[1] > 0);
        return 0;
}

/* The kernel's count of thread tid's faults (minor and major, /proc's), or -1. It counts a fault
 * as it ends, perf as it starts: a read lies between the count before it and one more than the
 * count after it (a fault in flight). */
static long long faults_of(pid_t tid) {
        char path[64], buf[512], *p;
        unsigned long long min_flt, maj_flt;
        FILE *f;
        int ok = 0;

        snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int) tid);
        f = fopen(path, "re");
        if (!f)
                return -1;
        if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
                ok = sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %llu %*u %llu", &min_flt, &maj_flt) == 2;
        fclose(f);
        return ok ? (long long) (min_flt + maj_flt) : -1;
}

/* What the member did by now: its CPU time and its faults; and the time since its birth, beyond
 * which it cannot have run. */
typedef struct Done {
        long long cpu_ns, faults, lived_ns;
} Done;

/* The times the member was switched onto a CPU so far (/proc's schedstat), 0 where unreadable. */
static long long member_switches(const Member *m) {
        char path[80];
        long long run, wait, n = 0;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int) m->tid);
        f = fopen(path, "re");
        if (f) {
                if (fscanf(f, "%lld %lld %lld", &run, &wait, &n) != 3)
                        n = 0;
                fclose(f);
        }
        return n;
}

/* Microseconds at each switch (about 2 us a switch here: a read 429 us under perf's task clock after
 * 218 switches of the member, one 1.04 ms under it after more): perf's task clock of a thread runs from just after its switch in to
 * just before its switch out, pmapid's slices from the switch tracepoint to the next, a little
 * earlier at both ends: the two part by a few microseconds a switch, either way. 5 us a switch;
 * a read without the fold is short by the member's time on its CPU since its last switch, 50 ms
 * and more here. */
#define SWITCH_SLACK_NS 5000LL

/* The least the member did by now: perf's task clock of it, or its CPU time less the slack, less
 * what the switches so far may part them by. */
static long long least_cpu_ns(const Member *m, clockid_t member_clock) {
        long long v = m->task_clock >= 0 ? perf_read(m->task_clock) : -1;

        return (v >= 0 ? v : clock_now_ns(member_clock) - CLOCK_SLACK_NS) - SWITCH_SLACK_NS * member_switches(m);
}

static Done done_by_now(const Member *m, clockid_t member_clock) {
        return (Done) { least_cpu_ns(m, member_clock), faults_of(m->tid), clock_now_ns(CLOCK_MONOTONIC) - m->born_ns };
}

/* A switch the scheduler's tracepoint does not show (on this VM, every switch away from its PID 1's
 * threads; pmapid's AmbiguousSlices counts them) leaves the slice that the fold ends without a known
 * start: its clock is then the thread's own runtime until its next switch seen, and the scheduler
 * brings a running thread's runtime up to date only at its next tick (pmapid(8)). What it lags is
 * counted at that switch, not lost, and every slice until then counts as ambiguous too; a read in
 * between may be short of it, and a lag from before a reset or a start is counted after it: by one
 * tick at most either way, 10 ms at the slowest HZ. Where no such slice came, no slack. */
#define UNSEEN_SLACK_NS 10000000LL

static long long unseen_slack(uint64_t ambiguous_before) {
        return ambiguous_slices() > ambiguous_before ? UNSEEN_SLACK_NS : 0;
}

/* Reads the group and the member every 100 ms for reads rounds: each holds what the member did
 * before the call, and no more than it (and, for the group, its creator) did by the call's end. */
static int read_while_running(Member *m, clockid_t member_clock, int reads, long long creator_since_ns,
                              long long *shortest_margin) {
        for (int i = 0; i < reads; i++) {
                pm_data_t g, t;
                Done before, after;
                uint64_t ambiguous;

                usleep(100000);
                ambiguous = ambiguous_slices();
                before = done_by_now(m, member_clock);
                CHECK_RC(pm_get_data_mygroup(&g), 0);
                after = done_by_now(m, member_clock);
                CHECK_RANGE((long long) g.accu[0], before.cpu_ns - unseen_slack(ambiguous),
                            after.lived_ns + clock_now_ns(CLOCK_MONOTONIC) - creator_since_ns);
                CHECK(before.faults >= 0 && (long long) g.accu[1] >= before.faults);
                if ((long long) g.accu[0] - before.cpu_ns < *shortest_margin)
                        *shortest_margin = (long long) g.accu[0] - before.cpu_ns;

                ambiguous = ambiguous_slices();
                before = done_by_now(m, member_clock);
                CHECK_RC(pm_get_data_thread(getpid(), m->tid, &t), 0);
                after = done_by_now(m, member_clock);
                CHECK_RANGE((long long) t.accu[0], before.cpu_ns - unseen_slack(ambiguous), after.lived_ns);
                CHECK_RANGE((long long) t.accu[1], before.faults, after.faults + 1);
                if ((long long) t.accu[0] - before.cpu_ns < *shortest_margin)
                        *shortest_margin = (long long) t.accu[0] - before.cpu_ns;
        }
        return 0;
}

/* Stop, start and reset of the spinning member by a third party (its creator). */
static int switch_while_running(Member *m, clockid_t member_clock) {
        pm_data_t stopped, later, started, reset;
        long long before, start_at, started_at;
        uint64_t ambiguous;

        usleep(200000);
        ambiguous = ambiguous_slices();
        before = least_cpu_ns(m, member_clock);
        CHECK_RC(pm_stop_thread(getpid(), m->tid), 0);
        CHECK_RC(pm_get_data_thread(getpid(), m->tid, &stopped), 0);
        CHECK_RANGE((long long) stopped.accu[0], before - unseen_slack(ambiguous), clock_now_ns(CLOCK_MONOTONIC) - m->born_ns);
        usleep(200000);                                 /* it spins on, stopped */
        CHECK_RC(pm_get_data_thread(getpid(), m->tid, &later), 0);
        CHECK(later.accu[0] == stopped.accu[0] && later.accu[1] == stopped.accu[1]);

        ambiguous = ambiguous_slices();
        start_at = clock_now_ns(CLOCK_MONOTONIC);
        CHECK_RC(pm_start_thread(getpid(), m->tid), 0);
        started_at = least_cpu_ns(m, member_clock);
        usleep(200000);
        before = least_cpu_ns(m, member_clock);
        CHECK_RC(pm_get_data_thread(getpid(), m->tid, &started), 0);
        /* A lag of its runtime from before the start is counted after it (UNSEEN_SLACK_NS) */
        CHECK_RANGE((long long) (started.accu[0] - later.accu[0]),
                    before - started_at - (m->task_clock >= 0 ? 0 : CLOCK_SLACK_NS) - unseen_slack(ambiguous),
                    clock_now_ns(CLOCK_MONOTONIC) - start_at + unseen_slack(ambiguous));

        usleep(200000);
        ambiguous = ambiguous_slices();
        start_at = clock_now_ns(CLOCK_MONOTONIC);
        CHECK_RC(pm_reset_data_thread(getpid(), m->tid), 0);
        CHECK_RC(pm_get_data_thread(getpid(), m->tid, &reset), 0);
        CHECK_RANGE((long long) reset.accu[0], 0, clock_now_ns(CLOCK_MONOTONIC) - start_at + unseen_slack(ambiguous));
        return 0;
}

static int live_reads_body(void *arg) {
        Member m = { .task_clock = -1 };
        pm_prog_t prog;
        pthread_t t;
        clockid_t member_clock;
        long long shortest = INT64_MAX, creator_born_ns, switches;
        int rc;

        (void) arg;
        pin_to(0);
        CHECK(clock_and_faults(&prog) == 0);
        creator_born_ns = clock_now_ns(CLOCK_MONOTONIC);     /* it counts from here */
        CHECK_RC(pm_set_program_mygroup(&prog), 0);
        m.born_ns = clock_now_ns(CLOCK_MONOTONIC);
        CHECK(pthread_create(&t, NULL, member_main, &m) == 0);
        while (!m.tid)
                sched_yield();
        m.task_clock = perf_task_clock_of(m.tid);
        CHECK(pthread_getcpuclockid(t, &member_clock) == 0);
        rc = read_while_running(&m, member_clock, 8, creator_born_ns, &shortest);  /* while it touches pages */
        m.spin_only = true;
        if (rc == 0)
                rc = read_while_running(&m, member_clock, 8, creator_born_ns, &shortest);
        if (rc == 0)
                rc = switch_while_running(&m, member_clock);
        switches = member_switches(&m);
        m.stop = true;
        CHECK(pthread_join(t, NULL) == 0);
        if (m.task_clock >= 0)
                close(m.task_clock);
        CHECK_RC(m.rc, 0);
        if (rc == 0)
                fprintf(stderr, "# uid %d: the reads' task clock less %s before them (less 5 us for each of "
                        "the member's %lld switches): %lld us at the least\n", (int) getuid(),
                        m.task_clock >= 0 ? "perf's task clock of the member" : "the member's CPU time",
                        switches, shortest / 1000);
        CHECK_RC(pm_delete_program_mygroup(), 0);
        return rc;
}

static void test_a_running_member_is_read_as_of_the_call(void **state) {
        (void) state;
        if (!kernel_inheritance())
                skip();
        assert_int_equal(live_reads_body(NULL), 0);
        assert_int_equal(run_as_nobody(live_reads_body, NULL), 0);
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
                cmocka_unit_test(test_a_running_member_is_read_as_of_the_call),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
