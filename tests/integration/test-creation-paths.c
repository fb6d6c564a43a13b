/* test-creation-paths.c: a descendant group counts every thread and process its members create,
 * from their first instruction, whatever creates them (AIX inherits inside the kernel; pmapid does
 * with KernelInheritance): pthread_create, fork, a raw clone(2) thread as Go's runtime makes them,
 * a raw clone(2) process sharing memory, vfork + exec, posix_spawn and system() of a static
 * worker, and a clone(2) into a new PID namespace. Each path: 20 workers touching 1,000 pages each at once, on CPUs kept busy by spinners,
 * as root and as uid 65534. The group's growth must equal what perf stat would count over the same
 * window: a page-fault counter with perf's own inheritance opened on the creating thread (it counts
 * that thread and everything it creates, as perf stat counts a command), and the group must not be
 * partial. getrusage's count is printed beside them: it is one fault per exec higher (copying the
 * arguments to the new stack goes through get_user_pages, which perf's event does not see), and a
 * little lower when parent and child copy the same pages at once after fork (perf counts a fault
 * the other CPU resolved first). */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <systemd/sd-bus.h>

#include "bus-fixture.h"
#include "check.h"
#include "paranoid.h"
#include "pmapi.h"
#include "workload.h"

extern char **environ;

static BusFixture fixture;

#define WORKERS 20
#define PAGES 1000
#define STACK_SIZE (64 * 1024)
/* The group's window is a little wider than the reference's: the few faults of the creator between
 * its group reads and its reads of the reference (sd-bus's messages). */
#define WINDOW_FAULTS 3

typedef enum Path {
        PATH_PTHREAD, PATH_FORK, PATH_RAW_THREAD, PATH_RAW_PROCESS, PATH_VFORK_EXEC, PATH_POSIX_SPAWN,
        PATH_SYSTEM, PATH_PID_NAMESPACE, _PATH_MAX
} Path;

static const char *const path_names[_PATH_MAX] = {
        "pthread_create", "fork", "raw clone thread", "raw clone process (shared memory)",
        "vfork + exec", "posix_spawn", "system()", "clone into a new PID namespace",
};

/* The faults of this process's threads, live and exited, and of the children it waited for. */
static long long process_faults(void) {
        struct rusage self, children;

        if (getrusage(RUSAGE_SELF, &self) < 0 || getrusage(RUSAGE_CHILDREN, &children) < 0)
                return -1;
        return self.ru_minflt + self.ru_majflt + children.ru_minflt + children.ru_majflt;
}

/* Touches PAGES fresh pages with nothing but system calls: safe in a raw clone, which has no libc
 * thread of its own (no TLS, so no errno). */
static int touch_raw(void) {
        long page = sysconf(_SC_PAGESIZE);
        char *p = (char *) syscall(SYS_mmap, NULL, (size_t) PAGES * page, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

        if (p == MAP_FAILED)
                return 1;
        (void) syscall(SYS_madvise, p, (size_t) PAGES * page, MADV_NOHUGEPAGE);
        for (long i = 0; i < PAGES; i++)
                p[i * page] = 1;
        return 0;
}

static int raw_thread_main(void *arg) {
        (void) arg;
        syscall(SYS_exit, touch_raw());
        return 0;
}

/* Whether this user may make a user namespace (Debian's kernels before 6.x may forbid it:
 * kernel.unprivileged_userns_clone). */
static bool unprivileged_pid_namespaces(void) {
        pid_t pid = (pid_t) syscall(SYS_clone, CLONE_NEWUSER | CLONE_NEWPID | SIGCHLD, NULL, NULL, NULL, 0);

        if (pid == 0)
                syscall(SYS_exit_group, 0);
        if (pid < 0)
                return false;
        (void) waitpid(pid, NULL, 0);
        return true;
}

/* A process that is PID 1 of its own namespace: pmapid and the BPF programs know it by its pid in
 * the first namespace. */
static int pid_namespace_main(void *arg) {
        (void) arg;
        syscall(SYS_exit_group, touch_raw());
        return 0;
}

static void *pthread_main(void *arg) {
        (void) arg;
        return (void *) (intptr_t) touch_fresh_pages(PAGES);
}

/* The kernel clears the word and wakes it at the raw thread's exit (CLONE_CHILD_CLEARTID). */
static void wait_cleared(volatile pid_t *tid) {
        pid_t t;

        while ((t = __atomic_load_n(tid, __ATOMIC_ACQUIRE)) != 0)
                (void) syscall(SYS_futex, tid, FUTEX_WAIT, t, NULL, NULL, 0);
}

typedef struct Worker {
        pid_t pid;                      /* a process's, for waitpid */
        pthread_t thread;
        volatile pid_t raw_tid;         /* a raw thread's, cleared at its exit */
        void *stack;
} Worker;

static int start_worker(Path p, Worker *w, const char *worker_path) {
        char pages[16], command[512];
        char *argv[] = { (char *) worker_path, pages, NULL };
        int flags;

        snprintf(pages, sizeof(pages), "%d", PAGES);
        switch (p) {
        case PATH_PTHREAD:
                return pthread_create(&w->thread, NULL, pthread_main, NULL) == 0 ? 0 : -1;
        case PATH_FORK:
                w->pid = fork();
                if (w->pid == 0)
                        _exit(touch_fresh_pages(PAGES) == 0 ? 0 : 1);
                return w->pid > 0 ? 0 : -1;
        case PATH_RAW_THREAD:
        case PATH_RAW_PROCESS:
                w->stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
                                -1, 0);
                if (w->stack == MAP_FAILED)
                        return -1;
                flags = p == PATH_RAW_THREAD ?
                        CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
                        CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID : CLONE_VM | SIGCHLD;
                w->pid = clone(raw_thread_main, (char *) w->stack + STACK_SIZE, flags, NULL,
                               &w->raw_tid, NULL, &w->raw_tid);
                return w->pid > 0 ? 0 : -1;
        case PATH_PID_NAMESPACE:
                w->stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
                                -1, 0);
                if (w->stack == MAP_FAILED)
                        return -1;
                /* A user that is not root needs a user namespace of its own to make one */
                flags = CLONE_NEWPID | SIGCHLD | (geteuid() != 0 ? CLONE_NEWUSER : 0);
                w->pid = clone(pid_namespace_main, (char *) w->stack + STACK_SIZE, flags, NULL);
                return w->pid > 0 ? 0 : -1;
        case PATH_VFORK_EXEC:
                w->pid = vfork();
                if (w->pid == 0) {
                        execv(worker_path, argv);
                        _exit(127);
                }
                return w->pid > 0 ? 0 : -1;
        case PATH_POSIX_SPAWN:
                return posix_spawn(&w->pid, worker_path, NULL, NULL, argv, environ) == 0 ? 0 : -1;
        case PATH_SYSTEM:
                snprintf(command, sizeof(command), "%s %d", worker_path, PAGES);
                return system(command) == 0 ? 0 : -1;
        default:
                return -1;
        }
}

static int finish_worker(Path p, Worker *w) {
        void *ret = NULL;
        int status = 0;

        switch (p) {
        case PATH_PTHREAD:
                return pthread_join(w->thread, &ret) == 0 && ret == NULL ? 0 : -1;
        case PATH_RAW_THREAD:
                wait_cleared(&w->raw_tid);
                (void) munmap(w->stack, STACK_SIZE);
                return 0;
        case PATH_SYSTEM:
                return 0;               /* system() waited */
        default:
                if (waitpid(w->pid, &status, 0) != w->pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                        return -1;
                if (p == PATH_RAW_PROCESS || p == PATH_PID_NAMESPACE)
                        (void) munmap(w->stack, STACK_SIZE);
                return 0;
        }
}

/* One path: a descendant group on this thread, the workers, and the group's growth against the
 * kernel's count of the same window. */
static int path_body(void *arg) {
        Path p = (Path) (intptr_t) arg;
        const char *worker_path = getenv("PMAPI_SPAWN_WORKER");
        static Worker w[WORKERS];
        long long k0, k1, ref, grew;
        int started = 0, failed = 0;
        FaultWindow win;

        CHECK(worker_path != NULL);
        if (p == PATH_PID_NAMESPACE && geteuid() != 0 && !unprivileged_pid_namespaces()) {
                print_message("# uid %d may not make a user namespace here (a PID namespace needs one): "
                              "skipped\n", (int) geteuid());
                return 0;
        }
        /* Debian's kernels refuse perf_event_open to users at paranoid 3 (pmapid, with CAP_PERFMON,
         * may still count for them): the kernel's own count of this process's faults is then the
         * reference, which equals perf's for threads (an exec adds one fault to it). */
        CHECK(fault_window_open(&win, paranoid_now() >= 3 && (p == PATH_PTHREAD || p == PATH_RAW_THREAD)) == 0);
        k0 = process_faults();
        for (; started < WORKERS; started++)
                if (start_worker(p, &w[started], worker_path) < 0)
                        break;
        for (int i = 0; i < started; i++)
                failed += finish_worker(p, &w[i]) < 0;
        /* Not fault_window_close(): getrusage is read between the group's reads, as perf's counter. A
         * fork write-protected this process's pages: the read's first writes to them fault, inside
         * both windows, so that the read after the references' finds them written. */
        CHECK_RC(pm_get_data_mygroup(&win.g1), 0);
        k1 = process_faults();
        ref = win.perf >= 0 ? perf_read(win.perf) - win.p0 : k1 - k0;
        CHECK_RC(pm_get_data_mygroup(&win.g1), 0);
        CHECK_RC(pm_delete_program_mygroup(), 0);
        if (win.perf >= 0)
                close(win.perf);
        CHECK(started == WORKERS && failed == 0);

        grew = win.g1.accu[0] - win.g0.accu[0];
        print_message("# %s: the group grew by %lld, perf's inherited counter by %lld, getrusage by %lld "
                      "(%d workers of %d pages)\n", path_names[p], grew, ref, k1 - k0, WORKERS, PAGES);
        CHECK(!win.g1.ginfo.flags.b.partial);
        CHECK(grew >= (long long) WORKERS * PAGES);
        /* getrusage also counts the few faults taken in the kernel's own accesses to user memory */
        CHECK_RANGE(grew, ref - (win.perf >= 0 ? 0 : WINDOW_FAULTS), ref + WINDOW_FAULTS);
        return 0;
}

/* Two processes spinning for the test's length: exactness must not depend on an idle machine. */
static pid_t spinners[2];

static void spin_start(void) {
        for (size_t i = 0; i < 2; i++) {
                spinners[i] = fork();
                if (spinners[i] == 0) {
                        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);  /* never outlive a crashed test */
                        (void) alarm(300);
                        for (;;)
                                __asm__ volatile("" ::: "memory");
                }
        }
}

static void spin_stop(void) {
        for (size_t i = 0; i < 2; i++)
                if (spinners[i] > 0) {
                        (void) kill(spinners[i], SIGKILL);
                        (void) waitpid(spinners[i], NULL, 0);
                }
}

static void run_path(Path p) {
        int as_root, as_nobody;

        if (!kernel_inheritance())
                skip();                 /* pmapid without BPF attaches late: test-inheritance covers it */
        spin_start();
        as_root = path_body((void *) (intptr_t) p);
        as_nobody = run_as_nobody(path_body, (void *) (intptr_t) p);
        spin_stop();
        assert_int_equal(as_root, 0);
        assert_int_equal(as_nobody, 0);
}

/* pmapid re-executed (SIGHUP, as `systemctl reload`) three times while the creator makes 200 raw
 * clone threads one after the other: the kernel's programs never stop, so every thread is born
 * counting and the group is still exactly what perf's inherited counter says. Root only: only root
 * may signal pmapid. */
#define RELOAD_WORKERS 200
#define RELOADS 3

static volatile bool reloads_start;
static int reloads_done;

/* The images before this pmapid (its Predecessors): one more after each re-execution. */
static size_t n_predecessors(void) {
        sd_bus *bus = NULL;
        char **names = NULL;
        size_t n = 0;

        if (sd_bus_open_system(&bus) >= 0 &&
            sd_bus_get_property_strv(bus, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1", "org.pmapi.PerfMon1.Manager",
                                     "Predecessors", NULL, &names) >= 0)
                for (; names && names[n]; n++)
                        free(names[n]);
        free(names);
        sd_bus_flush_close_unref(bus);
        return n;
}

static void *reloader(void *arg) {
        (void) arg;
        while (!__atomic_load_n(&reloads_start, __ATOMIC_ACQUIRE))
                usleep(1000);
        for (int i = 0; i < RELOADS; i++) {
                size_t before = n_predecessors();

                (void) kill(fixture.daemon_pid, SIGHUP);
                /* The next one once this image serves: a SIGHUP during a start is one re-exec. */
                for (int k = 0; k < 200 && n_predecessors() <= before; k++)
                        usleep(10 * 1000);
                reloads_done += n_predecessors() > before;
        }
        return NULL;
}

static int reload_body(void) {
        static Worker w[RELOAD_WORKERS];
        long long grew, ref;
        uint64_t ambiguous;
        FaultWindow win;
        pthread_t t;
        int failed = 0;

        CHECK(pthread_create(&t, NULL, reloader, NULL) == 0);  /* before the group: not a member */
        CHECK(fault_window_open(&win, false) == 0);
        ambiguous = ambiguous_slices();
        __atomic_store_n(&reloads_start, true, __ATOMIC_RELEASE);
        for (int i = 0; i < RELOAD_WORKERS; i++) {
                failed += start_worker(PATH_RAW_THREAD, &w[i], NULL) < 0;
                failed += finish_worker(PATH_RAW_THREAD, &w[i]) < 0;
                usleep(2000);           /* the creations span the reloads */
        }
        CHECK(pthread_join(t, NULL) == 0);
        usleep(500 * 1000);                             /* the last image serves */
        CHECK(fault_window_close(&win) == 0);
        CHECK(failed == 0);
        grew = win.g1.accu[0] - win.g0.accu[0];
        ref = win.p1 - win.p0;
        ambiguous = ambiguous_slices() - ambiguous;
        print_message("# %d reloads while %d raw clone threads came and went: the group grew by %lld, perf's "
                      "inherited counter by %lld (%llu ambiguous slices)\n", RELOADS, RELOAD_WORKERS, grew, ref,
                      (unsigned long long) ambiguous);
        CHECK(!win.g1.ginfo.flags.b.partial);
        /* A switch the kernel's tracepoint did not show, next to this process's reloader thread or
         * pmapid re-executing, may move a few faults in or out of the group (pmapid counts such
         * slices): the range widens by one fault for each. Measured: +4 with 3 allowed, once in CI. */
        CHECK_RANGE(grew, ref - (long long) ambiguous, ref + WINDOW_FAULTS + (long long) ambiguous);
        return 0;
}

static void test_reexec_while_threads_are_created(void **state) {
        int r;

        (void) state;
        if (!kernel_inheritance())
                skip();
        spin_start();
        r = reload_body();
        spin_stop();
        assert_int_equal(r, 0);
        assert_int_equal(reloads_done, RELOADS);
}

static void test_pthread_create(void **state) { (void) state; run_path(PATH_PTHREAD); }
static void test_fork(void **state) { (void) state; run_path(PATH_FORK); }
static void test_raw_clone_thread(void **state) { (void) state; run_path(PATH_RAW_THREAD); }
static void test_raw_clone_process(void **state) { (void) state; run_path(PATH_RAW_PROCESS); }
static void test_vfork_exec(void **state) { (void) state; run_path(PATH_VFORK_EXEC); }
static void test_posix_spawn(void **state) { (void) state; run_path(PATH_POSIX_SPAWN); }
static void test_system(void **state) { (void) state; run_path(PATH_SYSTEM); }
static void test_pid_namespace(void **state) { (void) state; run_path(PATH_PID_NAMESPACE); }

/* A counted process of uid 65534 runs a set-uid-root program (vfork + exec), which forks a child;
 * both touch PAGES pages. The kernel stops perf's inherited counters at such an exec
 * (begin_new_exec() calls perf_event_exit_task() when the new image is not dumpable by its user),
 * and the group stops there too: it grows by what perf's inherited counter does, the vfork child's
 * few faults before its exec, and not by the set-id program's pages nor its child's. The same
 * program without its set-uid bit is counted whole, child included: the check can fail. */
static char setid_worker[300];

static int setid_body(void *arg) {
        const char *worker = arg ? setid_worker : getenv("PMAPI_SPAWN_WORKER");
        char pages[16];
        char *argv[] = { (char *) worker, pages, "fork", NULL };
        long long grew, ref;
        FaultWindow win;
        int status = -1;
        pid_t pid;

        snprintf(pages, sizeof(pages), "%d", PAGES);
        CHECK(fault_window_open(&win, false) == 0);
        pid = vfork();
        if (pid == 0) {
                execv(worker, argv);
                _exit(127);
        }
        CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
        usleep(100 * 1000);             /* a late attach of the child it forked has had its chance */
        CHECK(fault_window_close(&win) == 0);
        grew = win.g1.accu[0] - win.g0.accu[0];
        ref = win.p1 - win.p0;
        print_message("# uid %d, %s: the group grew by %lld, perf's inherited counter by %lld\n", (int) geteuid(),
                      arg ? "set-uid-root program" : "the same program, no set-uid bit", grew, ref);
        CHECK(!win.g1.ginfo.flags.b.partial);
        CHECK_RANGE(grew, ref, ref + WINDOW_FAULTS);
        if (arg)
                CHECK(grew < PAGES);
        else
                CHECK(grew >= 2 * PAGES);
        return 0;
}

static void test_set_id_exec(void **state) {
        const char *worker = getenv("PMAPI_SPAWN_WORKER");
        int fd_in, fd_out, plain, setid;
        char buf[65536];
        ssize_t n;

        (void) state;
        if (!kernel_inheritance())
                skip();
        assert_non_null(worker);
        /* Beside the shared copy, which every user can reach: a file system without nosuid. */
        snprintf(setid_worker, sizeof(setid_worker), "%s-setuid", worker);
        fd_in = open(worker, O_RDONLY | O_CLOEXEC);
        fd_out = open(setid_worker, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
        assert_true(fd_in >= 0 && fd_out >= 0);
        while ((n = read(fd_in, buf, sizeof(buf))) > 0)
                assert_int_equal(write(fd_out, buf, (size_t) n), n);
        close(fd_in);
        assert_int_equal(fchmod(fd_out, 04755), 0);
        close(fd_out);
        spin_start();
        plain = run_as_nobody(setid_body, NULL);
        setid = run_as_nobody(setid_body, setid_worker);
        spin_stop();
        (void) unlink(setid_worker);
        assert_int_equal(plain, 0);
        assert_int_equal(setid, 0);
}

/* Stock Debian's perf_event_paranoid 3, with uid 65534 granted user mode (UserModeGroups=nogroup):
 * pthread_create and raw clone threads, as root and as uid 65534, exact as at 2. */
static void test_paranoid_3(void **state) {
        static const Path paths[] = { PATH_PTHREAD, PATH_RAW_THREAD };
        int rc[4] = { -1, -1, -1, -1 };

        (void) state;
        if (!kernel_inheritance())
                skip();
        assert_int_equal(bus_fixture_restart_with_config(&fixture, "[Access]\nUserModeGroups=nogroup\n"), 0);
        assert_int_equal(paranoid_set_for_test(3), 0);
        spin_start();
        for (size_t i = 0; i < 2; i++) {
                rc[2 * i] = path_body((void *) (intptr_t) paths[i]);
                rc[2 * i + 1] = run_as_nobody(path_body, (void *) (intptr_t) paths[i]);
        }
        spin_stop();
        paranoid_restore_for_test();
        assert_int_equal(bus_fixture_restart_with_config(&fixture, ""), 0);
        for (size_t i = 0; i < 4; i++)
                assert_int_equal(rc[i], 0);
}

static int setup(void **state) {
        static const char *const shared[] = { "PMAPI_SPAWN_WORKER", NULL };

        (void) state;
        /* No huge pages for any worker, the raw ones (touch_raw) included: fresh-pages.h. */
        (void) prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
        if (bus_fixture_start(&fixture, NULL) != 0)
                return -1;
        return bus_fixture_share_programs(&fixture, shared);
}

static int teardown(void **state) {
        (void) state;
        spin_stop();
        paranoid_restore_for_test();
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_pthread_create),
                cmocka_unit_test(test_fork),
                cmocka_unit_test(test_raw_clone_thread),
                cmocka_unit_test(test_raw_clone_process),
                cmocka_unit_test(test_vfork_exec),
                cmocka_unit_test(test_posix_spawn),
                cmocka_unit_test(test_system),
                cmocka_unit_test(test_pid_namespace),
                cmocka_unit_test(test_set_id_exec),
                cmocka_unit_test(test_paranoid_3),
                cmocka_unit_test(test_reexec_while_threads_are_created),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
