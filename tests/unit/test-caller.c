/* test-caller.c: the caller checks of daemon/caller.c that need no bus. caller_may_count() re-states
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

/* Thread pidfds (PIDFD_THREAD) came with Linux 6.9; valgrind 3.19 does not know pidfd_open at all.
 * Without them no thread can be pinned, so the tests that expect a pin to succeed skip. */
static void skip_without_thread_pidfds(void) {
        int fd = pidfd_open_thread(gettid());

        if (fd < 0 && (errno == ENOSYS || errno == EINVAL)) {
                print_message("# SKIP: pidfd_open(PIDFD_THREAD) unsupported here: %s\n", strerror(errno));
                skip();
        }
        assert_true(fd >= 0);
        close(fd);
}

static void test_pin_own_thread_succeeds(void **state) {
        int pidfd = -1;

        skip_without_thread_pidfds();

        assert_int_equal(thread_pin(getpid(), gettid(), &pidfd), 0);
        assert_true(pidfd >= 0);
        assert_true(thread_pin_alive(pidfd));
        close(pidfd);
}

static void test_pin_rejects_tids_that_are_not_our_threads(void **state) {
        static const pid_t bad_tids[] = { 1, 0, -1, -4242 };

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

        assert_int_equal(thread_pin(0, gettid(), &pidfd), -ESRCH);
        assert_int_equal(thread_pin(-1, gettid(), &pidfd), -ESRCH);
        assert_int_equal(pidfd, -77);
}

static void test_pin_rejects_thread_of_another_process(void **state) {
        pid_t child;
        int pidfd = -77, fds[2];
        char c;

        skip_without_thread_pidfds();
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
        assert_int_equal(poll(&(struct pollfd) { .fd = pidfd, .events = POLLIN }, 1, 5000), 1);
        assert_false(thread_pin_alive(pidfd));
        close(pidfd);
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
                ;
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
        struct pollfd pfd;
        pthread_t thread;
        int pidfd = -1, other = -77;
        pid_t tid;

        skip_without_thread_pidfds();
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
        pfd = (struct pollfd) { .fd = pidfd, .events = POLLIN };
        assert_int_equal(poll(&pfd, 1, 5000), 1);
        assert_false(thread_pin_alive(pidfd));
        close(pidfd);

        assert_int_equal(thread_pin(getpid(), tid, &other), -ESRCH);
        assert_int_equal(other, -77);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_may_count_follows_paranoid_rules),
                cmocka_unit_test(test_paranoid_reads_the_sysctl),
                cmocka_unit_test(test_pin_own_thread_succeeds),
                cmocka_unit_test(test_pin_rejects_tids_that_are_not_our_threads),
                cmocka_unit_test(test_pin_rejects_bad_pid),
                cmocka_unit_test(test_pin_rejects_thread_of_another_process),
                cmocka_unit_test(test_pin_of_exited_thread_is_not_alive),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
