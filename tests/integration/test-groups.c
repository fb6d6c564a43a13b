/* test-groups.c: counting groups with real counters: scenarios S4 and S5 of the AIX programming
 * guide and the derived tests T1-T8 (docs/design.md, "Acceptance scenarios", which names the rows
 * of "Group accounting" each one checks), with exact relations between the group's data and its
 * members' on freshly touched pages, as root and as an unprivileged user. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "check.h"
#include "pmapi.h"
#include "workload.h"

static BusFixture fixture;

/* Every counter of a equals b + c. */
static int check_sum(const pm_data_t *a, const pm_data_t *b, const pm_data_t *c) {
        for (int k = 0; k < MAX_COUNTERS; k++)
                if (a->accu[k] != b->accu[k] + (c ? c->accu[k] : 0)) {
                        fprintf(stderr, "counter %d: %lld != %lld + %lld\n", k, a->accu[k], b->accu[k],
                                c ? c->accu[k] : 0);
                        return 1;
                }
        return 0;
}

/* A second thread that runs numbered steps in lockstep with the main thread. */
typedef struct Aux {
        pthread_barrier_t barrier;
        int (*step)(struct Aux *a, int n);
        pm_data_t d, d_before;          /* d_before: read by steps that must not count */
        KernelView k;                   /* around the stop of a step that counts from its birth */
        int failed;
} Aux;

static void *aux_main(void *p) {
        Aux *a = p;

        for (int n = 0;; n++) {
                int r;

                pthread_barrier_wait(&a->barrier);
                r = a->step(a, n);
                if (r != 0)
                        a->failed = r > 0 ? 1 : 0;
                pthread_barrier_wait(&a->barrier);
                if (r != 0)
                        return NULL;
        }
}

/* Lets aux run its next step and waits until it is done. */
static void aux_run_step(Aux *a) {
        pthread_barrier_wait(&a->barrier);
        pthread_barrier_wait(&a->barrier);
}

static int aux_start(Aux *a, pthread_t *t, int (*step)(Aux *a, int n)) {
        memset(a, 0, sizeof(*a));
        a->step = step;
        CHECK(pthread_barrier_init(&a->barrier, NULL, 2) == 0);
        CHECK(pthread_create(t, NULL, aux_main, a) == 0);
        return 0;
}

/* S4: the group of main and aux is the sum of both; members 2, consistent, not a process group.
 * pm_start_mygroup turned main on, so aux inherits "on" and its start is a no-op: it counts from its
 * birth, where pmapid inherits inside the kernel its very first instruction. */
static int s4_aux(Aux *a, int n) {
        (void) n;
        CHECK_RC(pm_start_mythread(), 0);
        CHECK(touch_fresh_pages(300) == 0);
        CHECK_RC(stop_seen_by_kernel(&a->k), 0);
        CHECK_RC(pm_get_data_mythread(&a->d), 0);
        if (kernel_inheritance())
                CHECK_SEEN_BY_KERNEL(a->d.accu[0], 300, a->k);
        else
                CHECK_NEAR(a->d.accu[0], 300, 2);
        return -1;                      /* done: the thread exits */
}

static int s4_body(void *arg) {
        pm_prog_t prog;
        pm_data_t d, g;
        pthread_t t;
        Aux a;

        (void) arg;
        CHECK(page_fault_program(&prog, PM_USER) == 0);
        CHECK_RC(pm_set_program_mygroup(&prog), 0);
        CHECK_RC(pm_start_mygroup(), 0);
        CHECK(aux_start(&a, &t, s4_aux) == 0);
        aux_run_step(&a);
        CHECK(pthread_join(t, NULL) == 0 && !a.failed);
        CHECK_RC(pm_start_mythread(), 0);       /* the guide's (2): already on, a no-op */
        CHECK(touch_fresh_pages(500) == 0);
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(pm_get_data_mythread(&d), 0);
        CHECK(d.accu[0] >= 500);
        CHECK_RC(pm_get_data_mygroup(&g), 0);
        CHECK(check_sum(&g, &d, &a.d) == 0);
        CHECK(g.ginfo.members == 2);
        CHECK(g.ginfo.flags.b.consistent == 1);
        CHECK(g.ginfo.flags.b.process == 0);
        CHECK_RC(pm_delete_program_mygroup(), 0);
        return 0;
}

/* S5: main resets itself: the group loses main's data and keeps the dead aux's; still consistent. */
static int s5_aux(Aux *a, int n) {
        (void) n;
        CHECK(touch_fresh_pages(400) == 0);     /* counted: aux inherited "on" */
        CHECK_RC(stop_seen_by_kernel(&a->k), 0);
        CHECK_RC(pm_get_data_mythread(&a->d), 0);
        if (kernel_inheritance())
                CHECK_SEEN_BY_KERNEL(a->d.accu[0], 400, a->k);
        else
                CHECK(a->d.accu[0] >= 400);
        return -1;
}

static int s5_body(void *arg) {
        pm_prog_t prog;
        pm_data_t d, g;
        pthread_t t;
        Aux a;

        (void) arg;
        CHECK(page_fault_program(&prog, PM_USER | PM_COUNT) == 0);
        CHECK_RC(pm_set_program_mygroup(&prog), 0);
        CHECK(aux_start(&a, &t, s5_aux) == 0);
        CHECK(touch_fresh_pages(250) == 0);
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(pm_reset_data_mythread(), 0);
        aux_run_step(&a);
        CHECK(pthread_join(t, NULL) == 0 && !a.failed);
        CHECK(wait_for_context_count(1, 10000) == 0);    /* aux's exit handled: retained, not live */
        CHECK_RC(pm_get_data_mygroup(&g), 0);
        CHECK(check_sum(&g, &a.d, NULL) == 0);
        CHECK(g.ginfo.members == 2);
        CHECK(g.ginfo.flags.b.consistent == 1);
        CHECK_RC(pm_get_data_mythread(&d), 0);
        for (int k = 0; k < MAX_COUNTERS; k++)
                CHECK(d.accu[k] == 0);
        CHECK_RC(pm_delete_program_mygroup(), 0);
        return 0;
}

/* T1 leave and T2 death: a leaver takes exactly its data out; a dead member's data stays and it
 * stays counted in members. */
static int leave_aux(Aux *a, int n) {
        switch (n) {
        case 0:
                CHECK_RC(pm_start_mythread(), 0);
                CHECK(touch_fresh_pages(200) == 0);
                CHECK_RC(pm_stop_mythread(), 0);
                CHECK_RC(pm_get_data_mythread(&a->d), 0);
                return 0;
        default:
                CHECK_RC(pm_delete_program_mythread(), 0);
                CHECK_RC(pm_get_data_mygroup(&a->d), PM_ENOCONTEXT);
                return -1;
        }
}

static int die_aux(Aux *a, int n) {
        (void) n;
        CHECK_RC(pm_start_mythread(), 0);
        CHECK(touch_fresh_pages(150) == 0);
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(pm_get_data_mythread(&a->d), 0);
        return -1;
}

static int leave_and_death_body(void *arg) {
        pm_prog_t prog;
        pm_data_t m, g1, g2, g3;
        pthread_t t;
        Aux a, b;

        (void) arg;
        CHECK(page_fault_program(&prog, PM_USER | PM_COUNT) == 0);
        CHECK_RC(pm_set_program_mygroup(&prog), 0);
        CHECK_RC(pm_stop_mythread(), 0);        /* children inherit "off" and start themselves */
        CHECK_RC(pm_start_mythread(), 0);
        CHECK(touch_fresh_pages(100) == 0);
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(pm_get_data_mythread(&m), 0);

        CHECK(aux_start(&a, &t, leave_aux) == 0);
        aux_run_step(&a);
        CHECK(!a.failed);
        CHECK_RC(pm_get_data_mygroup(&g1), 0);
        CHECK(check_sum(&g1, &m, &a.d) == 0);
        CHECK(g1.ginfo.members == 2);
        aux_run_step(&a);                       /* T1: aux leaves */
        CHECK(pthread_join(t, NULL) == 0 && !a.failed);
        CHECK_RC(pm_get_data_mygroup(&g2), 0);
        CHECK(check_sum(&g2, &m, NULL) == 0);
        CHECK(g2.ginfo.members == 1 && g2.ginfo.flags.b.consistent == 1);

        CHECK(aux_start(&b, &t, die_aux) == 0);   /* T2: b dies a member */
        aux_run_step(&b);
        CHECK(pthread_join(t, NULL) == 0 && !b.failed);
        CHECK(wait_for_context_count(1, 10000) == 0);
        CHECK_RC(pm_get_data_mygroup(&g3), 0);
        CHECK(check_sum(&g3, &m, &b.d) == 0);
        CHECK(g3.ginfo.members == 2 && g3.ginfo.flags.b.consistent == 1);
        CHECK_RC(pm_delete_program_mygroup(), 0);
        return 0;
}

/* T3: a group reset zeroes the group and the caller only, and marks a group of two inconsistent;
 * with one member it stays consistent. A member leaving afterwards takes out all its data,
 * including what predates the reset, so the group can read below zero (why it is inconsistent). */
static int reset_aux(Aux *a, int n) {
        switch (n) {
        case 0:
                CHECK_RC(pm_start_mythread(), 0);
                CHECK(touch_fresh_pages(120) == 0);
                CHECK_RC(pm_stop_mythread(), 0);
                CHECK_RC(pm_get_data_mythread(&a->d), 0);
                return 0;
        case 1: {
                pm_data_t d;
                CHECK_RC(pm_get_data_mythread(&d), 0);          /* untouched by the group reset */
                CHECK(check_sum(&d, &a->d, NULL) == 0);
                CHECK_RC(pm_start_mythread(), 0);
                CHECK(touch_fresh_pages(80) == 0);
                CHECK_RC(pm_stop_mythread(), 0);
                CHECK_RC(pm_get_data_mythread(&d), 0);
                a->d = d;
                return 0;
        }
        default:
                CHECK_RC(pm_delete_program_mythread(), 0);
                return -1;
        }
}

static int group_reset_body(void *arg) {
        pm_data_t d, g, before_leave;
        pm_prog_t prog;
        pthread_t t;
        Aux a;

        (void) arg;
        CHECK(page_fault_program(&prog, PM_USER) == 0);
        CHECK_RC(pm_set_program_mygroup(&prog), 0);
        CHECK_RC(pm_start_mygroup(), 0);
        CHECK(touch_fresh_pages(60) == 0);
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(pm_reset_data_mygroup(), 0);           /* one member: stays consistent */
        CHECK_RC(pm_get_data_mygroup(&g), 0);
        CHECK(g.accu[0] == 0 && g.accu[1] == 0 && g.ginfo.flags.b.consistent == 1);

        CHECK(aux_start(&a, &t, reset_aux) == 0);
        aux_run_step(&a);                               /* aux counts 120 */
        CHECK(!a.failed);
        CHECK_RC(pm_start_mythread(), 0);
        CHECK(touch_fresh_pages(70) == 0);
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(pm_reset_data_mygroup(), 0);
        CHECK_RC(pm_get_data_mygroup(&g), 0);
        CHECK(g.accu[0] == 0 && g.accu[1] == 0);
        CHECK(g.ginfo.flags.b.consistent == 0 && g.ginfo.members == 2);
        CHECK_RC(pm_get_data_mythread(&d), 0);
        CHECK(d.accu[0] == 0 && d.accu[1] == 0);
        before_leave = a.d;
        aux_run_step(&a);                               /* aux checks its data, counts 80 more */
        CHECK(!a.failed);
        CHECK_RC(pm_get_data_mygroup(&g), 0);
        for (int k = 0; k < 2; k++)
                CHECK(g.accu[k] == a.d.accu[k] - before_leave.accu[k]);
        aux_run_step(&a);                               /* aux leaves with all of its data */
        CHECK(pthread_join(t, NULL) == 0 && !a.failed);
        CHECK_RC(pm_get_data_mygroup(&g), 0);
        for (int k = 0; k < 2; k++)
                CHECK(g.accu[k] == -before_leave.accu[k]);
        CHECK(g.ginfo.flags.b.consistent == 0 && g.ginfo.members == 1);
        CHECK_RC(pm_reset_data_mygroup(), 0);           /* a reset with one member: consistent again */
        CHECK_RC(pm_get_data_mygroup(&g), 0);
        CHECK(g.accu[0] == 0 && g.ginfo.flags.b.consistent == 1);
        CHECK_RC(pm_delete_program_mygroup(), 0);
        return 0;
}

/* T4: a group delete removes every member's context; a former member may set a program again. */
static int delete_aux(Aux *a, int n) {
        pm_prog_t prog;
        pm_data_t d;

        switch (n) {
        case 0:
                CHECK_RC(pm_get_data_mythread(&d), 0);
                return 0;
        default:
                CHECK_RC(pm_get_data_mythread(&d), PM_ENOCONTEXT);
                CHECK_RC(pm_get_data_mygroup(&d), PM_ENOCONTEXT);
                CHECK(page_fault_program(&prog, PM_USER) == 0);
                CHECK_RC(pm_set_program_mythread(&prog), 0);
                CHECK_RC(pm_get_data_mygroup(&d), PM_ENOGROUP);
                CHECK_RC(pm_delete_program_mythread(), 0);
                (void) a;
                return -1;
        }
}

static int group_delete_body(void *arg) {
        pm_prog_t prog;
        pm_data_t d;
        pthread_t t;
        Aux a;

        (void) arg;
        CHECK(page_fault_program(&prog, PM_USER | PM_COUNT) == 0);
        CHECK_RC(pm_set_program_mygroup(&prog), 0);
        CHECK(aux_start(&a, &t, delete_aux) == 0);
        aux_run_step(&a);
        CHECK(!a.failed);
        CHECK_RC(pm_delete_program_mygroup(), 0);
        CHECK_RC(pm_get_data_mythread(&d), PM_ENOCONTEXT);
        aux_run_step(&a);
        CHECK(pthread_join(t, NULL) == 0 && !a.failed);
        CHECK(wait_for_context_count(0, 10000) == 0);
        return 0;
}

/* T5: a member counts only when its own state and the group's are both on; a group stop and start
 * resume only members whose own state is on. */
static int and_aux(Aux *a, int n) {
        pm_data_t d;

        /* Step 3 runs with the group off. Its count is compared with a read taken then, not with
         * step 2's: after step 2's read the thread still counts until the group stops, and the
         * library's own handling of that reply may fault (a heap page written for the first time
         * since the fork into nobody). */
        if (n == 3)
                CHECK_RC(pm_get_data_mythread(&a->d_before), 0);
        CHECK(touch_fresh_pages(10 + n) == 0);
        CHECK_RC(pm_get_data_mythread(&d), 0);
        a->d = d;
        if (n == 0)
                CHECK_RC(pm_start_mythread(), 0);       /* own state on, the group's still off */
        return n == 5 ? -1 : 0;
}

static int and_rule_body(void *arg) {
        long long expect = 0;
        pm_prog_t prog;
        pthread_t t;
        Aux a;

        (void) arg;
        CHECK(page_fault_program(&prog, PM_USER) == 0);
        CHECK_RC(pm_set_program_mygroup(&prog), 0);     /* group off, main off */
        CHECK(aux_start(&a, &t, and_aux) == 0);
        aux_run_step(&a);                               /* 0: both off: 10 pages not counted; aux on */
        CHECK(!a.failed && a.d.accu[0] == 0);
        aux_run_step(&a);                               /* 1: aux on, group off: 11 not counted */
        CHECK(!a.failed && a.d.accu[0] == 0);
        CHECK_RC(pm_start_mygroup(), 0);
        aux_run_step(&a);                               /* 2: both on: 12 counted */
        expect += 12;
        CHECK(!a.failed);
        CHECK_NEAR(a.d.accu[0], expect, 1);
        expect = a.d.accu[0];
        CHECK_RC(pm_stop_mygroup(), 0);
        aux_run_step(&a);                               /* 3: group off: 13 not counted */
        CHECK(!a.failed && a.d.accu[0] == a.d_before.accu[0]);
        expect = a.d.accu[0];
        CHECK_RC(pm_start_mygroup(), 0);
        aux_run_step(&a);                               /* 4: resumed: 14 counted */
        CHECK(!a.failed);
        CHECK_NEAR(a.d.accu[0], expect + 14, 1);
        CHECK_RC(pm_stop_mygroup(), 0);
        CHECK_RC(pm_stop_mygroup(), 0);                 /* idempotent */
        aux_run_step(&a);
        CHECK(pthread_join(t, NULL) == 0 && !a.failed);
        CHECK_RC(pm_delete_program_mygroup(), 0);
        return 0;
}

/* T6: a descendant group does not take threads that existed before it, nor what they create. */
static void *outsider_child(void *p) {
        (void) p;
        (void) touch_fresh_pages(300);
        return NULL;
}

static int outsider_aux(Aux *a, int n) {
        pm_data_t d;
        pthread_t t;

        (void) n;
        CHECK(touch_fresh_pages(500) == 0);
        CHECK(pthread_create(&t, NULL, outsider_child, NULL) == 0);
        CHECK(pthread_join(t, NULL) == 0);
        CHECK_RC(pm_get_data_mythread(&d), PM_ENOCONTEXT);
        (void) a;
        return -1;
}

static int outsider_body(void *arg) {
        pm_prog_t prog;
        pm_data_t d, g;
        pthread_t t;
        Aux a;

        (void) arg;
        CHECK(page_fault_program(&prog, PM_USER | PM_COUNT) == 0);
        CHECK(aux_start(&a, &t, outsider_aux) == 0);    /* exists before the group */
        CHECK_RC(pm_set_program_mygroup(&prog), 0);
        aux_run_step(&a);
        CHECK(pthread_join(t, NULL) == 0 && !a.failed);
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(pm_get_data_mythread(&d), 0);
        CHECK_RC(pm_get_data_mygroup(&g), 0);
        CHECK(check_sum(&g, &d, NULL) == 0);
        CHECK(g.ginfo.members == 1);
        CHECK(d.accu[0] < 100);                         /* none of the outsiders' 800 pages */
        CHECK_RC(pm_delete_program_mygroup(), 0);
        return 0;
}

/* T7: a process group is refused while any thread has a context; then it takes every thread,
 * and threads created later by any of them, even by a thread that left it. */
static void *has_context(void *p) {
        pm_prog_t got;

        (void) p;
        return (void *) (intptr_t) pm_get_program_mythread(&got);
}

static int process_aux(Aux *a, int n) {
        pm_prog_t prog, got;
        pm_data_t d;
        pthread_t t;
        void *ret;

        switch (n) {
        case 0:
                CHECK(page_fault_program(&prog, PM_USER) == 0);
                CHECK_RC(pm_set_program_mythread(&prog), 0);
                return 0;
        case 1:
                CHECK_RC(pm_delete_program_mythread(), 0);
                return 0;
        default:
                CHECK_RC(pm_get_program_mythread(&got), 0);    /* a member since the process group */
                CHECK(got.mode.b.count == 1);
                CHECK(pthread_create(&t, NULL, outsider_child, NULL) == 0);   /* joins too */
                CHECK(pthread_join(t, NULL) == 0);
                CHECK_RC(pm_stop_mythread(), 0);
                CHECK_RC(pm_get_data_mygroup(&d), 0);
                CHECK(d.ginfo.flags.b.process == 1);
                a->d = d;
                CHECK_RC(pm_delete_program_mythread(), 0);     /* aux leaves; its new thread joins */
                CHECK(pthread_create(&t, NULL, has_context, NULL) == 0);
                CHECK(pthread_join(t, &ret) == 0);
                CHECK((intptr_t) ret == 0);
                return -1;
        }
}

static int count_threads(void) {
        char path[64];
        int n = 0;
        FILE *f;

        /* /proc/self/status "Threads:" */
        snprintf(path, sizeof(path), "/proc/%d/status", (int) getpid());
        f = fopen(path, "re");
        if (!f)
                return -1;
        while (fscanf(f, "%*[^T]") != EOF)
                if (fscanf(f, "Threads: %d", &n) == 1)
                        break;
                else if (fgetc(f) == EOF)
                        break;
        fclose(f);
        return n;
}

static int process_group_body(void *arg) {
        pm_prog_t prog, got;
        pm_data_t g;
        pthread_t t;
        int n_threads;
        Aux a;

        (void) arg;
        CHECK(page_fault_program(&prog, PM_USER | PM_COUNT | PM_PROCESS) == 0);
        CHECK(aux_start(&a, &t, process_aux) == 0);
        aux_run_step(&a);                               /* aux has a context */
        CHECK(!a.failed);
        CHECK_RC(pm_set_program_mygroup(&prog), PM_EEXIST);
        aux_run_step(&a);                               /* aux deletes it */
        CHECK(!a.failed);
        n_threads = count_threads();
        CHECK(n_threads >= 2);
        CHECK_RC(pm_set_program_mygroup(&prog), 0);
        CHECK_RC(pm_get_program_mygroup(&got), 0);
        CHECK(got.mode.b.process == 1 && got.mode.b.count == 1);
        CHECK_RC(pm_get_data_mygroup(&g), 0);
        CHECK(g.ginfo.members == n_threads && g.ginfo.flags.b.process == 1);
        aux_run_step(&a);                               /* aux's new thread joins the group */
        CHECK(pthread_join(t, NULL) == 0 && !a.failed);
        CHECK(a.d.ginfo.members == n_threads + 1);
        CHECK(a.d.accu[0] >= 300);
        CHECK_RC(pm_get_data_mygroup(&g), 0);           /* + the last thread, - aux who left */
        CHECK(g.ginfo.members == n_threads + 1);
        CHECK_RC(pm_delete_program_mygroup(), 0);
        CHECK(wait_for_context_count(0, 10000) == 0);
        return 0;
}

/* T8: a context is programmed once, in either scope; delete + set works. */
static int program_once_body(void *arg) {
        pm_prog_t prog;

        (void) arg;
        CHECK(page_fault_program(&prog, PM_USER) == 0);
        CHECK_RC(pm_set_program_mygroup(&prog), 0);
        CHECK_RC(pm_set_program_mygroup(&prog), PM_EEXIST);
        CHECK_RC(pm_set_program_mythread(&prog), PM_EEXIST);
        CHECK_RC(pm_delete_program_mygroup(), 0);
        CHECK_RC(pm_delete_program_mygroup(), PM_ENOCONTEXT);
        CHECK_RC(pm_set_program_mythread(&prog), 0);
        CHECK_RC(pm_set_program_mygroup(&prog), PM_EEXIST);
        CHECK_RC(pm_start_mygroup(), PM_ENOGROUP);
        CHECK_RC(pm_delete_program_mythread(), 0);
        CHECK_RC(pm_set_program_mygroup(&prog), 0);
        CHECK_RC(pm_delete_program_mythread(), 0);      /* the last member leaves: group gone */
        CHECK_RC(pm_get_program_mygroup(&prog), PM_ENOCONTEXT);
        prog.mode.w |= PM_PROCTREE | PM_PROCESS;          /* a process group does not follow the tree */
        CHECK_RC(pm_set_program_mygroup(&prog), PM_EMODE);
        prog.mode.w &= ~PM_PROCESS;
        prog.mode.w |= PM_NO_INHERIT;                   /* nor does one that never grows */
        CHECK_RC(pm_set_program_mygroup(&prog), PM_EMODE);
        CHECK_RC(pm_get_program_mygroup(&prog), PM_ENOCONTEXT);
        return 0;
}

#define BOTH_USERS(name, body)                                                                     \
        static void name(void **state) {                                                           \
                (void) state;                                                                      \
                assert_int_equal(body(NULL), 0);                                                   \
                assert_int_equal(run_as_nobody(body, NULL), 0);                                    \
        }

BOTH_USERS(test_s4_group_is_the_sum_of_its_members, s4_body)
BOTH_USERS(test_s5_thread_reset_leaves_the_group_consistent, s5_body)
BOTH_USERS(test_t1_t2_leaver_takes_its_data_dead_member_leaves_it, leave_and_death_body)
BOTH_USERS(test_t3_group_reset_marks_two_members_inconsistent, group_reset_body)
BOTH_USERS(test_t4_group_delete_removes_every_member, group_delete_body)
BOTH_USERS(test_t5_member_counts_when_thread_and_group_are_on, and_rule_body)
BOTH_USERS(test_t6_earlier_threads_are_not_members, outsider_body)
BOTH_USERS(test_t7_process_group_takes_every_thread, process_group_body)
BOTH_USERS(test_t8_programmed_once_in_either_scope, program_once_body)

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
                cmocka_unit_test(test_s4_group_is_the_sum_of_its_members),
                cmocka_unit_test(test_s5_thread_reset_leaves_the_group_consistent),
                cmocka_unit_test(test_t1_t2_leaver_takes_its_data_dead_member_leaves_it),
                cmocka_unit_test(test_t3_group_reset_marks_two_members_inconsistent),
                cmocka_unit_test(test_t4_group_delete_removes_every_member),
                cmocka_unit_test(test_t5_member_counts_when_thread_and_group_are_on),
                cmocka_unit_test(test_t6_earlier_threads_are_not_members),
                cmocka_unit_test(test_t7_process_group_takes_every_thread),
                cmocka_unit_test(test_t8_programmed_once_in_either_scope),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
