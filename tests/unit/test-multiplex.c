/* test-multiplex.c: multi-set programs (AIX's _mx and _mm) in the core, over the fake counter
 * backend: the shape checks (sets, slice, modes), the rounds arithmetic, a thread context whose
 * sets count, stop, reset and read apart (raw, with each set's own times), a group's per-set sums
 * across a death and a reset, a system context's per-set CPUs across an offline, and all of it
 * across a handover, with exact numbers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "context.h"
#include "counter.h"
#include "event-table.h"
#include "group.h"
#include "handover.h"
#include "manager.h"
#include "program.h"
#include "system.h"

#define FAKE_PID 999999
#define FAKE_TID(i) (1000000 + (int) (i))

/* Two sets: {PM_PAGE_FLT, PM_TASK_CLOCK} and {PM_CTX_SW}, as ids 2, 1 and 3 of the curated rows. */
static Program two_sets(uint32_t mode0, uint32_t mode1, bool multi_mode) {
        Program p = { .n_sets = 2, .slice_ms = 100, .multi_mode = multi_mode };

        for (size_t k = 0; k < PM_MX_MAX_SETS; k++)
                for (int c = 0; c < MAX_COUNTERS; c++)
                        p.sets[k].events[c] = COUNT_NOTHING;
        p.sets[0] = (ProgramSet) { mode0, { EVENT_ID(2), EVENT_ID(1), -1, -1, -1, -1, -1, -1 } };
        p.sets[1] = (ProgramSet) { mode1, { EVENT_ID(3), -1, -1, -1, -1, -1, -1, -1 } };
        return p;
}

static Manager *new_manager(void) {
        EventTable *events = NULL;
        Manager *m = NULL;

        assert_int_equal(event_table_load(&events), 0);
        assert_int_equal(manager_new(NULL, &counter_backend_fake, events, &m), 0);
        return m;
}

static int64_t read_set(Context *c, size_t set, int counter) {
        AcctVector v;

        assert_int_equal(context_read_set(c, set, v), 0);
        return v[counter];
}

static void test_shape_checks(void **state) {
        Program p = two_sets(PM_USER | PM_COUNT, PM_USER | PM_COUNT, false), q;
        EventTable *t = NULL;

        (void) state;
        assert_int_equal(event_table_new_unprobed(event_sources, n_event_sources, &t), 0);
        assert_int_equal(program_check_sets(&p, 8), PROGRAM_OK);
        assert_int_equal(program_n_sets(&p), 2);
        assert_int_equal(program_n_events(&p, t), 3);
        event_table_free(t);
        assert_true(program_multi_set(&p));
        q = p, q.n_sets = 0;
        assert_int_equal(program_check_sets(&q, 8), PROGRAM_BAD_SETS);
        q = p, q.n_sets = 3;
        assert_int_equal(program_check_sets(&q, 2), PROGRAM_BAD_SETS);         /* past MaxSets */
        q = p, q.n_sets = PM_MX_MAX_SETS + 1;
        assert_int_equal(program_check_sets(&q, 1000), PROGRAM_BAD_SETS);
        q = p, q.slice_ms = 9;
        assert_int_equal(program_check_sets(&q, 8), PROGRAM_BAD_SLICE);
        q = p, q.slice_ms = 30001;
        assert_int_equal(program_check_sets(&q, 8), PROGRAM_BAD_SLICE);
        q = p, q.slice_ms = 30000;
        assert_int_equal(program_check_sets(&q, 8), PROGRAM_OK);
        /* _mx: one mode for all; _mm: modes differ, proctree and count agree. */
        q = two_sets(PM_USER | PM_COUNT, PM_KERNEL | PM_COUNT, false);
        assert_int_equal(program_check_sets(&q, 8), PROGRAM_SET_MODES_DISAGREE);
        q.multi_mode = true;
        assert_int_equal(program_check_sets(&q, 8), PROGRAM_OK);
        q = two_sets(PM_USER | PM_COUNT, PM_KERNEL, true);
        assert_int_equal(program_check_sets(&q, 8), PROGRAM_SET_MODES_DISAGREE);
        q = two_sets(PM_USER | PM_PROCTREE, PM_KERNEL, true);
        assert_int_equal(program_check_sets(&q, 8), PROGRAM_SET_MODES_DISAGREE);
        q = two_sets(PM_USER | PM_PROCESS, PM_KERNEL, true);
        assert_int_equal(program_check_sets(&q, 8), PROGRAM_SET_MODES_DISAGREE);
        q = two_sets(PM_USER, PM_KERNEL | PM_NO_INHERIT, true);
        assert_int_equal(program_check_sets(&q, 8), PROGRAM_SET_MODES_DISAGREE);
        /* A pm_prog_t is one set whatever n_sets 0 says, and has no rounds. */
        q = (Program) { .mode = PM_USER };
        assert_int_equal(program_check_sets(&q, 1), PROGRAM_OK);
        assert_int_equal(program_n_sets(&q), 1);
        assert_false(program_multi_set(&q));
        assert_int_equal(program_rounds(&q, 5000000000u), 0);
}

static void test_rounds(void **state) {
        Program p = two_sets(PM_USER, PM_USER, false);

        (void) state;
        /* A round is slice * sets = 200 ms. */
        assert_int_equal(program_rounds(&p, 199999999u), 0);
        assert_int_equal(program_rounds(&p, 200000000u), 1);
        assert_int_equal(program_rounds(&p, 1000000000u), 5);
        p.slice_ms = 10;
        assert_int_equal(program_rounds(&p, 1000000000u), 50);
        assert_int_equal(program_rounds(&p, UINT64_MAX), UINT32_MAX);     /* saturated */
}

static void test_context_sets_count_apart_and_switch_together(void **state) {
        Manager *m = new_manager();
        Program p = two_sets(PM_USER | PM_COUNT, PM_USER | PM_COUNT, false);
        Context *c = NULL;
        AcctVector v;

        (void) state;
        assert_int_equal(context_new(&counter_backend_fake, m->events, FAKE_PID, FAKE_TID(1), 0, &p, -1, &c), 0);
        assert_int_equal(context_n_sets(c), 2);
        assert_int_equal(context_n_events(c), 3);
        assert_true(c->enabled);
        counter_fake_count(context_set_counters(c, 0), 0, 100);
        counter_fake_count(context_set_counters(c, 0), 1, 7);
        counter_fake_count(context_set_counters(c, 1), 0, 40);
        /* Set 1 on the PMU half of its time: raw 40, not scaled to 80, with both times given. */
        counter_fake_advance(context_set_counters(c, 0), 1000, 1000);
        counter_fake_advance(context_set_counters(c, 1), 1000, 500);
        assert_int_equal(read_set(c, 0, 0), 100);      /* PM_PAGE_FLT is counter 0 */
        assert_int_equal(read_set(c, 0, 1), 7);
        assert_int_equal(context_read_set(c, 1, v), 0);
        assert_int_equal(v[0], 40);
        assert_int_equal(v[ACCT_ENABLED], 1000);
        assert_int_equal(v[ACCT_RUNNING], 500);
        assert_int_equal(context_read_set(c, 2, v), -EINVAL);
        /* Stopped: no set counts. */
        assert_int_equal(context_stop(c), 0);
        counter_fake_count(context_set_counters(c, 0), 0, 5);
        counter_fake_count(context_set_counters(c, 1), 0, 5);
        assert_int_equal(read_set(c, 0, 0), 100);
        assert_int_equal(read_set(c, 1, 0), 40);
        /* Reset zeroes every set, and each set's times count from there. */
        assert_int_equal(context_reset(c), 0);
        assert_int_equal(context_start(c), 0);
        assert_int_equal(read_set(c, 0, 0), 0);
        assert_int_equal(read_set(c, 1, ACCT_RUNNING), 0);
        counter_fake_count(context_set_counters(c, 1), 0, 3);
        counter_fake_advance(context_set_counters(c, 1), 200, 100);
        assert_int_equal(context_read_set(c, 1, v), 0);
        assert_int_equal(v[0], 3);
        assert_int_equal(v[ACCT_ENABLED], 200);
        assert_int_equal(v[ACCT_RUNNING], 100);
        /* get_program's count bit is the state, in every set. */
        assert_int_equal(context_stop(c), 0);
        p = context_get_program(c);
        assert_false(p.sets[0].mode & PM_COUNT);
        assert_false(p.sets[1].mode & PM_COUNT);
        context_free(c);
        manager_free(m);
}

/* An _mx program of one set is multiplexed too: raw counts, no local reads. */
static void test_one_set_mx_is_raw(void **state) {
        Manager *m = new_manager();
        Program p = two_sets(PM_USER | PM_COUNT, PM_USER | PM_COUNT, false);
        Context *c = NULL;

        (void) state;
        p.n_sets = 1;
        assert_true(program_multi_set(&p));
        assert_int_equal(context_new(&counter_backend_fake, m->events, FAKE_PID, FAKE_TID(1), 0, &p, -1, &c), 0);
        assert_int_equal(context_n_sets(c), 1);
        counter_fake_count(c->counters, 0, 40);
        counter_fake_advance(c->counters, 1000, 500);
        assert_int_equal(read_set(c, 0, 0), 40);        /* a pm_prog_t would read 80 */
        context_free(c);
        manager_free(m);
}

static void test_group_sums_per_set(void **state) {
        Manager *m = new_manager();
        Program p = two_sets(PM_USER | PM_COUNT, PM_USER | PM_COUNT, false);
        Context *a = NULL, *b = NULL;
        Group *g = NULL;
        AcctVector v;

        (void) state;
        assert_int_equal(group_new(1, FAKE_PID, 0, &p, false, &g), 0);
        assert_int_equal(context_new(&counter_backend_fake, m->events, FAKE_PID, FAKE_TID(1), 0, &p, -1, &a), 0);
        assert_int_equal(context_new(&counter_backend_fake, m->events, FAKE_PID, FAKE_TID(2), 0, &p, -1, &b), 0);
        assert_int_equal(group_add(g, a), 0);
        assert_int_equal(group_add(g, b), 0);
        counter_fake_count(context_set_counters(a, 0), 0, 10);
        counter_fake_count(context_set_counters(a, 1), 0, 1);
        counter_fake_count(context_set_counters(b, 0), 0, 20);
        counter_fake_count(context_set_counters(b, 1), 0, 2);
        assert_int_equal(group_read_set(g, 0, v), 0);
        assert_int_equal(v[0], 30);
        assert_int_equal(group_read_set(g, 1, v), 0);
        assert_int_equal(v[0], 3);
        /* The group's time is its members' sum; its rounds go by the longest member's time. */
        counter_fake_advance(context_set_counters(a, 0), 300, 300);
        counter_fake_advance(context_set_counters(b, 0), 700, 700);
        assert_int_equal(group_read_set(g, 0, v), 0);
        assert_int_equal(v[ACCT_ENABLED], 1000);
        assert_int_equal(group_longest_enabled(g), 700);
        /* b dies: its counts stay, in each set, and its record holds both. */
        assert_int_equal(group_member_died(g, b), 0);
        context_free(b);
        assert_int_equal(g->n_records, 1);
        assert_int_equal(g->records[0].counts[0], 20);
        assert_non_null(g->records[0].more_counts);
        assert_int_equal(g->records[0].more_counts[0][0], 2);
        assert_int_equal(group_n_records_of_uid(0), 2);        /* a record of 2 sets weighs 2 */
        counter_fake_count(context_set_counters(a, 1), 0, 4);
        assert_int_equal(group_read_set(g, 1, v), 0);
        assert_int_equal(v[0], 7);
        /* A reset by a: the group reads 0 in each set; 2 members make it inconsistent. */
        assert_int_equal(group_reset(g, a), 0);
        assert_int_equal(group_read_set(g, 0, v), 0);
        assert_int_equal(v[0], 0);
        assert_int_equal(group_read_set(g, 1, v), 0);
        assert_int_equal(v[0], 0);
        assert_false(g->consistent);
        counter_fake_count(context_set_counters(a, 1), 0, 9);
        assert_int_equal(group_read_set(g, 1, v), 0);
        assert_int_equal(v[0], 9);
        group_member_left(g, a);
        context_free(a);
        group_free(g);
        assert_int_equal(group_n_records_of_uid(0), 0);
        manager_free(m);
}

static void test_system_sets_per_cpu(void **state) {
        Manager *m = new_manager();
        Program p = two_sets(PM_USER | PM_KERNEL | PM_COUNT, PM_USER | PM_KERNEL | PM_COUNT, false);
        bool online[2] = { true, true };
        SystemContext *s = NULL;
        AcctVector v;

        (void) state;
        assert_int_equal(system_new(&counter_backend_fake, m->events, &p, getpid(), 0, NULL, 0, online, 2, &s), 0);
        assert_int_equal(s->n_sets, 2);
        assert_int_equal(s->cpus[0].n_groups, 2);               /* one group a set */
        counter_fake_count(s->cpus[0].groups[0], 0, 11);
        counter_fake_count(s->cpus[0].groups[1], 0, 5);
        counter_fake_count(s->cpus[1].groups[0], 0, 13);
        counter_fake_count(s->cpus[1].groups[1], 0, 6);
        assert_int_equal(system_read_cpu_set(s, 1, 1, v), 0);
        assert_int_equal(v[0], 6);
        assert_int_equal(system_read_set(s, 0, v), 0);
        assert_int_equal(v[0], 24);
        counter_fake_advance(s->cpus[0].groups[0], 500, 500);
        counter_fake_advance(s->cpus[1].groups[0], 900, 900);
        assert_int_equal(system_read_set(s, 0, v), 0);
        assert_int_equal(v[ACCT_ENABLED], 1400);                /* summed over CPUs */
        assert_int_equal(system_longest_enabled(s), 900);      /* one CPU's, for the rounds */
        /* CPU 1 goes offline: each set keeps what it counted there. */
        assert_int_equal(system_cpu_offline(s, 1), 0);
        assert_int_equal(system_read_set(s, 1, v), 0);
        assert_int_equal(v[0], 11);
        assert_int_equal(system_cpu_online(s, 1), 0);
        counter_fake_count(s->cpus[1].groups[1], 0, 1);
        assert_int_equal(system_read_cpu_set(s, 1, 1, v), 0);
        assert_int_equal(v[0], 7);
        assert_int_equal(system_reset(s), 0);
        assert_int_equal(system_read_set(s, 1, v), 0);
        assert_int_equal(v[0], 0);
        system_free(s);
        manager_free(m);
}

static Manager *carry(Manager *from) {
        Handover h = { .memfd = -1 };
        Manager *to = new_manager();

        assert_int_equal(handover_save(from, NULL, &h), 0);
        assert_int_equal(handover_restore(to, h.memfd), 0);     /* takes the memfd */
        h.memfd = -1;
        handover_clear(&h);
        return to;
}

static void test_sets_cross_a_handover(void **state) {
        Manager *a = new_manager(), *b;
        Program p = two_sets(PM_USER | PM_COUNT, PM_KERNEL | PM_COUNT, true);
        Context *solo = NULL, *member = NULL, *dead = NULL, *c;
        bool online[2] = { true, true };
        SystemContext *s = NULL, *t;
        Group *g = NULL, *g2;
        AcctVector v;

        (void) state;
        assert_int_equal(context_new(&counter_backend_fake, a->events, FAKE_PID, FAKE_TID(1), 0, &p, -1, &solo), 0);
        assert_int_equal(manager_adopt(a, solo), 0);
        counter_fake_count(context_set_counters(solo, 1), 0, 77);
        assert_int_equal(group_new(5, FAKE_PID, 0, &p, false, &g), 0);
        g_hash_table_insert(a->groups, GUINT_TO_POINTER(5), g);
        a->next_group_id = 6;
        assert_int_equal(context_new(&counter_backend_fake, a->events, FAKE_PID, FAKE_TID(2), 0, &p, -1, &member), 0);
        assert_int_equal(context_new(&counter_backend_fake, a->events, FAKE_PID, FAKE_TID(3), 0, &p, -1, &dead), 0);
        assert_int_equal(group_add(g, member), 0);
        assert_int_equal(group_add(g, dead), 0);
        assert_int_equal(manager_adopt(a, member), 0);
        counter_fake_count(context_set_counters(member, 1), 0, 8);
        counter_fake_count(context_set_counters(dead, 1), 0, 30);
        counter_fake_count(context_set_counters(dead, 0), 0, 4);
        assert_int_equal(group_member_died(g, dead), 0);
        context_free(dead);
        assert_int_equal(system_new(&counter_backend_fake, a->events, &p, getpid(), 0, NULL, 0, online, 2, &s), 0);
        counter_fake_count(s->cpus[1].groups[1], 0, 12);
        assert_int_equal(system_cpu_offline(s, 0), 0);
        assert_int_equal(system_owners_add(a->systems, s), 0);

        b = carry(a);
        c = manager_lookup(b, FAKE_TID(1));
        assert_non_null(c);
        assert_int_equal(context_n_sets(c), 2);
        assert_true(c->program->multi_mode);
        assert_int_equal(c->program->slice_ms, 100);
        assert_int_equal(c->program->sets[1].mode, PM_KERNEL | PM_COUNT);
        assert_int_equal(read_set(c, 1, 0), 77);
        g2 = manager_find_group(b, 5);
        assert_non_null(g2);
        assert_int_equal(group_n_sets(g2), 2);
        assert_int_equal(group_read_set(g2, 1, v), 0);
        assert_int_equal(v[0], 38);
        assert_int_equal(group_read_set(g2, 0, v), 0);
        assert_int_equal(v[0], 4);
        assert_int_equal(g2->n_records, 1);
        assert_int_equal(g2->records[0].more_counts[0][0], 30);
        t = system_owners_get(b->systems, getpid());
        assert_non_null(t);
        assert_int_equal(t->n_sets, 2);
        assert_int_equal(system_read_cpu_set(t, 1, 1, v), 0);
        assert_int_equal(v[0], 12);
        manager_free(a);
        manager_free(b);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_shape_checks),
                cmocka_unit_test(test_rounds),
                cmocka_unit_test(test_context_sets_count_apart_and_switch_together),
                cmocka_unit_test(test_one_set_mx_is_raw),
                cmocka_unit_test(test_group_sums_per_set),
                cmocka_unit_test(test_system_sets_per_cpu),
                cmocka_unit_test(test_sets_cross_a_handover),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
