/* test-hardware-counts.c: the CPU PMU's instructions and cycles through the real pmapid, on a known
 * loop of exactly 2 user-mode instructions an iteration (subs/b.ne on arm64, dec/jnz on x86-64).
 * Runs where a CPU PMU exists (the arm64 Cortex-A57 guest: QEMU's -icount shift=0 makes its counts
 * exact and repeatable; a real machine); skipped on a machine with software events only.
 * - third party, as root and as nobody: a target blocked in read() between rounds counts each
 *   round's loop plus the same few instructions of its read()/write() wrappers, so rounds of n and
 *   3n iterations differ by exactly 4n instructions (timer ticks aside: below);
 * - first party: the same, with libpmapi's own user-mode instructions in its start and stop calls
 *   instead of the wrappers' (not exact: sd-bus's share varies by a hundred or so);
 * - a process group: two threads of n iterations each, 4n and the creator's own work, no less;
 * - every counter at once: instructions, cycles and PMU events on the others;
 * - two _mx sets of as many events as the PMU has counters: the kernel rotates them for real and
 *   each set's scaled estimate of the loop's instructions is near the exact count;
 * - arm64: an in-process read of one's own PMU counter is an mrs with kernel.perf_user_access=1, no
 *   system call (user and kernel instructions a call, against read() with 0). */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "check.h"
#include "paranoid.h"
#include "pmapi.h"
#include "pmu-workload.h"
#include "workload.h"

/* Iterations of the short round; the long one is 3N: 0.6 and 1.8 ms in the guest (1 instruction a
 * ns), shorter than its 4 ms timer tick, so that some rounds of each length have none. */
#define N 300000ull
#define FIRST_PARTY_OWN 20000           /* libpmapi's start and stop calls, user mode (143 or 2,830
                                           here: sd-bus takes one path or another in a run) */

static BusFixture fixture;
static int inst_id = -1, cyc_id = -1;

static long long *mmap_shared_ll(void) {
        void *p = mmap(NULL, sizeof(long long), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

        return p == MAP_FAILED ? NULL : p;
}

static void require_pmu(void) {
        if (inst_id < 0 || cyc_id < 0) {
                print_message("# SKIP: no CPU PMU here (software events only): no PM_INST_CMPL or PM_CYC\n");
                skip();
        }
}

static void one_event(pm_prog_t *prog, int mode, int id0, int id1) {
        *prog = (pm_prog_t) { .mode.w = mode };
        for (int c = 0; c < MAX_COUNTERS; c++)
                prog->events[c] = COUNT_NOTHING;
        prog->events[0] = id0;
        prog->events[1] = id1;
}

/* A child that runs known_loop(n) for every n it reads, answers, and exits on 0. */
typedef struct Looper {
        pid_t pid;
        int cmd, reply;
} Looper;

static int looper_start(Looper *l) {
        int cmd[2], reply[2];

        if (pipe(cmd) < 0 || pipe(reply) < 0)
                return -1;
        l->pid = fork();
        if (l->pid < 0)
                return -1;
        if (l->pid == 0) {
                uint64_t n;

                /* Dumpable, as after an exec: a caller of its own uid may count it (setuid cleared it). */
                (void) prctl(PR_SET_DUMPABLE, 1);
                close(cmd[1]);
                close(reply[0]);
                while (read(cmd[0], &n, sizeof(n)) == sizeof(n) && n > 0) {
                        known_loop(n);
                        if (write(reply[1], &n, sizeof(n)) != sizeof(n))
                                break;
                }
                _exit(0);
        }
        close(cmd[0]);
        close(reply[1]);
        l->cmd = cmd[1];
        l->reply = reply[0];
        return 0;
}

/* One round: known_loop(n) in the looper, and back asleep in read(). */
static int looper_round(Looper *l, uint64_t n) {
        uint64_t back;

        if (write(l->cmd, &n, sizeof(n)) != sizeof(n) || read(l->reply, &back, sizeof(back)) != sizeof(back))
                return -1;
        for (int i = 0; i < 10000 && !task_sleeps(l->pid, l->pid); i++)
                usleep(100);
        return task_sleeps(l->pid, l->pid) ? 0 : -1;  /* asleep in read(): its instructions are all done */
}

static void looper_stop(Looper *l) {
        uint64_t zero = 0;

        (void) write(l->cmd, &zero, sizeof(zero));
        close(l->cmd);
        close(l->reply);
        (void) waitpid(l->pid, NULL, 0);
}

/* Rounds of N and 3N iterations, in turn, in a looper counted from outside. A round counts its loop
 * and the same few instructions of its read() and write() wrappers; in this guest a round that a
 * timer tick lands in counts about 3,000 user-mode instructions more (measured: 0 or one tick's
 * worth, never in between), so the exact claim is on each length's least: those differ by exactly
 * 4N. A least is taken once two rounds of its length gave it (two rounds no tick landed in agree
 * to the instruction): at least ROUNDS rounds, more while a length has no such pair, up to
 * MAX_ROUNDS. With the host loaded (two spinners beside QEMU), all 6 rounds of 3N of one run took a
 * tick each. */
#define ROUNDS 12
#define MAX_ROUNDS 60

/* How many of the rounds of length k (0: N, 1: 3N) in count[0..n-1] counted least. */
static int times_least(const long long *count, int n, int k, long long least) {
        int times = 0;

        for (int i = k; i < n; i += 2)
                times += count[i] == least;
        return times;
}

static int third_party_body(void *arg) {
        long long last, count[MAX_ROUNDS], least[2] = { LLONG_MAX, LLONG_MAX }, extra;
        pm_prog_t prog;
        pm_data_t d;
        pm_info_t info;
        Looper l;
        int n = 0;

        (void) arg;
        CHECK_RC(pm_init(PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT, &info), 0);
        CHECK(looper_start(&l) == 0);
        CHECK(looper_round(&l, 1) == 0);                /* faulted in, asleep in read() */
        one_event(&prog, PM_USER | PM_COUNT, inst_id, cyc_id);
        CHECK_RC(pm_set_program_thread(l.pid, l.pid, &prog), 0);
        CHECK_RC(pm_get_data_thread(l.pid, l.pid, &d), 0);
        last = d.accu[0];
        printf("# uid %d: rounds of %llu and %llu iterations in turn:", (int) getuid(), N, 3 * N);
        for (int i = 0; i < MAX_ROUNDS; i++) {
                CHECK(looper_round(&l, i % 2 ? 3 * N : N) == 0);
                CHECK_RC(pm_get_data_thread(l.pid, l.pid, &d), 0);
                count[i] = d.accu[0] - last;
                last = d.accu[0];
                n = i + 1;
                if (count[i] < least[i % 2])
                        least[i % 2] = count[i];
                printf(" %lld", count[i]);
                if (n >= ROUNDS && n % 2 == 0 && times_least(count, n, 0, least[0]) >= 2 &&
                    times_least(count, n, 1, least[1]) >= 2)
                        break;
        }
        extra = least[0] - 2 * (long long) N;
        printf(" instructions (%d rounds); %lld beyond the loop; %lld cycles in all\n", n, extra, d.accu[1]);
        fflush(stdout);                 /* run_as_nobody's child ends with _exit */
        CHECK(times_least(count, n, 0, least[0]) >= 2 && times_least(count, n, 1, least[1]) >= 2);
        CHECK(least[1] - least[0] == 4 * (long long) N);
        CHECK(extra >= 0 && extra < 1000);
        for (int i = 0; i < n; i++)
                CHECK(count[i] - least[i % 2] < 20000);         /* a few ticks at most */
        CHECK(d.accu[1] > 0);
        CHECK_RC(pm_delete_program_thread(l.pid, l.pid), 0);
        looper_stop(&l);
        return 0;
}

static void test_third_party_counts_a_known_loop_exactly_as_root(void **state) {
        (void) state;
        require_pmu();
        assert_int_equal(third_party_body(NULL), 0);
}

static void test_third_party_counts_a_known_loop_exactly_as_nobody(void **state) {
        (void) state;
        require_pmu();
        assert_int_equal(run_as_nobody(third_party_body, NULL), 0);
}

/* One first-party round: start, the loop, stop; the thread's instructions in the round. */
static int first_party_round(uint64_t n, long long *ret) {
        pm_data_t d;

        CHECK_RC(pm_reset_data_mythread(), 0);
        CHECK_RC(pm_start_mythread(), 0);
        known_loop(n);
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(pm_get_data_mythread(&d), 0);
        *ret = d.accu[0];
        return 0;
}

/* As from outside, on the caller's own thread between pm_start_mythread and pm_stop_mythread: the
 * loop and the same user-mode instructions of libpmapi's start and stop each round. */
static int first_party_body(void *arg) {
        long long count, least[2] = { LLONG_MAX, LLONG_MAX }, extra;
        pm_prog_t prog;
        pm_info_t info;

        (void) arg;
        CHECK_RC(pm_init(PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT, &info), 0);
        one_event(&prog, PM_USER, inst_id, cyc_id);
        CHECK_RC(pm_set_program_mythread(&prog), 0);
        CHECK(first_party_round(N, &count) == 0);       /* the library's paths run once before */
        printf("# uid %d: first party, rounds of %llu and %llu iterations in turn (after a warm-up of %lld):",
               (int) getuid(), N, 3 * N, count);
        for (int i = 0; i < ROUNDS; i++) {
                CHECK(first_party_round(i % 2 ? 3 * N : N, &count) == 0);
                if (count < least[i % 2])
                        least[i % 2] = count;
                printf(" %lld", count);
        }
        extra = least[0] - 2 * (long long) N;
        printf(" instructions; %lld beyond the loop\n", extra);
        fflush(stdout);                 /* run_as_nobody's child ends with _exit */
        /* Not exact: libpmapi's own share varies by a hundred or so between calls (sd-bus). */
        CHECK(llabs(least[1] - least[0] - 4 * (long long) N) < 1000);
        CHECK(extra >= 0 && extra < FIRST_PARTY_OWN);
        CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

/* fn in a child process of root's own, so that a context it leaves behind on failure stays there. */
static int run_as_root_child(int (*fn)(void *arg)) {
        pid_t pid = fork();
        int status;

        if (pid < 0)
                return -1;
        if (pid == 0)
                _exit(fn(NULL));
        if (waitpid(pid, &status, 0) != pid)
                return -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void test_first_party_rounds_count_the_loop(void **state) {
        (void) state;
        require_pmu();
        assert_int_equal(run_as_root_child(first_party_body), 0);
        assert_int_equal(run_as_nobody(first_party_body, NULL), 0);
}

static void *loop_thread(void *arg) {
        known_loop(*(uint64_t *) arg);
        return NULL;
}

/* A process group: two threads of N iterations each count in it, with the creator's own work. */
static int group_body(void *arg) {
        uint64_t n = N;
        pthread_t t[2];
        pm_prog_t prog;
        pm_data_t d;
        pm_info_t info;

        (void) arg;
        CHECK_RC(pm_init(PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT, &info), 0);
        one_event(&prog, PM_USER | PM_COUNT | PM_PROCESS, inst_id, cyc_id);
        CHECK_RC(pm_set_program_mygroup(&prog), 0);
        for (int i = 0; i < 2; i++)
                CHECK(pthread_create(&t[i], NULL, loop_thread, &n) == 0);
        for (int i = 0; i < 2; i++)
                CHECK(pthread_join(t[i], NULL) == 0);
        CHECK_RC(pm_get_data_mygroup(&d), 0);
        printf("# uid %d: a group of 3 threads, 2 of %llu iterations: %lld instructions, %lld cycles, %d "
               "members\n", (int) getuid(), N, d.accu[0], d.accu[1], d.ginfo.members);
        fflush(stdout);
        CHECK(d.ginfo.members == 3);
        CHECK(d.accu[0] >= 4 * (long long) N && d.accu[0] < 4 * (long long) N + 200000);
        CHECK_RC(pm_delete_program_mygroup(), 0);
        return 0;
}

static void test_group_counts_its_threads_loops(void **state) {
        (void) state;
        require_pmu();
        assert_int_equal(run_as_root_child(group_body), 0);      /* its group is that whole process */
        assert_int_equal(run_as_nobody(group_body, NULL), 0);
}

/* Every counter the machine has, at once: instructions, cycles and PMU events on the rest. */
static void every_counter_counts(void) {
        int ids[MAX_COUNTERS];
        pm_info_t info;
        pm_prog_t prog;
        pm_data_t d;
        int n;

        assert_int_equal(pm_init(PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT, &info), 0);
        assert_true(info.maxpmcs >= 2);
        n = pmu_natives(&info, inst_id, cyc_id, ids, NULL, info.maxpmcs - 2);
        assert_int_equal(n, info.maxpmcs - 2);
        one_event(&prog, PM_USER, inst_id, cyc_id);
        for (int c = 2; c < info.maxpmcs; c++)
                prog.events[c] = ids[c - 2];
        assert_int_equal(pm_set_program_mythread(&prog), 0);
        assert_int_equal(pm_start_mythread(), 0);
        known_loop(N);
        assert_int_equal(pm_stop_mythread(), 0);
        assert_int_equal(pm_get_data_mythread(&d), 0);
        print_message("# %d events on %d counters: %lld instructions, %lld cycles\n", info.maxpmcs, info.maxpmcs,
                      d.accu[0], d.accu[1]);
        assert_true(d.accu[0] >= 2 * (long long) N && d.accu[0] < 2 * (long long) N + 200000);
        assert_true(d.accu[1] > 0);
        assert_int_equal(pm_delete_program_mythread(), 0);
}

static void test_every_counter_counts_at_once(void **state) {
        (void) state;
        require_pmu();
        every_counter_counts();
}

static bool carried(const int32_t *ids, size_t n, int id) {
        for (size_t i = 0; i < n; i++)
                if (ids[i] == id)
                        return true;
        return false;
}

/* Inheritance inside the kernel reads per-CPU counters of the events it carries at every switch:
 * a hardware event's holds one of the PMU's counters on every CPU, pinned, before any thread's
 * (test-hardware-carried). A software event's holds none: a thread's program still has the whole
 * PMU while another process's page-fault program is carried. */
static void test_carried_software_events_leave_the_pmu_alone(void **state) {
        int32_t ids[256];
        int fault_id, go[2], done[2];
        pm_info_t info;
        pm_prog_t prog;
        size_t n;
        pid_t pid;
        char c;

        (void) state;
        require_pmu();
        if (!kernel_inheritance()) {
                print_message("# SKIP: pmapid does not inherit inside the kernel here\n");
                skip();
        }
        assert_int_equal(pm_init(PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT, &info), 0);
        fault_id = find_event_id(&info, "PM_PAGE_FLT");
        n = carried_events(ids, 256);
        print_message("# CarriedEvents: %zu events\n", n);
        assert_true(carried(ids, n, fault_id));
        assert_false(carried(ids, n, inst_id));
        assert_false(carried(ids, n, cyc_id));
        assert_int_equal(pipe(go), 0);
        assert_int_equal(pipe(done), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                /* A carried program, alive while the parent counts: its sources are open. */
                program_one(&prog, PM_USER | PM_COUNT, fault_id);
                c = pm_set_program_mythread(&prog) == 0 ? 'y' : 'n';
                if (write(go[1], &c, 1) != 1 || read(done[0], &c, 1) != 1)
                        _exit(1);
                _exit(pm_delete_program_mythread() == 0 ? 0 : 1);
        }
        assert_int_equal(read(go[0], &c, 1), 1);
        assert_int_equal(c, 'y');
        every_counter_counts();
        assert_int_equal(write(done[1], "x", 1), 1);
        assert_int_equal(waitpid(pid, NULL, 0), pid);
        close(go[0]), close(go[1]), close(done[0]), close(done[1]);
}

#define MX_ITERATIONS 20000000ull       /* 40 ms of the guest's time: about ten of perf's rotations */

/* Two sets of maxpmcs events each, instructions in counter 0 of both: twice what the PMU holds, so
 * the kernel rotates the two perf groups for real. Each set counted part of the time; its scaled
 * estimate of the loop's instructions (accu_data * accu_purr / accu_time) is near the exact count. */
static void test_sets_past_the_pmu_rotate_and_scale(void **state) {
        pm_events_prog_t sets[2];
        int natives[2 * MAX_COUNTERS];
        pm_prog_mx_t prog;
        pm_data_mx_t d = {};
        pm_info_t info;
        int per_set, n;

        (void) state;
        require_pmu();
        assert_int_equal(pm_init(PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT, &info), 0);
        per_set = info.maxpmcs - 1;
        n = pmu_natives(&info, inst_id, cyc_id, natives, NULL, 2 * per_set);
        assert_int_equal(n, 2 * per_set);
        for (int k = 0; k < 2; k++) {
                for (int c = 0; c < MAX_COUNTERS; c++)
                        sets[k][c] = COUNT_NOTHING;
                sets[k][0] = inst_id;
                for (int c = 1; c <= per_set; c++)
                        sets[k][c] = natives[k * per_set + c - 1];
        }
        prog = (pm_prog_mx_t) { .mode.w = PM_USER, .slice_duration = PM_MX_SLICE_MIN, .nb_events_prog = 2,
                                .events_set = sets };
        assert_int_equal(pm_set_program_mythread_mx(&prog), 0);
        assert_int_equal(pm_start_mythread(), 0);
        known_loop(MX_ITERATIONS);
        assert_int_equal(pm_stop_mythread(), 0);
        assert_int_equal(pm_get_data_mythread_mx(&d), 0);
        assert_int_equal(d.nb_accu_mx, 2);
        for (int k = 0; k < 2; k++) {
                const pm_accu_mx_t *a = &d.accu_set[k];
                double ran = PM_TB_TO_NS(a->accu_time), on = PM_TB_TO_NS(a->accu_purr);
                double estimate = ran > 0 ? (double) a->accu_data[0] * on / ran : 0;
                double exact = 2.0 * MX_ITERATIONS;

                print_message("# set %d of %d events on %d counters: ran %.0f of %.0f ns (%.1f %%), %lld "
                              "instructions counted, %.0f estimated for %.0f (%+.2f %%)\n", k, per_set + 1,
                              info.maxpmcs, ran, on, 100.0 * ran / on, a->accu_data[0], estimate, exact,
                              100.0 * (estimate - exact) / exact);
                assert_true(ran > 0 && ran < 0.9 * on);                 /* rotated, not always on */
                assert_true(estimate > 0.95 * exact && estimate < 1.05 * exact);
        }
        free(d.accu_set);
        assert_int_equal(pm_delete_program_mythread(), 0);
}

#define READS 100
#define USER_ACCESS "/proc/sys/kernel/perf_user_access"

/* In a child of its own (a fresh library): the instructions, user and kernel mode, that READS
 * calls of pm_get_data_mythread take on a one-event program, per call. */
static int read_cost_body(void *arg) {
        long long *ret = arg, before, after;
        pm_prog_t prog;
        pm_data_t d;
        pm_info_t info;

        CHECK_RC(pm_init(PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT, &info), 0);
        one_event(&prog, PM_USER | PM_KERNEL | PM_COUNT, inst_id, COUNT_NOTHING);
        CHECK_RC(pm_set_program_mythread(&prog), 0);
        for (int i = 0; i < 10; i++)                    /* the in-process handle is set up */
                CHECK_RC(pm_get_data_mythread(&d), 0);
        CHECK_RC(pm_get_data_mythread(&d), 0);
        before = d.accu[0];
        for (int i = 0; i < READS; i++)
                CHECK_RC(pm_get_data_mythread(&d), 0);
        after = d.accu[0];
        *ret = (after - before) / (READS + 1);
        CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

static int write_user_access(const char *value) {
        FILE *f = fopen(USER_ACCESS, "we");
        int r;

        if (!f)
                return -1;
        r = fputs(value, f) < 0 ? -1 : 0;
        return fclose(f) == 0 ? r : -1;
}

static char saved_user_access[16];
static bool user_access_saved;

/* The sysctls as the test found them, whatever became of it. */
static int restore_sysctls(void **state) {
        (void) state;
        if (user_access_saved)
                (void) write_user_access(saved_user_access);
        user_access_saved = false;
        paranoid_restore_for_test();
        return 0;
}

static long long read_cost(const char *user_access, int paranoid) {
        long long *cost = mmap_shared_ll();
        long long r;
        pid_t pid;
        int status;

        assert_non_null(cost);
        assert_int_equal(write_user_access(user_access), 0);
        assert_int_equal(paranoid_set_for_test(paranoid), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
                _exit(read_cost_body(cost));
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        r = *cost;
        munmap(cost, sizeof(*cost));
        return r;
}

/* arm64: with kernel.perf_user_access=1 a read of one's own PMU counter is an mrs, no system call:
 * a call costs a few hundred instructions; with 0, a read() of the fd, thousands more in the kernel.
 * While a thread that asked runs, the kernel lets it read every counter in use on its CPU, other
 * users' CPU-wide ones too: pmapid asks only where anyone may count CPU-wide (perf_event_paranoid
 * <= 0), so at 2 the read is a read() whatever perf_user_access says. The sysctls are restored. */
static void test_in_process_read_of_a_pmu_counter_needs_no_system_call(void **state) {
        long long with_mrs, with_read, at_paranoid_2;
        FILE *f;

        (void) state;
        require_pmu();
        f = fopen(USER_ACCESS, "re");
        if (!f) {
                print_message("# SKIP: no %s (not arm64): x86's rdpmc needs no switch\n", USER_ACCESS);
                skip();
        }
        if (!fgets(saved_user_access, sizeof(saved_user_access), f))
                strcpy(saved_user_access, "0");
        fclose(f);
        user_access_saved = true;
        with_mrs = read_cost("1", 0);
        with_read = read_cost("0", 0);
        at_paranoid_2 = read_cost("1", 2);
        print_message("# pm_get_data_mythread in process, user and kernel instructions a call: %lld reading the "
                      "counter with mrs, %lld with read() (%.1fx); %lld at perf_event_paranoid 2 (pmapid does not "
                      "ask for user access there)\n", with_mrs, with_read,
                      (double) with_read / (double) (with_mrs ? with_mrs : 1), at_paranoid_2);
        assert_true(with_mrs > 0 && with_mrs < 1000);
        assert_true(with_read > with_mrs + 1000);
        assert_true(at_paranoid_2 > with_mrs + 1000);
}

static int setup(void **state) {
        pm_info_t info;

        (void) state;
        if (bus_fixture_start(&fixture, NULL) != 0)
                return -1;
        if (pm_init(PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT, &info) != 0)
                return -1;
        inst_id = find_event_id(&info, "PM_INST_CMPL");
        cyc_id = find_event_id(&info, "PM_CYC");
        return 0;
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_third_party_counts_a_known_loop_exactly_as_root),
                cmocka_unit_test(test_third_party_counts_a_known_loop_exactly_as_nobody),
                cmocka_unit_test(test_first_party_rounds_count_the_loop),
                cmocka_unit_test(test_group_counts_its_threads_loops),
                cmocka_unit_test(test_every_counter_counts_at_once),
                cmocka_unit_test(test_carried_software_events_leave_the_pmu_alone),
                cmocka_unit_test(test_sets_past_the_pmu_rotate_and_scale),
                cmocka_unit_test_teardown(test_in_process_read_of_a_pmu_counter_needs_no_system_call,
                                          restore_sysctls),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
