/* test-manager.c: the rules that span contexts (daemon/model/manager.c, manager-group.c, inherit.c), over
 * the fake counter backend and without an event loop (no exit watch, no fork watch). The targets
 * are real threads of this process, parked on a condition variable so their tids stay alive, and
 * for the fork cases a real child process parked on a pipe: the manager pins every target with a
 * thread pidfd. Checked with exact counts: a descendant group starts with its creator alone; a
 * process group is refused while a thread of the process has a context and otherwise takes every
 * thread; a new thread or child process inherits program, own state and group with counts at
 * zero, unless no_inherit or a process group forbids it; a member that leaves takes its data out,
 * one that died leaves it in; a group delete removes every member; the per-user limit leaves
 * nothing behind. Needs thread pidfds (Linux 6.9) and perf allowed to the caller: else exit 77. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "caller.h"
#include "counter.h"
#include "event-table.h"
#include "group.h"

/* Created now: inherit the creator's current state. */
#define NOW UINT64_MAX
#include "macro.h"
#include "manager.h"
#include "perf-syscall.h"
#include "pmapi.h"
#include "program.h"

#define MAX_WORKERS 20

/* A thread of this process that lives until the test lets it go. */
typedef struct Worker {
        pthread_t thread;
        pthread_mutex_t lock;
        pthread_cond_t cond;
        pid_t tid;
        bool may_exit;
        bool running;
} Worker;

typedef struct Fixture {
        Manager *m;
        Caller caller;
        size_t n_open_before;
        Worker workers[MAX_WORKERS];
        size_t n_workers;
        pid_t child;                    /* a forked child parked on child_fd, or 0 */
        int child_fd;
} Fixture;

static void *worker_main(void *arg) {
        Worker *w = arg;

        pthread_mutex_lock(&w->lock);
        w->tid = gettid();
        pthread_cond_broadcast(&w->cond);
        while (!w->may_exit)
                pthread_cond_wait(&w->cond, &w->lock);
        pthread_mutex_unlock(&w->lock);
        return NULL;
}

/* A new parked thread; returns it with its tid known. */
static Worker *worker_start(Fixture *f) {
        Worker *w;

        assert_true(f->n_workers < MAX_WORKERS);
        w = &f->workers[f->n_workers++];
        *w = (Worker) { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
        assert_int_equal(pthread_create(&w->thread, NULL, worker_main, w), 0);
        w->running = true;
        pthread_mutex_lock(&w->lock);
        while (w->tid == 0)
                pthread_cond_wait(&w->cond, &w->lock);
        pthread_mutex_unlock(&w->lock);
        return w;
}

static bool task_listed(pid_t tid) {
        char path[64];

        (void) snprintf(path, sizeof(path), "/proc/self/task/%d", (int) tid);
        return access(path, F_OK) == 0;
}

/* Lets the thread exit and waits until the kernel is done with it: pthread_join returns when the
 * tid is cleared, a moment before the thread's pidfd fires and before it leaves /proc. */
static void worker_finish(Worker *w) {
        int pidfd = -1;

        if (!w->running)
                return;
        w->running = false;
        assert_int_equal(thread_pin(getpid(), w->tid, &pidfd), 0);
        pthread_mutex_lock(&w->lock);
        w->may_exit = true;
        pthread_cond_broadcast(&w->cond);
        pthread_mutex_unlock(&w->lock);
        assert_int_equal(pthread_join(w->thread, NULL), 0);
        assert_int_equal(poll(&(struct pollfd) { .fd = pidfd, .events = POLLIN }, 1, 5000), 1);
        close(pidfd);
        for (int i = 0; i < 5000 && task_listed(w->tid); i++)
                (void) nanosleep(&(struct timespec) { .tv_nsec = 1000000 }, NULL);
        assert_false(task_listed(w->tid));
}

/* A child process that lives until the test closes the pipe. It only blocks and exits: nothing
 * else is safe after fork in a threaded process. */
static pid_t child_start(Fixture *f) {
        int fds[2];
        pid_t pid;
        char c;

        assert_int_equal(f->child, 0);
        assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                close(fds[1]);
                (void) read(fds[0], &c, 1);
                _exit(0);
        }
        close(fds[0]);
        f->child = pid;
        f->child_fd = fds[1];
        return pid;
}

static void child_finish(Fixture *f) {
        if (f->child <= 0)
                return;
        close(f->child_fd);
        while (waitpid(f->child, NULL, 0) < 0 && errno == EINTR)
                ;
        f->child = 0;
}

static unsigned count_tasks(void) {
        DIR *d = opendir("/proc/self/task");
        struct dirent *de;
        unsigned n = 0;

        assert_non_null(d);
        while ((de = readdir(d)))
                if (de->d_name[0] != '.')
                        n++;
        closedir(d);
        return n;
}

static int setup_manager(void **state) {
        Fixture *f = calloc(1, sizeof(*f));
        EventTable *t = NULL;

        if (!f || event_table_new_unprobed(event_sources, n_event_sources, &t) < 0)
                return -1;
        if (manager_new(/* event= */ NULL, &counter_backend_fake, t, &f->m) < 0)
                return -1;
        f->m->self_pid = 0;             /* the targets are this process's threads: not a daemon's here */
        f->caller = (Caller) { .pid = getpid(), .euid = geteuid(), .egid = getegid() };
        f->n_open_before = counter_fake_n_open();
        *state = f;
        return 0;
}

static int teardown_manager(void **state) {
        Fixture *f = *state;
        GHashTableIter it;
        gpointer g;
        bool leaked;

        /* Groups are deleted before the manager is freed: freeing a manager that still holds a
         * group is test_free_with_live_group_touches_no_freed_context's subject alone. */
        for (;;) {
                g_hash_table_iter_init(&it, f->m->groups);
                if (!g_hash_table_iter_next(&it, NULL, &g))
                        break;
                manager_delete_group(f->m, g);
        }
        manager_free(f->m);
        leaked = counter_fake_n_open() != f->n_open_before;
        child_finish(f);
        for (size_t i = 0; i < f->n_workers; i++)
                worker_finish(&f->workers[i]);
        free(f);
        if (leaked)
                print_error("counters left open after manager_free()\n");
        return leaked ? -1 : 0;
}

/* Counter 0 counts page faults, counter 1 task clock: fake counters 0 and 1 in that order. */
static Program program_with(uint32_t mode) {
        Program p = { .mode = mode };

        for (int i = 0; i < MAX_COUNTERS; i++)
                p.events[i] = COUNT_NOTHING;
        p.events[0] = EVENT_ID(2);        /* PM_PAGE_FLT */
        p.events[1] = EVENT_ID(1);        /* PM_TASK_CLOCK */
        return p;
}

/* The thread does work: counter 0 gains n, counter 1 gains 10 n (counted only if enabled). */
static void work(Context *c, uint64_t n) {
        counter_fake_count(c->counters, 0, n);
        counter_fake_count(c->counters, 1, 10 * n);
}

static int64_t thread_value(Context *c) {
        AcctVector v;

        assert_int_equal(context_read(c, v), 0);
        assert_int_equal(v[1], 10 * v[0]);
        return v[0];
}

static int64_t group_value(Group *g) {
        AcctVector v;

        assert_int_equal(group_read(g, v), 0);
        assert_int_equal(v[1], 10 * v[0]);
        for (int i = 2; i < MAX_COUNTERS; i++)
                assert_int_equal(v[i], 0);
        return v[0];
}

static Context *context_of(Fixture *f, pid_t tid) {
        Context *c = NULL;

        assert_int_equal(manager_get_thread(f->m, &f->caller, f->caller.pid, tid, &c, NULL), 0);
        assert_non_null(c);
        assert_int_equal(c->tid, tid);
        return c;
}

static Group *group_of(Fixture *f, pid_t tid) {
        Context *c = NULL;
        Group *g = NULL;

        assert_int_equal(manager_get_group(f->m, &f->caller, f->caller.pid, tid, &c, &g, NULL), 0);
        assert_ptr_equal(c->group, g);
        return g;
}

static void set_group(Fixture *f, pid_t tid, uint32_t mode) {
        Program p = program_with(mode);

        assert_int_equal(manager_set_group_program(f->m, &f->caller, f->caller.pid, tid, &p, NULL), 0);
}

/* Thread tid of this process, created by thread ptid of this process, asks to inherit. */
static bool inherit(Fixture *f, pid_t tid, pid_t ptid) {
        bool attached = false;

        assert_int_equal(manager_inherit(f->m, &f->caller, f->caller.pid, tid, f->caller.pid, ptid,
                                         NOW, &attached), 0);
        return attached;
}

static bool is_live_member(Group *g, Context *c) {
        for (size_t i = 0; i < g->n_live; i++)
                if (g->live[i] == c)
                        return true;
        return false;
}

/* A new descendant group starts with its creator alone (docs/design.md, R1), programmed once (T8). */

static void test_descendant_group_starts_with_the_caller_alone(void **state) {
        Fixture *f = *state;
        Worker *w = worker_start(f);
        Context *c;
        Group *g;

        set_group(f, gettid(), PM_USER | PM_COUNT);
        g = group_of(f, gettid());
        c = context_of(f, gettid());
        assert_false(g->process);
        assert_int_equal(g->n_members, 1);
        assert_int_equal(g->n_live, 1);
        assert_ptr_equal(g->live[0], c);
        assert_int_equal(manager_n_contexts(f->m), 1);  /* the other thread is not taken */
        assert_int_equal(manager_get_thread(f->m, &f->caller, f->caller.pid, w->tid, &c, NULL), -ENODATA);

        work(context_of(f, gettid()), 5);
        assert_int_equal(group_value(g), 5);
}

static void test_second_program_on_a_group_member_is_refused(void **state) {
        Fixture *f = *state;
        Program p = program_with(PM_USER | PM_COUNT);
        Group *g;

        set_group(f, gettid(), PM_USER | PM_COUNT);
        g = group_of(f, gettid());
        assert_int_equal(manager_set_group_program(f->m, &f->caller, f->caller.pid, gettid(), &p, NULL), -EEXIST);
        assert_int_equal(manager_set_program(f->m, &f->caller, f->caller.pid, gettid(), &p, NULL), -EEXIST);
        p.mode |= PM_PROCESS;
        assert_int_equal(manager_set_group_program(f->m, &f->caller, f->caller.pid, gettid(), &p, NULL), -EEXIST);

        assert_int_equal(manager_n_contexts(f->m), 1);
        assert_int_equal(g_hash_table_size(f->m->groups), 1);
        assert_ptr_equal(group_of(f, gettid()), g);
        assert_int_equal(g->n_members, 1);
}

/* A process group is refused while a thread of its process has a context (docs/design.md, T7). */

static void test_process_group_refused_while_a_thread_has_a_context(void **state) {
        Fixture *f = *state;
        Program thread_program = program_with(PM_USER | PM_COUNT);
        Program process_program = program_with(PM_USER | PM_COUNT | PM_PROCESS);
        Worker *w = worker_start(f);
        unsigned n_tasks;
        Group *g;

        worker_start(f);
        assert_int_equal(manager_set_program(f->m, &f->caller, f->caller.pid, w->tid, &thread_program, NULL), 0);
        assert_int_equal(manager_set_group_program(f->m, &f->caller, f->caller.pid, gettid(),
                                                   &process_program, NULL), -EBUSY);
        assert_int_equal(manager_n_contexts(f->m), 1);
        assert_int_equal(g_hash_table_size(f->m->groups), 0);

        manager_delete_context(f->m, context_of(f, w->tid));
        assert_int_equal(manager_n_contexts(f->m), 0);
        assert_int_equal(manager_set_group_program(f->m, &f->caller, f->caller.pid, gettid(),
                                                   &process_program, NULL), 0);

        n_tasks = count_tasks();
        assert_int_equal(n_tasks, 3);                   /* main and two workers */
        g = group_of(f, gettid());
        assert_true(g->process);
        assert_int_equal(g->n_members, n_tasks);
        assert_int_equal(g->n_live, n_tasks);
        assert_int_equal(manager_n_contexts(f->m), n_tasks);
        assert_true(is_live_member(g, context_of(f, gettid())));
        for (size_t i = 0; i < f->n_workers; i++)
                assert_true(is_live_member(g, context_of(f, f->workers[i].tid)));

        /* Every member counts into the one group: 1 + 2 + 3. */
        for (size_t i = 0; i < g->n_live; i++)
                work(g->live[i], i + 1);
        assert_int_equal(group_value(g), 6);
}

/* Inheritance (docs/design.md, R1 and A9). */

static void test_new_thread_inherits_program_own_state_and_group(void **state) {
        Fixture *f = *state;
        Worker *stopped = worker_start(f), *started = worker_start(f);
        Context *parent, *a, *b;
        Group *g;

        set_group(f, gettid(), PM_USER | PM_COUNT);
        parent = context_of(f, gettid());
        g = group_of(f, gettid());
        work(parent, 7);
        assert_int_equal(group_value(g), 7);

        /* The creator's own state is off while the group's is on: the new thread's is off too,
         * although the program's count bit says on. */
        assert_int_equal(context_stop(parent), 0);
        assert_true(inherit(f, stopped->tid, gettid()));
        a = context_of(f, stopped->tid);
        assert_ptr_equal(a->program, parent->program);  /* one shared copy */
        assert_false(a->counting);
        assert_ptr_equal(a->group, g);
        assert_int_equal(a->owner_uid, parent->owner_uid);
        assert_int_equal(g->n_members, 2);
        assert_int_equal(thread_value(a), 0);
        assert_int_equal(group_value(g), 7);
        work(a, 3);                                     /* not counted: its own state is off */
        assert_int_equal(thread_value(a), 0);

        assert_int_equal(context_start(parent), 0);
        assert_true(inherit(f, started->tid, gettid()));
        b = context_of(f, started->tid);
        assert_true(b->counting);
        assert_ptr_equal(b->group, g);
        assert_int_equal(g->n_members, 3);
        assert_int_equal(thread_value(b), 0);
        work(b, 4);
        assert_int_equal(thread_value(b), 4);
        assert_int_equal(group_value(g), 11);
        assert_int_equal(manager_n_contexts(f->m), 3);
}

static void test_thread_context_is_inherited_without_a_group(void **state) {
        Fixture *f = *state;
        Program p = program_with(PM_USER | PM_COUNT);
        Worker *w = worker_start(f);
        Context *c;

        assert_int_equal(manager_set_program(f->m, &f->caller, f->caller.pid, gettid(), &p, NULL), 0);
        work(context_of(f, gettid()), 9);
        assert_true(inherit(f, w->tid, gettid()));
        c = context_of(f, w->tid);
        assert_null(c->group);
        assert_true(c->counting);
        assert_int_equal(thread_value(c), 0);
        assert_int_equal(thread_value(context_of(f, gettid())), 9);
}

static void test_no_inherit_creator_passes_nothing_on(void **state) {
        Fixture *f = *state;
        Worker *w = worker_start(f);
        bool attached = true;
        Group *g;

        set_group(f, gettid(), PM_USER | PM_COUNT | PM_NO_INHERIT);
        g = group_of(f, gettid());
        assert_int_equal(manager_inherit(f->m, &f->caller, f->caller.pid, w->tid, f->caller.pid, gettid(),
                                         NOW, &attached), 0);
        assert_false(attached);
        assert_int_equal(manager_n_contexts(f->m), 1);
        assert_int_equal(g->n_members, 1);
        assert_int_equal(manager_get_thread(f->m, &f->caller, f->caller.pid, w->tid, &(Context *) { NULL }, NULL),
                         -ENODATA);
}

static void test_creator_without_context_passes_nothing_on(void **state) {
        Fixture *f = *state;
        Worker *creator = worker_start(f), *w = worker_start(f);
        bool attached = true;

        set_group(f, gettid(), PM_USER | PM_COUNT);
        assert_int_equal(manager_inherit(f->m, &f->caller, f->caller.pid, w->tid, f->caller.pid,
                                         creator->tid, NOW, &attached), 0);
        assert_false(attached);
        assert_int_equal(manager_n_contexts(f->m), 1);
}

static void test_child_process_joins_a_descendant_group(void **state) {
        Fixture *f = *state;
        pid_t child = child_start(f);
        Caller child_caller = { .pid = child, .euid = geteuid(), .egid = getegid() };
        bool attached = false;
        Context *c;
        Group *g;

        set_group(f, gettid(), PM_USER | PM_COUNT);
        g = group_of(f, gettid());
        assert_int_equal(manager_inherit(f->m, &child_caller, child, child, getpid(), gettid(), NOW, &attached),
                         0);
        assert_true(attached);
        assert_int_equal(g->n_members, 2);
        c = manager_lookup(f->m, child);
        assert_non_null(c);
        assert_int_equal(c->pid, child);
        assert_ptr_equal(c->group, g);
        work(c, 6);
        assert_int_equal(group_value(g), 6);
}

static void test_child_process_does_not_join_a_process_group(void **state) {
        Fixture *f = *state;
        pid_t child = child_start(f);
        Caller child_caller = { .pid = child, .euid = geteuid(), .egid = getegid() };
        bool attached = true;
        unsigned n_tasks = count_tasks();
        Group *g;

        set_group(f, gettid(), PM_USER | PM_COUNT | PM_PROCESS);
        g = group_of(f, gettid());
        assert_true(g->process);
        assert_int_equal(g->n_members, n_tasks);
        assert_int_equal(manager_inherit(f->m, &child_caller, child, child, getpid(), gettid(), NOW, &attached),
                         0);
        assert_false(attached);
        assert_null(manager_lookup(f->m, child));
        assert_int_equal(g->n_members, n_tasks);
        assert_int_equal(manager_n_contexts(f->m), n_tasks);
}

static void test_inherit_when_already_attached_restarts_the_counts(void **state) {
        Fixture *f = *state;
        Worker *w = worker_start(f);
        Context *parent, *c;
        Group *g;

        set_group(f, gettid(), PM_USER | PM_COUNT);
        parent = context_of(f, gettid());
        g = group_of(f, gettid());
        assert_true(inherit(f, w->tid, gettid()));     /* as a fork record would have */
        c = context_of(f, w->tid);
        work(parent, 2);
        work(c, 5);
        assert_int_equal(group_value(g), 7);

        assert_true(inherit(f, w->tid, gettid()));     /* the library's call, later */
        assert_ptr_equal(context_of(f, w->tid), c);     /* the same context, not a second one */
        assert_int_equal(thread_value(c), 0);
        assert_int_equal(group_value(g), 2);            /* its start-up counts leave the group */
        assert_int_equal(g->n_members, 2);
        assert_int_equal(manager_n_contexts(f->m), 2);
        assert_true(c->counting);
        work(c, 1);
        assert_int_equal(group_value(g), 3);
}

/* A member leaves (docs/design.md, R6); the last live one frees the group (R12). */

static void test_deleted_member_takes_its_counts_out_of_the_group(void **state) {
        Fixture *f = *state;
        Worker *a = worker_start(f), *b = worker_start(f);
        Group *g;

        set_group(f, gettid(), PM_USER | PM_COUNT);
        g = group_of(f, gettid());
        assert_true(inherit(f, a->tid, gettid()));
        assert_true(inherit(f, b->tid, a->tid));        /* a grandchild joins too */
        assert_int_equal(g->n_members, 3);
        work(context_of(f, gettid()), 1);
        work(context_of(f, a->tid), 20);
        work(context_of(f, b->tid), 300);
        assert_int_equal(group_value(g), 321);

        manager_delete_context(f->m, context_of(f, a->tid));
        assert_int_equal(manager_get_thread(f->m, &f->caller, f->caller.pid, a->tid, &(Context *) { NULL }, NULL),
                         -ENODATA);
        assert_int_equal(g->n_live, 2);
        assert_true(is_live_member(g, context_of(f, gettid())));
        assert_true(is_live_member(g, context_of(f, b->tid)));
        assert_int_equal(group_value(g), 301);
        assert_int_equal(g->n_members, 2);
        assert_int_equal(manager_n_contexts(f->m), 2);
        assert_ptr_equal(group_of(f, b->tid), g);
}

static void test_deleting_the_last_live_member_frees_the_group(void **state) {
        Fixture *f = *state;
        Worker *a = worker_start(f);
        unsigned id;
        Group *g;

        set_group(f, gettid(), PM_USER | PM_COUNT);
        g = group_of(f, gettid());
        id = g->id;
        assert_true(inherit(f, a->tid, gettid()));
        manager_delete_context(f->m, context_of(f, gettid()));
        assert_ptr_equal(manager_find_group(f->m, id), g);
        assert_int_equal(g->n_members, 1);
        manager_delete_context(f->m, context_of(f, a->tid));
        assert_null(manager_find_group(f->m, id));
        assert_int_equal(manager_n_contexts(f->m), 0);
        assert_int_equal(counter_fake_n_open(), f->n_open_before);
}

/* A group delete (docs/design.md, R9). */

static void test_group_delete_removes_every_member(void **state) {
        Fixture *f = *state;
        Worker *a = worker_start(f), *b = worker_start(f);
        unsigned id;
        Group *g;

        set_group(f, gettid(), PM_USER | PM_COUNT);
        g = group_of(f, gettid());
        id = g->id;
        assert_true(inherit(f, a->tid, gettid()));
        assert_true(inherit(f, b->tid, gettid()));
        assert_int_equal(g->n_live, 3);
        assert_int_equal(manager_n_contexts(f->m), 3);

        manager_delete_group(f->m, g);
        assert_int_equal(manager_n_contexts(f->m), 0);
        assert_null(manager_find_group(f->m, id));
        assert_int_equal(counter_fake_n_open(), f->n_open_before);
        assert_int_equal(g_hash_table_size(f->m->contexts_per_uid), 0);
}

/* A member dies (docs/design.md, R7). */

static void test_lookup_of_exited_member_keeps_its_counts_in_the_group(void **state) {
        Fixture *f = *state;
        Worker *w = worker_start(f);
        Context *main_ctx, *c;
        Group *g;

        set_group(f, gettid(), PM_USER | PM_COUNT);
        g = group_of(f, gettid());
        main_ctx = context_of(f, gettid());
        assert_true(inherit(f, w->tid, gettid()));
        c = context_of(f, w->tid);
        work(main_ctx, 2);
        work(c, 40);
        assert_int_equal(group_value(g), 42);

        worker_finish(w);
        assert_null(manager_lookup(f->m, w->tid));
        assert_int_equal(manager_n_contexts(f->m), 1);
        assert_int_equal(g->n_members, 2);              /* dead members still count */
        assert_int_equal(g->n_live, 1);
        assert_ptr_equal(g->live[0], main_ctx);
        assert_int_equal(g->retained[0][0], 40);
        assert_int_equal(group_value(g), 42);
        work(main_ctx, 1);
        assert_int_equal(group_value(g), 43);
        assert_int_equal(counter_fake_n_open(), f->n_open_before + 1);
}

/* The per-user limit leaves nothing behind (docs/design.md, L9). */

static void test_process_group_over_the_user_limit_leaves_nothing(void **state) {
        Fixture *f = *state;
        Program p = program_with(PM_USER | PM_COUNT | PM_PROCESS);

        worker_start(f);
        worker_start(f);
        assert_int_equal(count_tasks(), 3);
        /* Root (this test's caller) has no per-user limit: the total one binds it. */
        f->m->max_contexts_per_uid = 2;
        f->m->max_contexts = 2;
        assert_int_equal(manager_set_group_program(f->m, &f->caller, f->caller.pid, gettid(), &p, NULL), -ENFILE);
        assert_int_equal(manager_n_contexts(f->m), 0);
        assert_int_equal(g_hash_table_size(f->m->groups), 0);
        assert_int_equal(g_hash_table_size(f->m->contexts_per_uid), 0);
        assert_int_equal(counter_fake_n_open(), f->n_open_before);

        /* The limit was the only obstacle, and the failed attempt used none of it up. */
        f->m->max_contexts = 3;
        assert_int_equal(manager_set_group_program(f->m, &f->caller, f->caller.pid, gettid(), &p, NULL), 0);
        assert_int_equal(group_of(f, gettid())->n_members, 3);
}

/* Regression (fixed in 0f85068): process_has_context() reaped a dead context with manager_lookup()
 * while walking the table; GLib then ended the walk, and the live context after it went unseen. */
static Context *first_in_table(Manager *m) {
        GHashTableIter it;
        gpointer c;

        g_hash_table_iter_init(&it, m->threads);
        return g_hash_table_iter_next(&it, NULL, &c) ? c : NULL;
}

static void test_process_group_refused_when_a_dead_context_is_met_first(void **state) {
        Fixture *f = *state;
        Program thread_program = program_with(PM_USER | PM_COUNT);
        Program process_program = program_with(PM_USER | PM_COUNT | PM_PROCESS);
        Worker *busy = worker_start(f);
        Context *live;

        assert_int_equal(manager_set_program(f->m, &f->caller, f->caller.pid, busy->tid, &thread_program, NULL), 0);
        live = context_of(f, busy->tid);
        /* Contexts whose threads have exited, unreaped (no event loop), until the table's order
         * puts one of them before the live one. */
        while (first_in_table(f->m) == live && f->n_workers < MAX_WORKERS) {
                Worker *w = worker_start(f);
                assert_int_equal(manager_set_program(f->m, &f->caller, f->caller.pid, w->tid,
                                                     &thread_program, NULL), 0);
                worker_finish(w);
        }
        if (first_in_table(f->m) == live) {
                print_message("# SKIP: the hash table kept the live context first\n");
                skip();
        }
        assert_int_equal(manager_set_group_program(f->m, &f->caller, f->caller.pid, gettid(),
                                                   &process_program, NULL), -EBUSY);
        assert_int_equal(g_hash_table_size(f->m->groups), 0);
}

/* Regression (fixed in 0f85068): manager_free() freed the contexts before the groups, and
 * group_free() then wrote to each freed live member. Shows under -Db_sanitize=address only. */
static void test_free_with_live_group_touches_no_freed_context(void **state) {
        Fixture *f = *state;
        Worker *w = worker_start(f);
        EventTable *t = NULL;
        Manager *m = NULL;

        assert_int_equal(event_table_new_unprobed(event_sources, n_event_sources, &t), 0);
        assert_int_equal(manager_new(NULL, &counter_backend_fake, t, &m), 0);
        {
                Program p = program_with(PM_USER | PM_COUNT);
                bool attached = false;

                assert_int_equal(manager_set_group_program(m, &f->caller, f->caller.pid, gettid(), &p, NULL), 0);
                assert_int_equal(manager_inherit(m, &f->caller, f->caller.pid, w->tid, f->caller.pid,
                                                 gettid(), NOW, &attached), 0);
                assert_true(attached);
        }
        assert_null(manager_free(m));
        assert_int_equal(counter_fake_n_open(), f->n_open_before);
}

#define manager_test(t) cmocka_unit_test_setup_teardown(t, setup_manager, teardown_manager)

/* What every test needs: thread pidfds to pin targets, and perf in user mode for this caller. */
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
                manager_test(test_descendant_group_starts_with_the_caller_alone),
                manager_test(test_second_program_on_a_group_member_is_refused),
                manager_test(test_process_group_refused_while_a_thread_has_a_context),
                manager_test(test_new_thread_inherits_program_own_state_and_group),
                manager_test(test_thread_context_is_inherited_without_a_group),
                manager_test(test_no_inherit_creator_passes_nothing_on),
                manager_test(test_creator_without_context_passes_nothing_on),
                manager_test(test_child_process_joins_a_descendant_group),
                manager_test(test_child_process_does_not_join_a_process_group),
                manager_test(test_inherit_when_already_attached_restarts_the_counts),
                manager_test(test_deleted_member_takes_its_counts_out_of_the_group),
                manager_test(test_deleting_the_last_live_member_frees_the_group),
                manager_test(test_group_delete_removes_every_member),
                manager_test(test_lookup_of_exited_member_keeps_its_counts_in_the_group),
                manager_test(test_process_group_over_the_user_limit_leaves_nothing),
                manager_test(test_process_group_refused_when_a_dead_context_is_met_first),
                manager_test(test_free_with_live_group_touches_no_freed_context),
        };

        if (!usable())
                return 77;
        return cmocka_run_group_tests(tests, NULL, NULL);
}
