/* test-group-members.c: the records a group keeps of its dead members (daemon/model/group.c), over the
 * fake counter backend, with exact counts: a member that dies leaves its pid, tid, name and final
 * counts, and the records plus the live members add up to the group's data; a member that leaves
 * takes its data along and leaves no record; past the per-group and the all-groups bounds a death
 * is only counted as dropped, while its counts stay in the group; freeing a group gives its share
 * of the bound back. Then through the manager, with real threads: a context a caller makes reads its
 * thread's name from /proc, an inherited one takes its creator's, and the records keep them. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "caller.h"
#include "counter.h"
#include "event-table.h"
#include "group.h"
#include "macro.h"
#include "manager.h"
#include "perf-syscall.h"
#include "pmapi.h"
#include "program.h"

/* Ids no thread has: the contexts of the group-level tests count nothing real. */
#define FAKE_PID 999990
#define FAKE_TID(i) (1000000 + (int) (i))

static EventTable *table;

/* Counter 0 PM_PAGE_FLT, counter 1 PM_TASK_CLOCK. */
static Program program_with(uint32_t mode) {
        Program p = { .mode = mode };

        for (int i = 0; i < MAX_COUNTERS; i++)
                p.events[i] = COUNT_NOTHING;
        p.events[0] = EVENT_ID(2);
        p.events[1] = EVENT_ID(1);
        return p;
}

static Group *new_group_of(unsigned id, uid_t owner) {
        Program p = program_with(PM_USER | PM_COUNT);
        Group *g = NULL;

        assert_int_equal(group_new(id, FAKE_PID, owner, &p, /* process= */ false, &g), 0);
        return g;
}

static Group *new_group(unsigned id) {
        return new_group_of(id, 0);
}

/* A counting member of g that did n units of work: n on counter 0, 10 n on counter 1. */
static Context *member(Group *g, pid_t tid, const char *comm, uint64_t n) {
        Program p = program_with(PM_USER | PM_COUNT);
        Context *c = NULL;

        assert_int_equal(context_new(&counter_backend_fake, table, FAKE_PID, tid, 0, &p, /* pidfd= */ -1, &c), 0);
        assert_string_equal(c->comm, "");               /* no such thread in /proc */
        context_set_comm(c, comm);
        assert_int_equal(group_add(g, c), 0);
        counter_fake_count(c->counters, 0, n);
        counter_fake_count(c->counters, 1, 10 * n);
        return c;
}

static void die(Group *g, Context *c) {
        assert_int_equal(group_member_died(g, c), 0);
        assert_null(c->group);
        context_free(c);
}

static int64_t group_value(Group *g, int counter) {
        AcctVector v;

        assert_int_equal(group_read(g, v), 0);
        return v[counter];
}

static void test_dead_member_leaves_its_name_and_final_counts(void **state) {
        Group *g = new_group(1);
        Context *a = member(g, FAKE_TID(1), "main", 2);
        Context *b = member(g, FAKE_TID(2), "worker", 40);

        (void) state;
        die(g, b);
        assert_int_equal(g->n_records, 1);
        assert_int_equal(g->records[0].pid, FAKE_PID);
        assert_int_equal(g->records[0].tid, FAKE_TID(2));
        assert_string_equal(g->records[0].comm, "worker");
        assert_int_equal(g->records[0].counts[0], 40);
        assert_int_equal(g->records[0].counts[1], 400);
        for (int k = 2; k < MAX_COUNTERS; k++)
                assert_int_equal(g->records[0].counts[k], 0);
        assert_int_equal(g->n_records_dropped, 0);
        assert_int_equal(g->n_live, 1);
        assert_int_equal(g->n_members, 2);
        assert_int_equal(group_value(g, 0), 42);
        assert_int_equal(group_n_records_total(), 1);

        /* What the member counts after its death is nobody's: its record is final. */
        counter_fake_count(a->counters, 0, 1);
        assert_int_equal(group_value(g, 0), 43);
        assert_int_equal(g->records[0].counts[0], 40);
        group_member_left(g, a);
        context_free(a);
        group_free(g);
        assert_int_equal(group_n_records_total(), 0);
}

static void test_records_and_live_members_add_up_to_the_group(void **state) {
        Group *g = new_group(2);
        Context *live[3];
        int64_t sum[2] = {};

        (void) state;
        for (int i = 0; i < 3; i++)
                live[i] = member(g, FAKE_TID(i), "live", 100 + i);
        for (int i = 0; i < 10; i++)
                die(g, member(g, FAKE_TID(10 + i), "dead", 7 * i + 1));
        assert_int_equal(g->n_records, 10);
        assert_int_equal(g->n_members, 13);
        for (size_t i = 0; i < g->n_records; i++) {
                assert_int_equal(g->records[i].tid, FAKE_TID(10 + i));          /* in the order they died */
                assert_int_equal(g->records[i].counts[0], 7 * (int) i + 1);
                sum[0] += g->records[i].counts[0];
                sum[1] += g->records[i].counts[1];
        }
        for (int i = 0; i < 3; i++) {
                AcctVector v;

                assert_int_equal(context_read(live[i], v), 0);
                sum[0] += v[0];
                sum[1] += v[1];
        }
        assert_true(g->consistent);
        assert_int_equal(group_value(g, 0), sum[0]);
        assert_int_equal(group_value(g, 1), sum[1]);
        assert_int_equal(sum[0], 3 * 100 + 3 + 7 * 45 + 10);
        for (int i = 0; i < 3; i++) {
                group_member_left(g, live[i]);
                context_free(live[i]);
        }
        group_free(g);
        assert_int_equal(group_n_records_total(), 0);
}

static void test_member_that_leaves_takes_its_data_and_leaves_no_record(void **state) {
        Group *g = new_group(3);
        Context *a = member(g, FAKE_TID(1), "main", 5);
        Context *b = member(g, FAKE_TID(2), "leaver", 50);

        (void) state;
        group_member_left(g, b);
        context_free(b);
        assert_int_equal(g->n_records, 0);
        assert_int_equal(g->n_members, 1);
        assert_int_equal(group_value(g, 0), 5);
        group_member_left(g, a);
        context_free(a);
        group_free(g);
}

/* The records keep what each member counted; a group reset zeroes the group's data, not them. */
static void test_group_reset_leaves_records_alone(void **state) {
        Group *g = new_group(4);
        Context *a = member(g, FAKE_TID(1), "main", 5);

        (void) state;
        die(g, member(g, FAKE_TID(2), "dead", 30));
        assert_int_equal(group_reset(g, a), 0);
        assert_int_equal(group_value(g, 0), 0);
        assert_false(g->consistent);
        assert_int_equal(g->records[0].counts[0], 30);
        group_member_left(g, a);
        context_free(a);
        group_free(g);
}

static void fill(Group *g, size_t n) {
        for (size_t i = 0; i < n; i++)
                die(g, member(g, FAKE_TID(i), "t", 1));
}

static void test_deaths_past_the_group_bound_are_counted_as_dropped(void **state) {
        Group *g = new_group(5);
        Context *a = member(g, FAKE_TID(0), "main", 0);

        (void) state;
        fill(g, GROUP_MAX_RECORDS + 3);
        assert_int_equal(g->n_records, GROUP_MAX_RECORDS);
        assert_int_equal(g->n_records_dropped, 3);
        assert_int_equal(g->n_members, GROUP_MAX_RECORDS + 4);
        /* Dropped rows, not dropped counts. */
        assert_int_equal(group_value(g, 0), GROUP_MAX_RECORDS + 3);
        assert_int_equal(group_n_records_total(), GROUP_MAX_RECORDS);
        group_member_left(g, a);
        context_free(a);
        group_free(g);
        assert_int_equal(group_n_records_total(), 0);
}

/* One uid's churn fills only its own bound: another uid's group keeps every record (before, one
 * bound for all users: root's pmcount -t lost its rows to a user's churn). */
static void test_deaths_past_a_uid_bound_are_dropped_for_that_uid_only(void **state) {
        Group *full[GROUP_MAX_RECORDS_PER_UID / GROUP_MAX_RECORDS], *g, *other;
        size_t n_full = ELEMENTSOF(full);

        (void) state;
        for (size_t i = 0; i < n_full; i++) {
                full[i] = new_group_of(10 + i, 65534);
                fill(full[i], GROUP_MAX_RECORDS);
        }
        assert_int_equal(group_n_records_of_uid(65534), GROUP_MAX_RECORDS_PER_UID);
        g = new_group_of(20, 65534);
        fill(g, 2);
        assert_int_equal(g->n_records, 0);
        assert_int_equal(g->n_records_dropped, 2);
        assert_int_equal(group_value(g, 0), 2);
        other = new_group_of(21, 0);
        fill(other, 3);
        assert_int_equal(other->n_records, 3);
        assert_int_equal(other->n_records_dropped, 0);
        assert_int_equal(group_n_records_total(), GROUP_MAX_RECORDS_PER_UID + 3);

        group_free(full[0]);
        fill(g, 1);
        assert_int_equal(g->n_records, 1);
        assert_int_equal(g->n_records_dropped, 2);
        for (size_t i = 1; i < n_full; i++)
                group_free(full[i]);
        group_free(g);
        group_free(other);
        assert_int_equal(group_n_records_total(), 0);
        assert_int_equal(group_n_records_of_uid(65534), 0);
}

static void test_name_is_kept_as_the_kernel_keeps_it(void **state) {
        Group *g = new_group(6);
        Context *c = member(g, FAKE_TID(1), "a-name-longer-than-fifteen-bytes", 1);

        (void) state;
        assert_string_equal(c->comm, "a-name-longer-t");
        die(g, c);
        assert_string_equal(g->records[0].comm, "a-name-longer-t");
        group_free(g);
}

/* Through the manager: real threads, parked until the test lets them go. */
typedef struct Parked {
        pthread_t thread;
        pthread_mutex_t lock;
        pthread_cond_t cond;
        const char *name;               /* it names itself this first, or keeps its creator's */
        pid_t tid;
        bool may_exit;
} Parked;

static void *parked_main(void *arg) {
        Parked *p = arg;

        if (p->name)
                (void) pthread_setname_np(pthread_self(), p->name);
        pthread_mutex_lock(&p->lock);
        p->tid = gettid();
        pthread_cond_broadcast(&p->cond);
        while (!p->may_exit)
                pthread_cond_wait(&p->cond, &p->lock);
        pthread_mutex_unlock(&p->lock);
        return NULL;
}

static void parked_start(Parked *p, const char *name) {
        *p = (Parked) { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER, .name = name };
        assert_int_equal(pthread_create(&p->thread, NULL, parked_main, p), 0);
        pthread_mutex_lock(&p->lock);
        while (p->tid == 0)
                pthread_cond_wait(&p->cond, &p->lock);
        pthread_mutex_unlock(&p->lock);
}

/* Lets it exit and waits until its pidfd says so, as pmapid's exit watch would see it. */
static void parked_finish(Parked *p) {
        int pidfd = -1;

        assert_int_equal(thread_pin(getpid(), p->tid, &pidfd), 0);
        pthread_mutex_lock(&p->lock);
        p->may_exit = true;
        pthread_cond_broadcast(&p->cond);
        pthread_mutex_unlock(&p->lock);
        assert_int_equal(pthread_join(p->thread, NULL), 0);
        while (thread_pin_alive(pidfd))
                usleep(1000);
        close(pidfd);
}

static Manager *new_manager(void) {
        EventTable *t = NULL;
        Manager *m = NULL;

        assert_int_equal(event_table_new_unprobed(event_sources, n_event_sources, &t), 0);
        assert_int_equal(manager_new(NULL, &counter_backend_fake, t, &m), 0);
        m->self_pid = 0;                /* the targets are this process's threads */
        return m;
}

static void own_comm(char buf[static 16]) {
        FILE *f = fopen("/proc/thread-self/comm", "re");

        assert_non_null(f);
        assert_non_null(fgets(buf, 16, f));
        fclose(f);
        buf[strcspn(buf, "\n")] = '\0';
}

/* A group a caller makes on a thread: the first member's name comes from /proc. An inherited
 * member's is its creator's, which the kernel copied when it cloned the thread. Both stay in the
 * records after the threads exit (no event loop here: the next lookup finds them dead). */
static void test_exited_members_keep_the_name_read_or_inherited(void **state) {
        Caller caller = { .pid = getpid(), .euid = geteuid(), .egid = getegid() };
        Program prog = program_with(PM_USER | PM_COUNT);
        Context *first = NULL, *second = NULL;
        Parked named, unnamed;
        char creator_comm[16];
        bool attached = false;
        Manager *m = new_manager();
        Group *g = NULL;
        unsigned id;

        (void) state;
        own_comm(creator_comm);
        parked_start(&named, "gm-parked");
        parked_start(&unnamed, NULL);
        assert_int_equal(manager_set_group_program(m, &caller, caller.pid, named.tid, &prog, NULL), 0);
        assert_int_equal(manager_get_group(m, &caller, caller.pid, named.tid, &first, &g, NULL), 0);
        assert_string_equal(first->comm, "gm-parked");
        assert_int_equal(manager_inherit(m, &caller, caller.pid, unnamed.tid, caller.pid, named.tid, UINT64_MAX,
                                         &attached), 0);
        assert_true(attached);
        assert_int_equal(manager_get_group(m, &caller, caller.pid, unnamed.tid, &second, &g, NULL), 0);
        assert_string_equal(second->comm, "gm-parked");         /* its creator's, not ours */
        context_set_comm(second, creator_comm);                 /* as a COMM record would */
        counter_fake_count(first->counters, 0, 17);
        counter_fake_count(second->counters, 0, 4);

        parked_finish(&unnamed);
        assert_null(manager_lookup(m, unnamed.tid));
        assert_int_equal(g->n_records, 1);
        assert_int_equal(g->records[0].tid, unnamed.tid);
        assert_string_equal(g->records[0].comm, creator_comm);
        assert_int_equal(g->records[0].counts[0], 4);
        id = g->id;
        parked_finish(&named);
        /* The last live member: its death releases the group, records and all. */
        assert_null(manager_lookup(m, named.tid));
        assert_null(manager_find_group(m, id));
        assert_int_equal(group_n_records_total(), 0);
        manager_free(m);
}

static int setup(void **state) {
        (void) state;
        return event_table_new_unprobed(event_sources, n_event_sources, &table) < 0 ? -1 : 0;
}

static int teardown(void **state) {
        (void) state;
        event_table_free(table);
        return 0;
}

/* The manager test pins a real thread: thread pidfds (Linux 6.9) and perf allowed to the caller. */
static bool usable(void) {
        int fd = pidfd_open_thread(gettid());

        if (fd < 0) {
                printf("# SKIP: pidfd_open(PIDFD_THREAD) unsupported here: %s\n", strerror(errno));
                return false;
        }
        close(fd);
        if (caller_may_count(geteuid(), perf_event_paranoid(), false, false) != COUNT_ALLOWED) {
                printf("# SKIP: perf_event_paranoid %d refuses perf to uid %u\n", perf_event_paranoid(),
                       (unsigned) geteuid());
                return false;
        }
        return true;
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_dead_member_leaves_its_name_and_final_counts),
                cmocka_unit_test(test_records_and_live_members_add_up_to_the_group),
                cmocka_unit_test(test_member_that_leaves_takes_its_data_and_leaves_no_record),
                cmocka_unit_test(test_group_reset_leaves_records_alone),
                cmocka_unit_test(test_deaths_past_the_group_bound_are_counted_as_dropped),
                cmocka_unit_test(test_deaths_past_a_uid_bound_are_dropped_for_that_uid_only),
                cmocka_unit_test(test_name_is_kept_as_the_kernel_keeps_it),
        };
        const struct CMUnitTest manager_tests[] = {
                cmocka_unit_test(test_exited_members_keep_the_name_read_or_inherited),
        };
        int r;

        r = cmocka_run_group_tests(tests, setup, teardown);
        if (!usable())
                return r != 0 ? r : 77;
        return r | cmocka_run_group_tests(manager_tests, NULL, NULL);
}
