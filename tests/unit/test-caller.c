/* test-caller.c: the caller checks of daemon/kernel/caller.c that need no bus. caller_may_count() re-states
 * the kernel's perf_event_paranoid rule for a caller counting its own thread, so it gets a table
 * covering every branch; thread_pin()/thread_pin_alive() are run against this process's own
 * threads: a live one, tids that are not ours, and a thread that has exited. */
#include <errno.h>
#include <fcntl.h>             /* O_EXCL, which perf-syscall.h uses without including it */
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "caller.h"
#include "macro.h"
#include "perf-syscall.h"

static const char *verdict_name(CountVerdict v) {
        switch (v) {
        case COUNT_ALLOWED:
                return "allowed";
        case COUNT_DENIED:
                return "denied";
        case COUNT_KERNEL_DENIED:
                return "kernel denied";
        default:
                return "invalid";
        }
}

static void test_may_count_follows_paranoid_rules(void **state) {
        static const struct {
                uid_t euid;
                int paranoid;
                bool wants_kernel;
                bool owner_may_count_kernel;
                CountVerdict want;
        } table[] = {
                /* root: always */
                { 0,    3,  true,  false, COUNT_ALLOWED },
                { 0,    4,  true,  false, COUNT_ALLOWED },
                { 0,    2,  true,  false, COUNT_ALLOWED },
                /* paranoid >= 3: no unprivileged perf at all, even user mode, even visible events */
                { 1000, 3,  false, false, COUNT_DENIED },
                { 1000, 3,  false, true,  COUNT_DENIED },
                { 1000, 3,  true,  true,  COUNT_DENIED },
                { 1000, 4,  false, false, COUNT_DENIED },
                /* paranoid 2: user mode only, unless the owner sees the count anyway */
                { 1000, 2,  false, false, COUNT_ALLOWED },
                { 1000, 2,  true,  false, COUNT_KERNEL_DENIED },
                { 1000, 2,  true,  true,  COUNT_ALLOWED },
                /* paranoid 1 and below: kernel mode too */
                { 1000, 1,  true,  false, COUNT_ALLOWED },
                { 1000, 0,  true,  false, COUNT_ALLOWED },
                { 1000, -1, true,  false, COUNT_ALLOWED },
                { 1000, -1, false, false, COUNT_ALLOWED },
                { 65534, 2, true,  false, COUNT_KERNEL_DENIED },
        };

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                CountVerdict v = caller_may_count(table[i].euid, table[i].paranoid, table[i].wants_kernel,
                                                  table[i].owner_may_count_kernel);
                if (v != table[i].want)
                        fail_msg("euid %u paranoid %d kernel %d visible %d: %s, expected %s",
                                 (unsigned) table[i].euid, table[i].paranoid, table[i].wants_kernel,
                                 table[i].owner_may_count_kernel, verdict_name(v),
                                 verdict_name(table[i].want));
        }
}

static void test_paranoid_reads_the_sysctl(void **state) {
        FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
        int want = 3;                           /* unreadable: the most restrictive */

        if (f) {
                assert_int_equal(fscanf(f, "%d", &want), 1);
                fclose(f);
        }
        assert_int_equal(perf_event_paranoid(), want);
}

/* Each pin test runs with both kinds of thread pin (thread-pin.h). Thread pidfds (PIDFD_THREAD)
 * came with Linux 6.9, and valgrind 3.19 does not know pidfd_open at all: there the pidfd runs skip.
 * /proc pins work on every kernel. */
static ThreadPinKind pidfd_kind = THREAD_PIN_PIDFD, procfs_kind = THREAD_PIN_PROCFS;

static void use_pin_kind(void **state) {
        ThreadPinKind k = *(ThreadPinKind *) *state;
        int fd;

        thread_pins_set_kind(k);
        if (k != THREAD_PIN_PIDFD)
                return;
        fd = pidfd_open_thread(gettid());
        if (fd < 0 && (errno == ENOSYS || errno == EINVAL)) {
                print_message("# SKIP: pidfd_open(PIDFD_THREAD) unsupported here: %s\n", strerror(errno));
                skip();
        }
        assert_true(fd >= 0);
        close(fd);
}

/* Waits, at most 5 s, until the pinned thread is no longer alive: a thread pidfd polls, a /proc pin
 * is asked again. */
static bool wait_pin_dead(int pin) {
        if (thread_pins_poll())
                return poll(&(struct pollfd) { .fd = pin, .events = POLLIN }, 1, 5000) == 1 && !thread_pin_alive(pin);
        for (int i = 0; i < 5000 && thread_pin_alive(pin); i++)
                usleep(1000);
        return !thread_pin_alive(pin);
}

static void test_pin_own_thread_succeeds(void **state) {
        int pidfd = -1;

        use_pin_kind(state);

        assert_int_equal(thread_pin(getpid(), gettid(), &pidfd), 0);
        assert_true(pidfd >= 0);
        assert_true(thread_pin_alive(pidfd));
        close(pidfd);
}

static void test_pin_rejects_tids_that_are_not_our_threads(void **state) {
        static const pid_t bad_tids[] = { 1, 0, -1, -4242 };

        use_pin_kind(state);
        for (size_t i = 0; i < ELEMENTSOF(bad_tids); i++) {
                int pidfd = -77;

                if (bad_tids[i] == getpid())
                        continue;               /* we are pid 1 in a container: 1 is ours */
                if (thread_pin(getpid(), bad_tids[i], &pidfd) != -ESRCH)
                        fail_msg("tid %d accepted", (int) bad_tids[i]);
                assert_int_equal(pidfd, -77);   /* untouched on failure */
        }
}

static void test_pin_rejects_bad_pid(void **state) {
        int pidfd = -77;

        use_pin_kind(state);
        assert_int_equal(thread_pin(0, gettid(), &pidfd), -ESRCH);
        assert_int_equal(thread_pin(-1, gettid(), &pidfd), -ESRCH);
        assert_int_equal(pidfd, -77);
}

static void test_pin_rejects_thread_of_another_process(void **state) {
        pid_t child;
        int pidfd = -77, fds[2];
        char c;

        use_pin_kind(state);
        /* A child that lives until we close the pipe: its tid is real but not one of ours. */
        assert_int_equal(pipe(fds), 0);
        child = fork();
        assert_true(child >= 0);
        if (child == 0) {
                close(fds[1]);
                (void) read(fds[0], &c, 1);
                _exit(0);
        }
        close(fds[0]);
        assert_int_equal(thread_pin(getpid(), child, &pidfd), -ESRCH);
        assert_int_equal(pidfd, -77);
        /* The same thread named with its own pid pins. */
        assert_int_equal(thread_pin(child, child, &pidfd), 0);
        assert_true(thread_pin_alive(pidfd));
        close(fds[1]);
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
                ;
        assert_true(wait_pin_dead(pidfd));
        close(pidfd);
}

typedef struct Worker {
        pthread_mutex_t lock;
        pthread_cond_t cond;
        pid_t tid;
        bool may_exit;
} Worker;

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

static void test_pin_of_exited_thread_is_not_alive(void **state) {
        Worker w = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
        pthread_t thread;
        int pidfd = -1, other = -77;
        pid_t tid;

        use_pin_kind(state);
        assert_int_equal(pthread_create(&thread, NULL, worker_main, &w), 0);
        pthread_mutex_lock(&w.lock);
        while (w.tid == 0)
                pthread_cond_wait(&w.cond, &w.lock);
        tid = w.tid;
        pthread_mutex_unlock(&w.lock);

        assert_int_not_equal(tid, gettid());
        assert_int_equal(thread_pin(getpid(), tid, &pidfd), 0);
        assert_true(thread_pin_alive(pidfd));

        pthread_mutex_lock(&w.lock);
        w.may_exit = true;
        pthread_cond_broadcast(&w.cond);
        pthread_mutex_unlock(&w.lock);
        assert_int_equal(pthread_join(thread, NULL), 0);

        /* pthread_join returns when the kernel clears the tid, a moment before the thread is gone
         * for pidfd purposes: wait for the exit, bounded, then ask. */
        assert_true(wait_pin_dead(pidfd));
        close(pidfd);

        assert_int_equal(thread_pin(getpid(), tid, &other), -ESRCH);
        assert_int_equal(other, -77);
}

/* Starts a worker and returns its tid; the worker waits until may_exit. */
static pid_t worker_start(Worker *w, pthread_t *ret) {
        assert_int_equal(pthread_create(ret, NULL, worker_main, w), 0);
        pthread_mutex_lock(&w->lock);
        while (w->tid == 0)
                pthread_cond_wait(&w->cond, &w->lock);
        pthread_mutex_unlock(&w->lock);
        return w->tid;
}

static void worker_stop(Worker *w, pthread_t thread) {
        pthread_mutex_lock(&w->lock);
        w->may_exit = true;
        pthread_cond_broadcast(&w->cond);
        pthread_mutex_unlock(&w->lock);
        assert_int_equal(pthread_join(thread, NULL), 0);
}

/* The identity of a pinned thread is the same for every pin of it, another live thread's differs,
 * and a pin whose thread exited is never alive again, not even once a new thread has its tid (made to
 * reuse it through ns_last_pid, as root; skipped where that cannot be written). A thread pidfd's
 * identity (its pidfs inode) differs from the new thread's too; a /proc pin's (start time in 10 ms
 * ticks, and tid) need not, when the tid came back within the tick as here: that is why pmapid keeps
 * /proc pins open for as long as it counts a thread (manager.c, keeps_pin). */
static void test_pin_identity_survives_tid_reuse(void **state) {
        Worker a = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
        Worker b = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
        pthread_t ta, tb;
        int pin, again, reused = -1;
        uint64_t id;
        pid_t tid;

        use_pin_kind(state);
        tid = worker_start(&a, &ta);
        pin = thread_pin_open(tid);
        again = thread_pin_open(tid);
        assert_true(pin >= 0 && again >= 0);
        id = thread_pin_id(pin);
        assert_true(id != 0);
        assert_true(id == thread_pin_id(again));
        close(again);
        again = thread_pin_open(gettid());
        assert_true(thread_pin_id(again) != id && thread_pin_id(again) != 0);
        close(again);
        worker_stop(&a, ta);
        assert_true(wait_pin_dead(pin));

        /* Any process that starts a task between the write and the new thread takes the tid first:
         * with the parallel suite's thread bursts and a busy machine, 50 tries all lost once. Each
         * try costs a thread (about 20 us). */
        for (int attempt = 0; attempt < 20000 && reused < 0; attempt++) {
                FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "we");

                if (!f || fprintf(f, "%d", (int) tid - 1) < 0 || fclose(f) != 0) {
                        print_message("# SKIP (tid reuse): ns_last_pid cannot be written here\n");
                        close(pin);
                        return;
                }
                b = (Worker) { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
                if (worker_start(&b, &tb) == tid)
                        reused = thread_pin_open(tid);
                else
                        worker_stop(&b, tb);
        }
        assert_true(reused >= 0);                       /* the same tid, another thread */
        assert_true(thread_pin_alive(reused));
        assert_false(thread_pin_alive(pin));
        if (thread_pins_kind() == THREAD_PIN_PIDFD)
                assert_true(thread_pin_id(reused) != id && thread_pin_id(pin) == id);
        else
                assert_int_equal(thread_pin_id(pin), 0);        /* nothing resolves under it */
        close(reused);
        close(pin);
        worker_stop(&b, tb);
}

static void *sleep_on_pipe(void *arg) {
        char c;

        (void) read(*(int *) arg, &c, 1);
        return NULL;
}

/* A process's main thread that exits while another of its threads runs stays a zombie until that
 * one ends, and its tid with it. A /proc pin says the thread is gone at once; the kernel keeps a
 * thread pidfd of a main thread unreadable until the whole process has exited (Linux 6.18). Both
 * agree on what matters: while the pin says alive, the tid is that thread's. */
static void test_pin_of_exited_main_thread_is_not_alive(void **state) {
        int fds[2], pin;
        pid_t child;

        use_pin_kind(state);
        assert_int_equal(pipe(fds), 0);
        child = fork();
        assert_true(child >= 0);
        if (child == 0) {
                pthread_t t;

                close(fds[1]);
                if (pthread_create(&t, NULL, sleep_on_pipe, &fds[0]) != 0)
                        _exit(1);
                pthread_exit(NULL);
        }
        close(fds[0]);
        pin = thread_pin_open(child);
        assert_true(pin >= 0);
        if (thread_pins_kind() == THREAD_PIN_PROCFS) {
                assert_true(wait_pin_dead(pin));        /* while the other thread still sleeps */
                assert_int_equal(waitpid(child, NULL, WNOHANG), 0);
        }
        close(fds[1]);
        assert_int_equal(waitpid(child, NULL, 0), child);
        assert_true(wait_pin_dead(pin));
        close(pin);
}

#define PIN_TESTS(kind)                                                                            \
        cmocka_unit_test_prestate(test_pin_own_thread_succeeds, &kind),                            \
        cmocka_unit_test_prestate(test_pin_rejects_tids_that_are_not_our_threads, &kind),          \
        cmocka_unit_test_prestate(test_pin_rejects_bad_pid, &kind),                                \
        cmocka_unit_test_prestate(test_pin_rejects_thread_of_another_process, &kind),              \
        cmocka_unit_test_prestate(test_pin_of_exited_thread_is_not_alive, &kind),                  \
        cmocka_unit_test_prestate(test_pin_identity_survives_tid_reuse, &kind),                    \
        cmocka_unit_test_prestate(test_pin_of_exited_main_thread_is_not_alive, &kind)

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_may_count_follows_paranoid_rules),
                cmocka_unit_test(test_paranoid_reads_the_sysctl),
                PIN_TESTS(pidfd_kind),
                PIN_TESTS(procfs_kind),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
