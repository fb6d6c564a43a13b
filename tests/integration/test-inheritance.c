/* test-inheritance.c: new threads and child processes inherit their creator's PM state (program,
 * own counting state, group) with counters at zero (docs/design.md, R1 and A9; scenario S3),
 * from their first instruction when created through libpmapi, and a little later when created
 * any other way. Real counters, exact page-fault relations, as root and as an unprivileged user. */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "check.h"
#include "pmapi.h"
#include "workload.h"

static BusFixture fixture;

/* A thread that touched n fresh pages counts all n (none of its own work goes uncounted) and at
 * most LIBRARY_FAULTS more, libpmapi's own: its counted window ends in one bus call and begins in
 * the reply to another (Start), or at its first instruction where pmapid inherits inside the
 * kernel, and sd-bus calloc()s the messages. glibc serves calloc past its per-thread cache, from
 * heap pages that may not have been written since the test's last fork (run_as_nobody): a
 * copy-on-write fault each, and one more if the stack grows a page. Born in the kernel, a thread
 * also counts glibc's start of it (start_thread's first writes to its fresh stack and TLS), as
 * perf stat would: THREAD_START_FAULTS more. */
#define LIBRARY_FAULTS 3
#define THREAD_START_FAULTS 2
#define CHECK_PAGES(value, n) \
        CHECK_RANGE(value, (long long) (n), (long long) (n) + LIBRARY_FAULTS + THREAD_START_FAULTS)

/* n pages touched by a new thread, counted: exactly what the kernel counted where the thread was born
 * counting, else n and the library's own few. */
#define CHECK_BORN(value, n, k) do {                                                               \
                if (kernel_inheritance()) {                                                        \
                        CHECK((value) >= (long long) (n));                                         \
                        CHECK_RANGE(value, (k).before, (k).after);                                 \
                } else                                                                             \
                        CHECK_PAGES(value, n);                                                     \
        } while (0)

/* S3: aux inherits main's program with counting off; each thread counts only its own work. */
static pm_prog_t s3_prog;

static void *s3_aux(void *p) {
        pm_data_t *d2 = p;
        pm_prog_t got;

        if (pm_get_program_mythread(&got) != 0 || got.mode.b.count != 0 ||
            memcmp(got.events, s3_prog.events, sizeof(got.events)) != 0)
                return (void *) 1;
        if (pm_set_program_mythread(&s3_prog) != PM_EEXIST)     /* inherited: already there */
                return (void *) 2;
        if (touch_fresh_pages(100) != 0)                        /* before its start: not counted */
                return (void *) 3;
        if (pm_start_mythread() != 0 || touch_fresh_pages(700) != 0 || pm_stop_mythread() != 0 ||
            pm_get_data_mythread(d2) != 0)
                return (void *) 4;
        return NULL;
}

static int s3_body(void *arg) {
        pm_data_t d, d2;
        void *ret;
        pthread_t t;

        (void) arg;
        CHECK(page_fault_program(&s3_prog, PM_USER) == 0);
        CHECK_RC(pm_set_program_mythread(&s3_prog), 0);
        CHECK(pthread_create(&t, NULL, s3_aux, &d2) == 0);
        CHECK(pthread_join(t, &ret) == 0);
        CHECK(ret == NULL);
        CHECK_RC(pm_start_mythread(), 0);
        CHECK(touch_fresh_pages(400) == 0);
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(pm_get_data_mythread(&d), 0);
        CHECK_PAGES(d2.accu[0], 700);
        CHECK_PAGES(d2.accu[1], 700);
        CHECK_PAGES(d.accu[0], 400);
        CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

/* A thread created by a counting thread counts from its first instruction: the pages it touches
 * first are all there, in its data and in the group. */
typedef struct FirstTouch {
        size_t pages;
        pm_data_t d;
        KernelView k;
        int rc;
} FirstTouch;

static void *first_touch(void *p) {
        FirstTouch *f = p;

        f->rc = touch_fresh_pages(f->pages);
        if (f->rc == 0)
                f->rc = stop_seen_by_kernel(&f->k);
        if (f->rc == 0)
                f->rc = pm_get_data_mythread(&f->d);
        return NULL;
}

static int first_instruction_body(void *arg) {
        FirstTouch f = { .pages = 600 };
        pm_data_t d, g;
        pm_prog_t prog;
        pthread_t t;

        (void) arg;
        CHECK(page_fault_program(&prog, PM_USER | PM_COUNT) == 0);
        CHECK_RC(pm_set_program_mythread(&prog), 0);           /* a plain thread context */
        CHECK(pthread_create(&t, NULL, first_touch, &f) == 0);
        CHECK(pthread_join(t, NULL) == 0);
        CHECK_RC(f.rc, 0);
        CHECK_BORN(f.d.accu[0], 600, f.k);
        CHECK_RC(pm_delete_program_mythread(), 0);

        f.pages = 900;
        CHECK_RC(pm_set_program_mygroup(&prog), 0);            /* and a group member */
        CHECK(pthread_create(&t, NULL, first_touch, &f) == 0);
        CHECK(pthread_join(t, NULL) == 0);
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(f.rc, 0);
        CHECK_BORN(f.d.accu[0], 900, f.k);
        CHECK_RC(pm_get_data_mythread(&d), 0);
        CHECK_RC(pm_get_data_mygroup(&g), 0);
        CHECK(g.accu[0] == d.accu[0] + f.d.accu[0] && g.accu[1] == d.accu[1] + f.d.accu[1]);
        CHECK(g.ginfo.members == 2);
        CHECK_RC(pm_delete_program_mygroup(), 0);
        return 0;
}

/* Holds the burst's threads until every one has counted, so that all their contexts exist at once.
 * Unlike a barrier it lets the creator give up: when a thread could not be created, or has not
 * arrived after GATE_TIMEOUT_S, the others are let go and the test fails instead of waiting. */
#define GATE_TIMEOUT_S 60

typedef struct Gate {
        pthread_mutex_t lock;
        pthread_cond_t changed;         /* on CLOCK_MONOTONIC */
        unsigned n_arrived;
        bool open;
} Gate;

static int gate_init(Gate *g) {
        pthread_condattr_t attr;

        *g = (Gate) { .lock = PTHREAD_MUTEX_INITIALIZER };
        if (pthread_condattr_init(&attr) != 0)
                return -1;
        if (pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) != 0 ||
            pthread_cond_init(&g->changed, &attr) != 0) {
                pthread_condattr_destroy(&attr);
                return -1;
        }
        pthread_condattr_destroy(&attr);
        return 0;
}

/* Arrives and waits until the creator opens the gate, which it does on every path. */
static void gate_pass(Gate *g) {
        pthread_mutex_lock(&g->lock);
        g->n_arrived++;
        pthread_cond_broadcast(&g->changed);
        while (!g->open)
                pthread_cond_wait(&g->changed, &g->lock);
        pthread_mutex_unlock(&g->lock);
}

/* Waits up to GATE_TIMEOUT_S for n arrivals, then opens the gate either way; false on timeout. */
static bool gate_open_after(Gate *g, unsigned n) {
        struct timespec deadline;
        bool all;
        int r = 0;

        (void) clock_gettime(CLOCK_MONOTONIC, &deadline);
        deadline.tv_sec += GATE_TIMEOUT_S;
        pthread_mutex_lock(&g->lock);
        while (g->n_arrived < n && r == 0)
                r = pthread_cond_timedwait(&g->changed, &g->lock, &deadline);
        all = g->n_arrived >= n;
        g->open = true;
        pthread_cond_broadcast(&g->changed);
        pthread_mutex_unlock(&g->lock);
        return all;
}

static void gate_destroy(Gate *g) {
        pthread_cond_destroy(&g->changed);
        pthread_mutex_destroy(&g->lock);
}

/* 64 threads created back to back, each touching a different number of pages at once, and each
 * creating a grandchild: every count exact, and the group the exact sum. */
#define BURST 64

typedef struct Burst {
        Gate *all_counted;
        size_t pages;
        FirstTouch grandchild;
        pm_data_t first, d;             /* after its pages; in all (creating a thread faults too) */
        KernelView k;                   /* around the stop before first */
        int rc;
} Burst;

static void *burst_thread(void *p) {
        Burst *b = p;
        pthread_t t;

        b->rc = touch_fresh_pages(b->pages);
        if (b->rc == 0)
                b->rc = stop_seen_by_kernel(&b->k);     /* the read's own allocations must not count */
        if (b->rc == 0)
                b->rc = pm_get_data_mythread(&b->first);
        if (b->rc == 0)
                b->rc = pm_start_mythread();
        if (b->rc == 0)
                b->rc = pthread_create(&t, NULL, first_touch, &b->grandchild);
        if (b->rc == 0)
                b->rc = pthread_join(t, NULL);
        if (b->rc == 0)
                b->rc = b->grandchild.rc;
        if (b->rc == 0)
                b->rc = pm_stop_mythread();
        if (b->rc == 0)
                b->rc = pm_get_data_mythread(&b->d);
        gate_pass(b->all_counted);      /* all alive at once, then all exit together */
        return NULL;
}

/* Creates the burst, stops the creator and lets the burst exit once all have counted; joins every
 * thread it created, also when something failed. */
static int burst_run(Burst b[BURST], Gate *gate) {
        pthread_t t[BURST];
        bool all_arrived;
        int n, stop_rc;

        for (n = 0; n < BURST; n++) {
                b[n] = (Burst) { .all_counted = gate, .pages = 20 + 7 * (size_t) n,
                                 .grandchild = { .pages = 5 + (size_t) n } };
                if (pthread_create(&t[n], NULL, burst_thread, &b[n]) != 0)
                        break;
        }
        stop_rc = pm_stop_mythread();
        all_arrived = gate_open_after(gate, (unsigned) n);
        for (int i = 0; i < n; i++)
                CHECK(pthread_join(t[i], NULL) == 0);
        CHECK(n == BURST);
        CHECK(all_arrived);
        CHECK_RC(stop_rc, 0);
        return 0;
}

static int burst_body(void *arg) {
        static Burst b[BURST];
        Gate gate;
        pm_data_t d, g, sum = {};
        pm_prog_t prog;
        int r;

        (void) arg;
        uint64_t late_before = attached_late();

        CHECK(page_fault_program(&prog, PM_USER | PM_COUNT) == 0);
        CHECK_RC(pm_set_program_mygroup(&prog), 0);
        CHECK(gate_init(&gate) == 0);
        r = burst_run(b, &gate);
        gate_destroy(&gate);
        CHECK(r == 0);
        CHECK_RC(pm_get_data_mythread(&d), 0);
        for (int i = 0; i < BURST; i++) {
                CHECK_RC(b[i].rc, 0);
                CHECK_BORN(b[i].first.accu[0], b[i].pages, b[i].k);
                CHECK_BORN(b[i].grandchild.d.accu[0], b[i].grandchild.pages, b[i].grandchild.k);
                for (int k = 0; k < 2; k++)
                        sum.accu[k] += b[i].d.accu[k] + b[i].grandchild.d.accu[k];
        }
        CHECK_RC(pm_get_data_mygroup(&g), 0);
        CHECK(g.accu[0] == d.accu[0] + sum.accu[0] && g.accu[1] == d.accu[1] + sum.accu[1]);
        CHECK(g.ginfo.members == 1 + 2 * BURST);
        CHECK(attached_late() == late_before);          /* every one called Inherit */
        CHECK(g.ginfo.flags.b.consistent == 1);
        CHECK_RC(pm_delete_program_mygroup(), 0);
        return 0;
}

/* A member's forked child is a member too (a descendant group follows fork), counted from fork()'s
 * return, or from its first instruction where pmapid inherits inside the kernel: then it counts
 * what the kernel's own count of its faults (getrusage, which starts at 0 in a new process) says,
 * fork's return path in libc and the libraries' fork handlers included. Its pages reach the group
 * after it exits. */
static int fork_body(void *arg) {
        pm_data_t d, g, child;
        pm_prog_t prog;
        int fds[2], status;
        pid_t pid;

        (void) arg;
        CHECK(page_fault_program(&prog, PM_USER | PM_COUNT) == 0);
        CHECK(pipe(fds) == 0);
        CHECK_RC(pm_set_program_mygroup(&prog), 0);
        pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                pm_data_t c = {};
                struct rusage before = {}, after = {};
                int ok = touch_fresh_pages(400) == 0 && getrusage(RUSAGE_SELF, &before) == 0 &&
                         pm_stop_mythread() == 0 && getrusage(RUSAGE_SELF, &after) == 0 &&
                         pm_get_data_mythread(&c) == 0;
                /* The kernel's own count before and after the stop, which took effect in between. */
                c.accu[2] = before.ru_minflt + before.ru_majflt;
                c.accu[3] = after.ru_minflt + after.ru_majflt;
                _exit(ok && write(fds[1], &c, sizeof(c)) == sizeof(c) ? 0 : 1);
        }
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
        CHECK(read(fds[0], &child, sizeof(child)) == sizeof(child));
        close(fds[0]);
        close(fds[1]);
        /* Copy-on-write faults on pages shared with the parent count too. */
        if (kernel_inheritance())
                CHECK_RANGE(child.accu[0], child.accu[2], child.accu[3]);
        else
                CHECK(child.accu[0] >= 400 && child.accu[0] <= 450);
        CHECK(child.accu[0] >= 400);
        child.accu[2] = child.accu[3] = 0;
        CHECK_RC(pm_get_data_mythread(&d), 0);
        CHECK(wait_for_context_count(1, 10000) == 0);
        CHECK_RC(pm_get_data_mygroup(&g), 0);
        CHECK(g.accu[0] == d.accu[0] + child.accu[0] && g.accu[1] == d.accu[1] + child.accu[1]);
        CHECK(g.ginfo.members == 2);
        CHECK_RC(pm_delete_program_mygroup(), 0);
        return 0;
}

/* PM_NO_INHERIT: new threads get nothing, neither from the library nor from fork records. */
static void *no_context_expected(void *p) {
        pm_data_t d;

        (void) p;
        (void) touch_fresh_pages(50);
        usleep(50 * 1000);              /* long past any fork record */
        return (void *) (intptr_t) pm_get_data_mythread(&d);
}

static int no_inherit_body(void *arg) {
        pm_prog_t prog;
        pthread_t t;
        void *ret;

        (void) arg;
        CHECK(page_fault_program(&prog, PM_USER | PM_COUNT | PM_NO_INHERIT) == 0);
        CHECK_RC(pm_set_program_mythread(&prog), 0);
        CHECK(pthread_create(&t, NULL, no_context_expected, NULL) == 0);
        CHECK(pthread_join(t, &ret) == 0);
        CHECK((intptr_t) ret == PM_ENOCONTEXT);
        CHECK_RC(pm_delete_program_mythread(), 0);
        CHECK_RC(pm_set_program_mygroup(&prog), 0);
        CHECK(pthread_create(&t, NULL, no_context_expected, NULL) == 0);
        CHECK(pthread_join(t, &ret) == 0);
        CHECK((intptr_t) ret == PM_ENOCONTEXT);
        CHECK_RC(pm_delete_program_mygroup(), 0);
        return 0;
}

/* A thread libpmapi did not create (libc's own pthread_create, as another library would call it) is
 * born counting where pmapid inherits inside the kernel, and otherwise attached from its fork
 * record: late, but attached, with the inherited state. */
typedef int (*PthreadCreate)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static void *late_thread(void *p) {
        FirstTouch *f = p;
        pm_prog_t got;

        for (int i = 0; i < 200; i++) {         /* 200 ms at most */
                (void) touch_fresh_pages(f->pages);
                if (pm_get_program_mythread(&got) == 0)
                        break;
                usleep(1000);
        }
        f->rc = pm_get_program_mythread(&got);
        if (f->rc == 0 && !got.mode.b.count)
                f->rc = -1;
        if (f->rc == 0) {
                /* Every call below once before, so that their allocations are not first touches. */
                (void) pm_get_data_mythread(&f->d);
                (void) pm_stop_mythread();
                (void) pm_start_mythread();
                (void) pm_reset_data_mythread();
                (void) touch_fresh_pages(f->pages);
                (void) pm_stop_mythread();
                f->rc = pm_get_data_mythread(&f->d);
        }
        return NULL;
}

static int late_attach_body(void *arg) {
        PthreadCreate libc_create = (PthreadCreate) dlvsym(RTLD_NEXT, "pthread_create", "GLIBC_2.34");
        FirstTouch f = { .pages = 250 };
        uint64_t before;
        pm_prog_t prog;
        pthread_t t;

        (void) arg;
        CHECK(libc_create != NULL);
        CHECK(page_fault_program(&prog, PM_USER | PM_COUNT) == 0);
        CHECK_RC(pm_set_program_mythread(&prog), 0);
        before = attached_late();
        CHECK(libc_create(&t, NULL, late_thread, &f) == 0);
        CHECK(pthread_join(t, NULL) == 0);
        CHECK_RC(f.rc, 0);
        CHECK_NEAR(f.d.accu[0], 252, 4);          /* + what sd-bus allocates in a thread libpmapi did not warm */
        CHECK(attached_late() == before + (kernel_inheritance() ? 0 : 1));
        CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

#define BOTH_USERS(name, body)                                                                     \
        static void name(void **state) {                                                           \
                (void) state;                                                                      \
                assert_int_equal(body(NULL), 0);                                                   \
                assert_int_equal(run_as_nobody(body, NULL), 0);                                    \
        }

BOTH_USERS(test_s3_threads_inherit_the_program_and_count_their_own, s3_body)
BOTH_USERS(test_new_thread_counts_from_its_first_instruction, first_instruction_body)
BOTH_USERS(test_burst_of_64_threads_and_grandchildren_is_exact, burst_body)
BOTH_USERS(test_forked_child_of_a_member_is_a_member, fork_body)
BOTH_USERS(test_no_inherit_gives_new_threads_nothing, no_inherit_body)
BOTH_USERS(test_threads_not_created_by_libpmapi_are_attached_late, late_attach_body)

/* CarriedEvents: the software events where the kernel inherits (PM_PAGE_FLT among them), none where
 * it does not; the arm64 guest checks that its PMU's events are not there (test-hardware-counts). */
static void test_carried_events_are_the_software_events(void **state) {
        int32_t ids[256];
        pm_info_t info;
        size_t n = carried_events(ids, 256);
        bool fault = false;
        int fault_id;

        (void) state;
        assert_int_equal(pm_init(PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT, &info), 0);
        fault_id = find_event_id(&info, "PM_PAGE_FLT");
        for (size_t i = 0; i < n; i++)
                fault = fault || ids[i] == fault_id;
        print_message("# KernelInheritance %d, CarriedEvents: %zu events, PM_PAGE_FLT %s\n", kernel_inheritance(), n,
                      fault ? "among them" : "not among them");
        if (kernel_inheritance())
                assert_true(fault);
        else
                assert_int_equal(n, 0);
}

static int setup(void **state) {
        const char *forced = getenv("PMAPID_KERNEL_INHERITANCE"), *no_bpf = getenv("PMAPI_TEST_WITHOUT_CAP_BPF");

        (void) state;
        if (bus_fixture_start_bus(&fixture) != 0)
                return -1;
        fixture.capture_log = no_bpf != NULL;   /* after the bus: starting it clears the fixture */
        if (bus_fixture_start_daemon(&fixture, NULL) != 0)
                return -1;
        /* The fallback, when forced, is what runs: the same tests then cover it. */
        if (forced && strcmp(forced, "no") == 0 && kernel_inheritance()) {
                fprintf(stderr, "# PMAPID_KERNEL_INHERITANCE=no, and pmapid inherits in the kernel\n");
                return -1;
        }
        /* Without CAP_BPF, pmapid says why at start and falls back. */
        if (no_bpf && (kernel_inheritance() ||
                       !bus_fixture_log_has(&fixture, "Inheritance inside the kernel is not available",
                                            "the kernel refused BPF", NULL))) {
                fprintf(stderr, "# without CAP_BPF, pmapid did not say it falls back, or did not\n");
                return -1;
        }
        return 0;
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_s3_threads_inherit_the_program_and_count_their_own),
                cmocka_unit_test(test_new_thread_counts_from_its_first_instruction),
                cmocka_unit_test(test_burst_of_64_threads_and_grandchildren_is_exact),
                cmocka_unit_test(test_forked_child_of_a_member_is_a_member),
                cmocka_unit_test(test_no_inherit_gives_new_threads_nothing),
                cmocka_unit_test(test_threads_not_created_by_libpmapi_are_attached_late),
                cmocka_unit_test(test_carried_events_are_the_software_events),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
