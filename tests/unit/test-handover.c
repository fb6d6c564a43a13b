/* test-handover.c: a manager's state written as a handover blob and read into a new manager
 * (daemon/handover-*.c) over the fake counter backend, with exact numbers: contexts with their
 * owners, names, states and history; groups with retained counts, member counts, consistency and
 * dead members' records; system-wide contexts with their per-CPU offsets; the predecessors list
 * bounded; a blob of another version, or an fd that is not a sealed memfd, refused. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "counter.h"
#include "event-table.h"
#include "group.h"
#include "handover.h"
#include "macro.h"
#include "manager.h"
#include "perf-syscall.h"
#include "pmapi.h"
#include "program.h"

#define FAKE_PID 999990
#define FAKE_TID(i) (1000000 + (int) (i))

static Program program_with(uint32_t mode) {
        Program p = { .mode = mode };

        for (int i = 0; i < MAX_COUNTERS; i++)
                p.events[i] = COUNT_NOTHING;
        p.events[0] = EVENT_ID(2);
        p.events[1] = EVENT_ID(1);
        return p;
}

static Manager *new_manager(void) {
        EventTable *events = NULL;
        Manager *m = NULL;

        assert_int_equal(event_table_load(&events), 0);
        assert_int_equal(manager_new(NULL, &counter_backend_fake, events, &m), 0);
        return m;
}

static Context *add_context(Manager *m, pid_t tid, uid_t owner, Group *g, const char *comm, uint64_t work) {
        Program p = program_with(PM_USER | PM_COUNT);
        Context *c = NULL;

        assert_int_equal(context_new(&counter_backend_fake, m->events, FAKE_PID, tid, owner, &p, -1, &c), 0);
        c->target_uid = owner + 1;
        c->creator_pid = 4242;
        c->origin = CONTEXT_INHERIT;
        context_set_comm(c, comm);
        if (g)
                assert_int_equal(group_add(g, c), 0);
        assert_int_equal(manager_adopt(m, c), 0);
        counter_fake_count(c->counters, 0, work);
        counter_fake_count(c->counters, 1, 10 * work);
        return c;
}

static Manager *carry(Manager *from, const char *name) {
        Handover h = { .memfd = -1 };
        Manager *to = new_manager();

        assert_int_equal(handover_save(from, name, &h), 0);
        assert_int_equal(handover_restore(to, h.memfd), 0);     /* takes the memfd */
        h.memfd = -1;
        handover_clear(&h);
        return to;
}

static int64_t read_counter(Context *c, int k) {
        AcctVector v;

        assert_int_equal(context_read(c, v), 0);
        return v[k];
}

static void test_contexts_and_groups_cross_exactly(void **state) {
        Manager *a = new_manager(), *b;
        Program gp = program_with(PM_USER | PM_COUNT);
        Context *solo, *m1, *m2, *dead;
        Group *g = NULL, *g2;
        AcctVector before, after;

        (void) state;
        solo = add_context(a, FAKE_TID(1), 1000, NULL, "solo", 5);
        assert_int_equal(context_stop(solo), 0);
        assert_int_equal(context_start(solo), 0);       /* two history entries */
        assert_int_equal(group_new(7, FAKE_PID, 1000, &gp, false, &g), 0);
        g->target_uid = 1001;
        g_hash_table_insert(a->groups, GUINT_TO_POINTER(7), g);
        a->next_group_id = 8;
        m1 = add_context(a, FAKE_TID(2), 1000, g, "m1", 100);
        m2 = add_context(a, FAKE_TID(3), 1000, g, "m2", 20);
        dead = add_context(a, FAKE_TID(4), 1000, g, "gone\xff", 3);
        assert_int_equal(group_member_died(g, dead), 0);
        g_hash_table_remove(a->threads, GINT_TO_POINTER(FAKE_TID(4)));
        assert_int_equal(group_reset(g, m2), 0);        /* 3 members: inconsistent from now on */
        counter_fake_count(m2->counters, 0, 9);
        assert_int_equal(group_read(g, before), 0);
        a->n_attached_late = 11;
        a->n_missed = 12;

        b = carry(a, ":1.7");
        assert_int_equal(manager_n_contexts(b), 3);
        assert_int_equal(b->next_group_id, 8);
        assert_int_equal(b->n_attached_late, 11);
        assert_int_equal(b->n_missed, 12);
        assert_string_equal(b->predecessors[0], ":1.7");
        assert_null(b->predecessors[1]);

        Context *s = manager_lookup(b, FAKE_TID(1));
        assert_non_null(s);
        assert_int_equal(s->owner_uid, 1000);
        assert_int_equal(s->target_uid, 1001);
        assert_int_equal(s->creator_pid, 4242);
        assert_int_equal(s->origin, CONTEXT_INHERIT);
        assert_string_equal(s->comm, "solo");
        assert_true(s->counting && s->enabled);
        assert_int_equal(s->n_history, 3);    /* started at creation, stopped, started */
        assert_false(context_counting_at(s, s->history[(s->next_history + CONTEXT_STATE_HISTORY - 1) %
                                                      CONTEXT_STATE_HISTORY].time_ns - 1));
        assert_int_equal(read_counter(s, 0), 5);
        assert_null(s->group);

        g2 = manager_find_group(b, 7);
        assert_non_null(g2);
        assert_int_equal(g2->n_live, 2);
        assert_int_equal(g2->n_members, 3);
        assert_false(g2->consistent);
        assert_int_equal(g2->target_uid, 1001);
        assert_int_equal(g2->n_records, 1);
        assert_string_equal(g2->records[0].comm, "gone\xff");
        assert_int_equal(g2->records[0].counts[0], 3);
        assert_int_equal(group_read(g2, after), 0);
        assert_memory_equal(before, after, sizeof(AcctVector));
        assert_int_equal(group_n_records_of_uid(1000), 2);      /* a's and b's, until a goes */

        /* The counters carry on in the new manager: work after the handover counts there. */
        Context *n1 = manager_lookup(b, FAKE_TID(2));
        counter_fake_count(n1->counters, 0, 1);
        assert_int_equal(group_read(g2, after), 0);
        assert_int_equal(after[0], before[0] + 1);
        (void) m1;

        manager_free(a);
        assert_int_equal(group_n_records_of_uid(1000), 1);
        manager_free(b);
        assert_int_equal(group_n_records_total(), 0);
}

static void test_system_context_crosses_with_its_offsets(void **state) {
        Manager *a = new_manager(), *b;
        Program p = program_with(PM_USER | PM_COUNT);
        bool online[2] = { true, true };
        SystemContext *s = NULL, *t;
        AcctVector before, after;

        (void) state;
        assert_int_equal(system_new(&counter_backend_fake, a->events, &p, getpid(), 0, NULL, 0, online, 2, &s), 0);
        counter_fake_count(s->cpus[0].groups[0], 0, 50);
        counter_fake_count(s->cpus[1].groups[0], 0, 70);
        assert_int_equal(system_reset(s), 0);
        counter_fake_count(s->cpus[1].groups[0], 0, 5);
        s->cpus[0].kept[0][0] = 1;
        assert_int_equal(system_owners_add(a->systems, s), 0);
        assert_int_equal(system_read(s, before), 0);

        b = carry(a, NULL);
        t = system_owners_get(b->systems, getpid());
        assert_non_null(t);
        assert_ptr_equal(b->systems->every_process, t);
        assert_int_equal(system_read(t, after), 0);
        assert_memory_equal(before, after, sizeof(AcctVector));
        assert_int_equal(after[0], 6);
        assert_true(t->counting);
        assert_null(b->predecessors[0]);
        manager_free(a);
        manager_free(b);
}

static void test_predecessors_are_bounded(void **state) {
        Manager *m = new_manager(), *next;
        char last[32];

        (void) state;
        /* A manager that already carries the most names, handing over once more: the oldest goes. */
        g_strfreev(m->predecessors);
        m->predecessors = g_new0(char *, HANDOVER_MAX_PREDECESSORS + 1);
        for (int i = 0; i < HANDOVER_MAX_PREDECESSORS; i++)
                m->predecessors[i] = g_strdup_printf(":1.%d", i);
        (void) snprintf(last, sizeof(last), ":1.%d", HANDOVER_MAX_PREDECESSORS);
        next = carry(m, last);
        manager_free(m);
        assert_int_equal(g_strv_length(next->predecessors), HANDOVER_MAX_PREDECESSORS);
        assert_string_equal(next->predecessors[HANDOVER_MAX_PREDECESSORS - 1], last);
        assert_string_equal(next->predecessors[0], ":1.1");
        manager_free(next);
}

static void test_bad_blobs_are_refused(void **state) {
        Manager *m = new_manager();
        int fd;

        (void) state;
        fd = memfd_create("unsealed", MFD_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "x", 1), 1);
        assert_int_equal(handover_restore(m, fd), -EBADF);

        /* Sealed, but of another version: a u32 version first, then nothing it expects. */
        fd = memfd_create("old", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        uint32_t junk[64] = { HANDOVER_VERSION + 1 };
        assert_int_equal(write(fd, junk, sizeof(junk)), (ssize_t) sizeof(junk));
        assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE), 0);
        assert_int_equal(handover_restore(m, fd), -EPROTO);
        assert_int_equal(manager_n_contexts(m), 0);
        manager_free(m);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_contexts_and_groups_cross_exactly),
                cmocka_unit_test(test_system_context_crosses_with_its_offsets),
                cmocka_unit_test(test_predecessors_are_bounded),
                cmocka_unit_test(test_bad_blobs_are_refused),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
