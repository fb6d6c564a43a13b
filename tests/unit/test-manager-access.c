/* test-manager-access.c: the manager's third-party rules (daemon/model/manager.c, manager-group.c) over the
 * fake counter backend and real target processes: a caller may act on another process's thread
 * only as the access rule allows (access.h, tested as a table in test-access.c), the refusal comes
 * before any context is looked at, pmapid's own threads are refused to root too, a recycled pid
 * never reaches the context of the process that had it, and a kernel-mode context is read only
 * by callers the kernel would let count it. Needs root (targets of other uids, ns_last_pid) and
 * thread pidfds: else exit 77. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "caller.h"
#include "counter.h"
#include "event-table.h"
#include "macro.h"
#include "manager.h"
#include "perf-syscall.h"
#include "pmapi.h"
#include "program.h"

#define NOBODY 65534
#define MAX_CHILDREN 4

/* A parked process of some identity: it lives until its pipe closes. */
typedef struct Child {
        pid_t pid;
        int fd;
} Child;

typedef struct Fixture {
        Manager *m;
        Caller root;                    /* root, in this process: a third party to the children */
        Caller nobody;                  /* uid 65534, in this process */
        Child children[MAX_CHILDREN];
        size_t n_children;
} Fixture;

typedef enum Identity { AS_ROOT, AS_NOBODY, AS_NOBODY_NOT_DUMPABLE, AS_NOBODY_SET_ID } Identity;

/* After fork only async-signal-safe calls: set the identity, say so, block. */
static void child_main(Identity id, int ready, int park) {
        char c = 'x';

        if (id != AS_ROOT) {
                if (setgroups(0, NULL) < 0 || setresgid(NOBODY, NOBODY, NOBODY) < 0 ||
                    setresuid(NOBODY, NOBODY, id == AS_NOBODY_SET_ID ? 0 : NOBODY) < 0)
                        _exit(1);
                /* Changing uids made us non-dumpable; a plain nobody process is dumpable. */
                (void) prctl(PR_SET_DUMPABLE, id == AS_NOBODY_NOT_DUMPABLE ? 0 : 1);
        }
        (void) write(ready, &c, 1);
        (void) read(park, &c, 1);
        _exit(0);
}

static Child *child_start(Fixture *f, Identity id) {
        int ready[2], park[2];
        Child *ch;
        char c;

        assert_true(f->n_children < MAX_CHILDREN);
        assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
        assert_int_equal(pipe2(park, O_CLOEXEC), 0);
        ch = &f->children[f->n_children++];
        ch->pid = fork();
        assert_true(ch->pid >= 0);
        if (ch->pid == 0)
                child_main(id, ready[1], park[0]);
        close(ready[1]);
        close(park[0]);
        assert_int_equal(read(ready[0], &c, 1), 1);
        close(ready[0]);
        ch->fd = park[1];
        return ch;
}

static void child_kill(Child *ch) {
        if (ch->pid <= 0)
                return;
        kill(ch->pid, SIGKILL);
        close(ch->fd);
        while (waitpid(ch->pid, NULL, 0) < 0 && errno == EINTR)
                ;
        ch->pid = 0;
}

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(*f));
        EventTable *t = NULL;
        int pidfd;

        if (geteuid() != 0) {
                fprintf(stderr, "# needs root: targets of other users\n");
                exit(77);
        }
        pidfd = pidfd_open_thread(gettid());
        if (pidfd < 0) {
                fprintf(stderr, "# no PIDFD_THREAD (Linux < 6.9)\n");
                exit(77);
        }
        close(pidfd);
        if (!f || event_table_new_unprobed(event_sources, n_event_sources, &t) < 0)
                return -1;
        if (manager_new(/* event= */ NULL, &counter_backend_fake, t, &f->m) < 0)
                return -1;
        f->root = (Caller) { .pid = getpid(), .euid = 0, .egid = 0 };
        f->nobody = (Caller) { .pid = getpid(), .euid = NOBODY, .egid = NOBODY };
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;

        manager_free(f->m);
        for (size_t i = 0; i < f->n_children; i++)
                child_kill(&f->children[i]);
        free(f);
        return 0;
}

static Program page_faults(uint32_t mode) {
        Program p = { .mode = mode };

        for (int c = 0; c < MAX_COUNTERS; c++)
                p.events[c] = COUNT_NOTHING;
        p.events[0] = EVENT_ID(2);                /* PM_PAGE_FLT */
        return p;
}

static void test_root_acts_on_another_process(void **state) {
        Fixture *f = *state;
        Child *ch = child_start(f, AS_NOBODY);
        Program p = page_faults(PM_USER | PM_COUNT);
        Caller own = { .pid = ch->pid, .euid = NOBODY, .egid = NOBODY };
        Context *c = NULL, *c2 = NULL;

        assert_int_equal(manager_set_program(f->m, &f->root, ch->pid, ch->pid, &p, NULL), 0);
        assert_int_equal(manager_get_thread(f->m, &f->root, ch->pid, ch->pid, &c, NULL), 0);
        assert_int_equal(c->owner_uid, 0);                      /* the caller's, whoever's thread */
        assert_int_equal(c->target_uid, NOBODY);
        assert_int_equal(c->creator_pid, getpid());
        assert_int_equal(c->origin, CONTEXT_SET_PROGRAM);
        /* The target's own first-party calls find the same context (scenario S2). */
        assert_int_equal(manager_get_thread(f->m, &own, ch->pid, ch->pid, &c2, NULL), 0);
        assert_ptr_equal(c, c2);
        assert_int_equal(manager_set_program(f->m, &f->root, ch->pid, ch->pid, &p, NULL), -EEXIST);
        manager_delete_context(f->m, c);
        assert_int_equal(manager_get_thread(f->m, &f->root, ch->pid, ch->pid, &c, NULL), -ENODATA);
}

static void test_owner_acts_on_its_dumpable_process(void **state) {
        Fixture *f = *state;
        Child *ch = child_start(f, AS_NOBODY);
        Program p = page_faults(PM_USER);
        Context *c = NULL;

        assert_int_equal(manager_set_program(f->m, &f->nobody, ch->pid, ch->pid, &p, NULL), 0);
        assert_int_equal(manager_get_thread(f->m, &f->nobody, ch->pid, ch->pid, &c, NULL), 0);
        assert_int_equal(c->owner_uid, NOBODY);
}

/* The refusal names its reason, and is the same whether or not the thread has a context. */
static void test_refusals_come_before_the_context_lookup(void **state) {
        Fixture *f = *state;
        Child *with = child_start(f, AS_ROOT), *without = child_start(f, AS_ROOT);
        Program p = page_faults(PM_USER | PM_COUNT);
        AccessVerdict v1 = ACCESS_SELF, v2 = ACCESS_SELF;
        Context *c = NULL;

        assert_int_equal(manager_set_program(f->m, &f->root, with->pid, with->pid, &p, NULL), 0);
        assert_int_equal(manager_get_thread(f->m, &f->nobody, with->pid, with->pid, &c, &v1), -EPERM);
        assert_int_equal(manager_get_thread(f->m, &f->nobody, without->pid, without->pid, &c, &v2), -EPERM);
        assert_int_equal(v1, ACCESS_DENIED_OTHER_USER);
        assert_int_equal(v2, v1);
        assert_null(c);
        v1 = ACCESS_SELF;
        assert_int_equal(manager_set_program(f->m, &f->nobody, without->pid, without->pid, &p, &v1), -EPERM);
        assert_int_equal(v1, ACCESS_DENIED_OTHER_USER);
        assert_int_equal(manager_n_contexts(f->m), 1);
        /* A thread that does not exist: no such thread, as /proc says. */
        assert_int_equal(manager_get_thread(f->m, &f->nobody, with->pid, 1, &c, NULL), -ESRCH);
}

static void test_each_refusal_reason_reaches_the_caller(void **state) {
        Fixture *f = *state;
        Child *hidden = child_start(f, AS_NOBODY_NOT_DUMPABLE), *setid = child_start(f, AS_NOBODY_SET_ID);
        Program p = page_faults(PM_USER);
        AccessVerdict v = ACCESS_SELF;

        assert_int_equal(manager_set_program(f->m, &f->nobody, hidden->pid, hidden->pid, &p, &v), -EPERM);
        assert_int_equal(v, ACCESS_DENIED_NOT_DUMPABLE);
        assert_int_equal(manager_set_program(f->m, &f->nobody, setid->pid, setid->pid, &p, &v), -EPERM);
        assert_int_equal(v, ACCESS_DENIED_SET_ID);
        /* Root may do both. */
        assert_int_equal(manager_set_program(f->m, &f->root, hidden->pid, hidden->pid, &p, NULL), 0);
        assert_int_equal(manager_set_program(f->m, &f->root, setid->pid, setid->pid, &p, NULL), 0);
}

static void test_daemon_threads_are_refused_to_root(void **state) {
        Fixture *f = *state;
        Child *ch = child_start(f, AS_ROOT);
        Caller other_root = { .pid = ch->pid, .euid = 0, .egid = 0 };
        Program p = page_faults(PM_USER);
        AccessVerdict v = ACCESS_SELF;
        Context *c;

        /* This process plays pmapid (m->self_pid); the caller is another process. */
        assert_int_equal(manager_set_program(f->m, &other_root, getpid(), gettid(), &p, &v), -EPERM);
        assert_int_equal(v, ACCESS_DENIED_DAEMON);
        assert_int_equal(manager_set_group_program(f->m, &other_root, getpid(), gettid(), &p, &v), -EPERM);
        assert_int_equal(manager_get_thread(f->m, &other_root, getpid(), gettid(), &c, &v), -EPERM);
        assert_int_equal(manager_n_contexts(f->m), 0);
}

static int write_ns_last_pid(pid_t pid) {
        FILE *fp = fopen("/proc/sys/kernel/ns_last_pid", "we");

        if (!fp)
                return -1;
        fprintf(fp, "%d\n", (int) pid);
        return fclose(fp);
}

/* A new parked root process with pid `want`, or 0 if other processes kept taking it. */
static pid_t child_with_pid(Fixture *f, pid_t want) {
        for (int attempt = 0; attempt < 200; attempt++) {
                Child *ch;

                if (write_ns_last_pid(want - 1) < 0)
                        return 0;
                ch = child_start(f, AS_ROOT);
                if (ch->pid == want)
                        return want;
                child_kill(ch);
                f->n_children--;
        }
        return 0;
}

/* The target dies and its pid goes to a new process before pmapid handled the exit (no event loop
 * here: the old context is still in the table). The new process is not the old one's. */
static void test_recycled_pid_never_reaches_the_old_context(void **state) {
        Fixture *f = *state;
        Child *old = child_start(f, AS_NOBODY);
        Program p = page_faults(PM_USER | PM_COUNT);
        pid_t pid = old->pid;
        Context *c = NULL;

        assert_int_equal(manager_set_program(f->m, &f->root, pid, pid, &p, NULL), 0);
        counter_fake_count(counter_fake_last_opened(), 0, 1234);
        child_kill(old);
        assert_int_equal(manager_n_contexts(f->m), 1);          /* not yet noticed */
        if (child_with_pid(f, pid) != pid)
                skip();                                         /* the machine kept taking the pid */
        assert_int_equal(manager_get_thread(f->m, &f->root, pid, pid, &c, NULL), -ENODATA);
        assert_null(c);
        assert_int_equal(manager_n_contexts(f->m), 0);          /* the dead one is gone */
        /* A new program on the new process counts from zero, never the old 1234. */
        assert_int_equal(manager_set_program(f->m, &f->root, pid, pid, &p, NULL), 0);
        assert_int_equal(manager_get_thread(f->m, &f->root, pid, pid, &c, NULL), 0);
        AcctVector accu;
        assert_int_equal(context_read(c, accu), 0);
        assert_int_equal(accu[0], 0);
}

/* A pin taken before the target died is not alive after: the check refuses to decide on it. */
static void test_dead_target_is_no_such_thread(void **state) {
        Fixture *f = *state;
        Child *ch = child_start(f, AS_NOBODY);
        Program p = page_faults(PM_USER);
        pid_t pid = ch->pid;

        child_kill(ch);
        assert_int_equal(manager_check_access(f->m, &f->root, pid, pid, NULL, NULL), -ESRCH);
        assert_int_equal(manager_set_program(f->m, &f->root, pid, pid, &p, NULL), -ESRCH);
}

static void test_process_group_of_another_process(void **state) {
        Fixture *f = *state;
        Child *ch = child_start(f, AS_NOBODY);
        Program p = page_faults(PM_USER | PM_COUNT | PM_PROCESS);
        Context *c = NULL;
        Group *g = NULL;

        assert_int_equal(manager_set_group_program(f->m, &f->nobody, ch->pid, ch->pid, &p, NULL), 0);
        assert_int_equal(manager_get_group(f->m, &f->nobody, ch->pid, ch->pid, &c, &g, NULL), 0);
        assert_true(g->process);
        assert_int_equal(g->pid, ch->pid);
        assert_int_equal(g->owner_uid, NOBODY);
        assert_int_equal(c->origin, CONTEXT_SET_GROUP_PROGRAM);
        /* Another user sees neither the group nor the context. */
        Caller other = { .pid = getpid(), .euid = 4321, .egid = 4321 };
        AccessVerdict v = ACCESS_SELF;
        assert_int_equal(manager_get_group(f->m, &other, ch->pid, ch->pid, &c, &g, &v), -EPERM);
        assert_int_equal(v, ACCESS_DENIED_OTHER_USER);
}

static void test_kernel_mode_contexts_are_read_only_by_whom_the_kernel_allows(void **state) {
        Fixture *f = *state;
        Program cycles_kernel = { .mode = PM_USER | PM_KERNEL }, cycles_user = { .mode = PM_USER };
        bool nobody_may = perf_event_paranoid() <= 1;

        for (int c = 0; c < MAX_COUNTERS; c++)
                cycles_kernel.events[c] = cycles_user.events[c] = COUNT_NOTHING;
        cycles_kernel.events[0] = cycles_user.events[0] = EVENT_ID(100);  /* PM_CYC: not shown to owners */
        assert_int_equal(manager_check_read(f->m, &f->root, &cycles_kernel, NOBODY), 0);
        assert_int_equal(manager_check_read(f->m, &f->nobody, &cycles_kernel, NOBODY), 0);     /* owner */
        assert_int_equal(manager_check_read(f->m, &f->nobody, &cycles_kernel, 0), nobody_may ? 0 : -EACCES);
        assert_int_equal(manager_check_read(f->m, &f->nobody, &cycles_user, 0), 0);     /* user mode only */
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_root_acts_on_another_process, setup, teardown),
                cmocka_unit_test_setup_teardown(test_owner_acts_on_its_dumpable_process, setup, teardown),
                cmocka_unit_test_setup_teardown(test_refusals_come_before_the_context_lookup, setup, teardown),
                cmocka_unit_test_setup_teardown(test_each_refusal_reason_reaches_the_caller, setup, teardown),
                cmocka_unit_test_setup_teardown(test_daemon_threads_are_refused_to_root, setup, teardown),
                cmocka_unit_test_setup_teardown(test_recycled_pid_never_reaches_the_old_context, setup, teardown),
                cmocka_unit_test_setup_teardown(test_dead_target_is_no_such_thread, setup, teardown),
                cmocka_unit_test_setup_teardown(test_process_group_of_another_process, setup, teardown),
                cmocka_unit_test_setup_teardown(
                        test_kernel_mode_contexts_are_read_only_by_whom_the_kernel_allows, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
