/* test-local-reads.c: pm_get_data_mythread reads the thread's own counters in process (a perf fd
 * and a page pmapid hands it: include/internal/local-page.h), as root and as uid 65534:
 * - it perturbs nothing: 10,000 reads add 0 page faults, and (root, kernel mode) no context
 *   switches beyond preemption, where each bus read added one;
 * - it agrees exactly with pmapid's own read of the same context (root as a third party);
 * - it never reads stale counters: a context deleted or replaced from outside, a re-executed
 *   pmapid, a forked child: the read falls back to the bus and is right;
 * - a hostile holder of the fd spoils only its own thread's numbers: it cannot add an event to the
 *   group, and closing or replacing the fd only sends its reads back to the bus. */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "check.h"
#include "local-page.h"
#include "pmapi.h"
#include "stepper.h"
#include "target.h"
#include "workload.h"

#define READS 10000

static BusFixture fixture;

/* The perf fds this process holds: the handle's, once it is open. */
static int perf_fds_of_self(int *ret, int max) {
        return perf_fds_of(getpid(), ret, max);
}

/* Sets a page-fault program on this thread and makes sure the next reads are local. */
static int local_ready(pm_prog_t *prog, int *ret_fd) {
        pm_data_t d;
        int fds[4];

        CHECK(page_fault_program(prog, PM_USER | PM_COUNT) == 0);
        CHECK_RC(pm_set_program_mythread(prog), 0);
        CHECK_RC(pm_get_data_mythread(&d), 0);          /* over the bus; asks for the handle */
        CHECK(perf_fds_of_self(fds, 4) == 1);           /* the handle: one fd */
        if (ret_fd)
                *ret_fd = fds[0];
        return 0;
}

/* Reads add nothing; local and pmapid's reads agree exactly; counting goes on across reads. */
static int exact_body(void *arg) {
        pm_data_t a, b, mine, theirs;
        pm_prog_t prog;

        (void) arg;
        CHECK(local_ready(&prog, NULL) == 0);
        CHECK(touch_fresh_pages(500) == 0);
        CHECK_RC(pm_get_data_mythread(&a), 0);
        for (int i = 0; i < READS; i++)
                CHECK_RC(pm_get_data_mythread(&b), 0);
        CHECK_RC(pm_get_data_mythread(&b), 0);
        CHECK(b.accu[0] == a.accu[0]);                  /* 10,000 reads: not one page fault */
        CHECK(b.accu[1] == a.accu[1]);
        CHECK(a.accu[0] >= 500);
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(pm_get_data_mythread(&mine), 0);
        CHECK_RC(pm_get_data_thread(getpid(), gettid(), &theirs), 0);  /* pmapid reads it */
        CHECK(memcmp(mine.accu, theirs.accu, sizeof(mine.accu)) == 0);
        CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

static void test_local_reads_are_exact_and_add_nothing(void **state) {
        (void) state;
        assert_int_equal(exact_body(NULL), 0);
        assert_int_equal(run_as_nobody(exact_body, NULL), 0);
}

/* Root, kernel mode: a read over the bus blocks on the reply (one context switch each); a local
 * read does not. */
static void test_local_reads_add_no_context_switch(void **state) {
        pm_accu_time_t times;
        pm_info_t info;
        pm_prog_t prog;
        pm_data_t a, b;

        (void) state;
        assert_int_equal(pm_init(PM_VERIFIED, &info), 0);
        program_one(&prog, PM_USER | PM_KERNEL | PM_COUNT, find_event_id(&info, "PM_CTX_SW"));
        assert_int_equal(pm_set_program_mythread(&prog), 0);
        assert_int_equal(pm_get_data_mythread(&a), 0);
        assert_int_equal(pm_get_data_mythread(&a), 0);
        for (int i = 0; i < READS; i++)
                assert_int_equal(pm_get_data_mythread(&b), 0);
        print_message("# %d local reads: %lld context switches (preemption)\n", READS, b.accu[0] - a.accu[0]);
        assert_true(b.accu[0] - a.accu[0] < READS / 100);
        /* With the counted time (pm_get_Tdata_mythread) too: it is read in process. */
        for (int i = 0; i < READS; i++)
                assert_int_equal(pm_get_Tdata_mythread(&a, &times), 0);
        assert_int_equal(pm_get_data_mythread(&a), 0);
        print_message("# %d local reads with the counted time: %lld context switches\n", READS, a.accu[0] - b.accu[0]);
        assert_true(a.accu[0] - b.accu[0] < READS / 100);
        assert_int_equal(pm_delete_program_mythread(), 0);
}

/* Deleted, then set again, by another process: never the old counters. */
static void test_context_changed_from_outside_is_never_read_stale(void **state) {
        pid_t self = getpid(), tid = gettid(), pid;
        pm_prog_t prog;
        pm_data_t d;
        int status;

        (void) state;
        assert_int_equal(local_ready(&prog, NULL), 0);
        assert_int_equal(touch_fresh_pages(300), 0);
        assert_int_equal(pm_get_data_mythread(&d), 0);
        assert_true(d.accu[0] >= 300);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
                _exit(pm_delete_program_thread(self, tid) == 0 ? 0 : 1);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        assert_int_equal(pm_get_data_mythread(&d), PM_ENOCONTEXT);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
                _exit(pm_set_program_thread(self, tid, &prog) == 0 ? 0 : 1);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        assert_int_equal(pm_get_data_mythread(&d), 0);
        assert_true(d.accu[0] < 300);                   /* the new context's, from zero */
        assert_int_equal(pm_get_data_mythread(&d), 0);
        {
                int fds[4];
                assert_int_equal(perf_fds_of_self(fds, 4), 0);  /* another process set it: no handle */
        }
        assert_int_equal(pm_delete_program_thread(self, tid), 0);
}

/* A forked child reads its own context (inherited at fork), never its parent's counters, and
 * holds none of its parent's threads' handles. */
static void test_forked_child_reads_its_own(void **state) {
        pm_prog_t prog;
        Stepper other;
        pm_data_t d;
        int status;
        pid_t pid;

        (void) state;
        assert_int_equal(local_ready(&prog, NULL), 0);
        assert_int_equal(stepper_start(&other, true), 0);      /* another thread with a handle */
        stepper_step(&other, 1);
        stepper_step(&other, 1);
        assert_int_equal(touch_fresh_pages(2000), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                pm_data_t c;
                int fds[4];
                if (perf_fds_of_self(fds, 4) != 0)
                        _exit(3);                       /* the parent's handles came along */
                if (pm_get_data_mythread(&c) != 0 || c.accu[0] >= 2000)
                        _exit(1);
                _exit(perf_fds_of_self(fds, 4) <= 1 ? 0 : 2);
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
        stepper_stop(&other);
        assert_int_equal(pm_get_data_mythread(&d), 0);
        assert_true(d.accu[0] >= 2000);
        assert_int_equal(pm_delete_program_mythread(), 0);
}

/* What a hostile holder can do with the fd: add an event (refused: a sibling leads no group),
 * reset it (its own numbers only), close or replace it (its reads go back to the bus). */
static int hostile_body(void *arg) {
        struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
                                     .config = PERF_COUNT_SW_PAGE_FAULTS, .exclude_kernel = 1 };
        pm_data_t mine, theirs;
        pm_prog_t prog;
        int fd, null_fd;

        (void) arg;
        CHECK(local_ready(&prog, &fd) == 0);
        CHECK(touch_fresh_pages(200) == 0);
        CHECK(syscall(SYS_perf_event_open, &a, 0, -1, fd, 0) < 0);    /* no event joins the group */
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(pm_get_data_mythread(&mine), 0);
        CHECK_RC(pm_get_data_thread(getpid(), gettid(), &theirs), 0);
        CHECK(memcmp(mine.accu, theirs.accu, sizeof(mine.accu)) == 0 && mine.accu[0] >= 200);

        /* Replaced by another file: the read is not the group's; back to the bus, still right. */
        null_fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
        CHECK(null_fd >= 0 && dup2(null_fd, fd) == fd);
        close(null_fd);
        CHECK_RC(pm_get_data_mythread(&mine), 0);
        CHECK(memcmp(mine.accu, theirs.accu, sizeof(mine.accu)) == 0);
        close(fd);

        /* A new handle; reset behind pmapid's back: the thread's own numbers, which pmapid reads
         * from the same counter too. */
        CHECK_RC(pm_get_data_mythread(&mine), 0);
        CHECK(perf_fds_of_self(&fd, 1) == 1);
        CHECK(ioctl(fd, PERF_EVENT_IOC_RESET, 0) == 0);
        CHECK_RC(pm_get_data_mythread(&mine), 0);
        CHECK_RC(pm_get_data_thread(getpid(), gettid(), &theirs), 0);
        CHECK(mine.accu[0] == 0 && theirs.accu[0] == 0);
        CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

static void test_hostile_holder_spoils_only_its_own(void **state) {
        pm_prog_t prog;
        pm_data_t before, after;
        Target t;
        TargetIdentity nobody = TARGET_UID(65534);

        (void) state;
        /* Another user's context, counted by root, must not move while nobody plays. */
        assert_int_equal(target_start(&t, &nobody, 1), 0);
        assert_int_equal(page_fault_program(&prog, PM_USER | PM_COUNT), 0);
        assert_int_equal(pm_set_program_thread(t.pid, t.tids[0], &prog), 0);
        assert_int_equal(pm_get_data_thread(t.pid, t.tids[0], &before), 0);
        assert_int_equal(hostile_body(NULL), 0);
        assert_int_equal(run_as_nobody(hostile_body, NULL), 0);
        assert_int_equal(pm_get_data_thread(t.pid, t.tids[0], &after), 0);
        assert_memory_equal(before.accu, after.accu, sizeof(before.accu));
        target_kill(&t);
}

static int open_local_error(pid_t pid, pid_t tid, char *name, size_t size) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus *bus = NULL;
        int r;

        if (sd_bus_open_system(&bus) < 0)
                return -1;
        r = sd_bus_call_method(bus, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1", "org.pmapi.PerfMon1.Manager",
                               "OpenLocal", &e, NULL, "ii", (int32_t) pid, (int32_t) tid);
        (void) snprintf(name, size, "%s", e.name ? e.name : "");
        sd_bus_error_free(&e);
        sd_bus_flush_close_unref(bus);
        return r;
}

/* Only a thread's own context, outside groups, made by its own process: nobody else gets fds. */
static void test_only_the_own_context_outside_groups_is_handed_over(void **state) {
        TargetIdentity nobody = TARGET_UID(65534);
        pm_prog_t prog;
        pm_data_t d;
        char name[128];
        int fds[4];
        Target t;

        (void) state;
        /* Another process's thread, even for root. */
        assert_int_equal(target_start(&t, &nobody, 1), 0);
        assert_int_equal(page_fault_program(&prog, PM_USER | PM_COUNT), 0);
        assert_int_equal(pm_set_program_thread(t.pid, t.tids[0], &prog), 0);
        assert_true(open_local_error(t.pid, t.tids[0], name, sizeof(name)) < 0);
        assert_string_equal(name, "org.freedesktop.DBus.Error.NotSupported");
        target_kill(&t);

        /* Another process of the same user with its own context made to be read in process: not
         * for us, not even as root. */
        {
                int go[2], ready[2], status;
                pid_t child;
                char c = 0;

                assert_int_equal(pipe(go), 0);
                assert_int_equal(pipe(ready), 0);
                child = fork();
                assert_true(child >= 0);
                if (child == 0) {
                        pid_t me = gettid();
                        _exit(pm_set_program_mythread(&prog) != 0 || write(ready[1], &me, sizeof(me)) != sizeof(me) ||
                              read(go[0], &c, 1) != 1 ? 1 : 0);
                }
                pid_t child_tid = 0;
                assert_int_equal(read(ready[0], &child_tid, sizeof(child_tid)), (ssize_t) sizeof(child_tid));
                assert_true(open_local_error(child, child_tid, name, sizeof(name)) < 0);
                assert_string_equal(name, "org.freedesktop.DBus.Error.NotSupported");
                assert_int_equal(write(go[1], &c, 1), 1);
                assert_int_equal(waitpid(child, &status, 0), child);
                assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
                close(go[0]), close(go[1]), close(ready[0]), close(ready[1]);
        }

        /* A group member reads over the bus, and never asks. */
        assert_int_equal(pm_set_program_mygroup(&prog), 0);
        for (int i = 0; i < 3; i++)
                assert_int_equal(pm_get_data_mythread(&d), 0);
        assert_int_equal(perf_fds_of_self(fds, 4), 0);
        assert_true(open_local_error(getpid(), gettid(), name, sizeof(name)) < 0);
        assert_string_equal(name, "org.freedesktop.DBus.Error.NotSupported");
        assert_int_equal(pm_delete_program_mygroup(), 0);
}

/* A process out of fds cannot take the handle: its reads stay on the bus, right, and the bus
 * connection lives on. */
static int no_fds_body(void *arg) {
        struct rlimit rl;
        pm_prog_t prog;
        pm_data_t d, theirs;
        int fds[4];

        (void) arg;
        CHECK(page_fault_program(&prog, PM_USER | PM_COUNT) == 0);
        CHECK_RC(pm_set_program_mythread(&prog), 0);
        CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0);
        rl.rlim_cur = 64;
        CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);
        int last = -1, fd;
        while ((fd = open("/dev/null", O_RDONLY)) >= 0)  /* every slot taken */
                last = fd;
        CHECK(touch_fresh_pages(100) == 0);
        for (int i = 0; i < 3; i++)
                CHECK_RC(pm_get_data_mythread(&d), 0);
        close(last);                                    /* one, for /proc/self/fd */
        CHECK(perf_fds_of_self(fds, 4) == 0);
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(pm_get_data_mythread(&d), 0);
        CHECK_RC(pm_get_data_thread(getpid(), gettid(), &theirs), 0);
        CHECK(memcmp(d.accu, theirs.accu, sizeof(d.accu)) == 0 && d.accu[0] >= 100);
        CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

static void test_out_of_fds_reads_over_the_bus(void **state) {
        (void) state;
        assert_int_equal(run_as_nobody(no_fds_body, NULL), 0);
}

/* pmapid's view of the thread's own counting state: the count bit GetProgram reports. */
static int pmapid_says_counting(void) {
        pm_prog_t p;

        if (pm_get_program_thread(getpid(), gettid(), &p) != 0)
                return -1;
        return (p.mode.w & PM_COUNT) != 0;
}

/* Start, stop and reset at ioctl cost: exact, adding nothing, and pmapid knows the state, what a
 * new thread inherits, and a third party's switch. */
static int switch_body(void *arg) {
        pm_data_t a, b, d;
        pm_prog_t prog;

        (void) arg;
        CHECK(local_ready(&prog, NULL) == 0);
        CHECK_RC(pm_get_data_mythread(&a), 0);
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK(touch_fresh_pages(200) == 0);
        CHECK_RC(pm_get_data_mythread(&b), 0);
        CHECK(b.accu[0] == a.accu[0]);                  /* stopped, in process */
        CHECK(pmapid_says_counting() == 0);             /* and pmapid knows */
        CHECK_RC(pm_start_mythread(), 0);
        CHECK(pmapid_says_counting() == 1);
        CHECK_RC(pm_get_data_mythread(&a), 0);
        CHECK(touch_fresh_pages(100) == 0);
        CHECK_RC(pm_get_data_mythread(&b), 0);
        CHECK(b.accu[0] - a.accu[0] == 100);
        for (int i = 0; i < READS; i++) {               /* 10,000 switches: not one page fault */
                CHECK_RC(pm_stop_mythread(), 0);
                CHECK_RC(pm_start_mythread(), 0);
        }
        CHECK_RC(pm_get_data_mythread(&a), 0);
        CHECK(a.accu[0] == b.accu[0]);
        CHECK_RC(pm_reset_data_mythread(), 0);
        CHECK_RC(pm_get_data_mythread(&d), 0);
        CHECK(d.accu[0] == 0 && d.accu[1] == 0);
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(pm_get_data_mythread(&d), 0);
        CHECK_RC(pm_get_data_thread(getpid(), gettid(), &b), 0);
        CHECK(memcmp(d.accu, b.accu, sizeof(d.accu)) == 0);     /* pmapid reads what we do */
        CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

static void test_local_switches_are_exact_and_known(void **state) {
        (void) state;
        assert_int_equal(switch_body(NULL), 0);
        assert_int_equal(run_as_nobody(switch_body, NULL), 0);
}

/* A thread created after a switch in process inherits the state it had then (AIX: new threads
 * take their creator's state at creation), which pmapid learns from the thread's state page. */
static void test_new_threads_inherit_a_local_switch(void **state) {
        Stepper off, on;
        pm_prog_t prog;
        pm_data_t d;

        (void) state;
        assert_int_equal(local_ready(&prog, NULL), 0);
        assert_int_equal(pm_stop_mythread(), 0);        /* in process */
        assert_int_equal(stepper_start(&off, false), 0);
        stepper_step(&off, 100);
        assert_int_equal(pm_get_data_thread(getpid(), off.tid, &d), 0);
        assert_int_equal(d.accu[0], 0);                 /* born stopped */
        assert_int_equal(pm_start_mythread(), 0);
        assert_int_equal(stepper_start(&on, false), 0);
        stepper_step(&on, 100);
        assert_int_equal(pm_get_data_thread(getpid(), on.tid, &d), 0);
        assert_in_range(d.accu[0], 100, 104);           /* born counting (its first stack pages too) */
        stepper_stop(&off);
        stepper_stop(&on);
        assert_int_equal(pm_delete_program_mythread(), 0);
}

/* A garbage state page from the thread changes nothing but that thread's own state. */
static void test_hostile_state_page(void **state) {
        char line[512];
        pm_prog_t prog;
        pm_info_t info;
        FILE *maps;
        int written = 0;

        (void) state;
        assert_int_equal(local_ready(&prog, NULL), 0);
        maps = fopen("/proc/self/maps", "re");
        assert_non_null(maps);
        while (fgets(line, sizeof(line), maps)) {
                unsigned long lo, hi;
                char perms[8];
                if (strstr(line, "pmapi-local") && sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 &&
                    perms[1] == 'w') {
                        memset((void *) lo, 0xff, hi - lo);             /* n = 0xffffffff, all states 'on' */
                        written++;
                }
        }
        fclose(maps);
        assert_int_equal(written, 1);                   /* the state page only: the other is read-only */
        assert_true(pmapid_says_counting() >= 0);       /* pmapid answers */
        assert_int_equal(pm_init(PM_VERIFIED, &info), 0);
        assert_int_equal(pm_delete_program_mythread(), 0);
}

/* The thread's own state page, writable by it. */
static LocalState *own_state_page(void) {
        char line[512];
        LocalState *st = NULL;
        FILE *maps = fopen("/proc/self/maps", "re");

        while (maps && fgets(line, sizeof(line), maps)) {
                unsigned long lo, hi;
                char perms[8];
                if (strstr(line, "pmapi-local") && sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 &&
                    perms[1] == 'w')
                        st = (LocalState *) lo;
        }
        if (maps)
                fclose(maps);
        return st;
}

/* Forged reset times in the state page (the thread's word about its own resets): pmapid takes
 * them only within what the kernel says, so no time off the PMU can be invented and the counts are
 * never scaled up; the forgery is the thread's own business and moves nothing else. */
static int forged_reset_body(void *arg) {
        static const uint64_t forged[][2] = {
                { 0, UINT64_MAX / 2 },          /* running past enabled */
                { 1, 0 },                       /* off the PMU from the start: would scale up */
                { UINT64_MAX - 1, UINT64_MAX - 1 },     /* in the future */
        };
        pm_accu_time_t t;
        pm_prog_t prog;
        pm_data_t d;
        LocalState *st;
        long long base;
        uint64_t buf[12];
        int fd;

        (void) arg;
        CHECK(local_ready(&prog, &fd) == 0);
        st = own_state_page();
        CHECK(st != NULL);
        CHECK_RC(pm_get_Tdata_thread(getpid(), gettid(), &d, &t), 0);  /* warm: the reads fault no more */
        base = d.accu[0];
        CHECK(touch_fresh_pages(400) == 0);
        for (size_t i = 0; i < sizeof(forged) / sizeof(forged[0]); i++) {
                st->reset_enabled_ns = forged[i][0];
                st->reset_running_ns = forged[i][1];
                __atomic_store_n(&st->resets, st->resets + 2, __ATOMIC_RELEASE);
                CHECK_RC(pm_get_Tdata_thread(getpid(), gettid(), &d, &t), 0);  /* pmapid's read */
                /* Scaled even by 5 %, 400 pages would read 420. */
                CHECK(d.accu[0] - base >= 400 && d.accu[0] - base <= 410);
                CHECK(PM_TB_TO_NS(t.accu_timebase) == PM_TB_TO_NS(t.accu_purr));
                CHECK(PM_TB_TO_NS(t.accu_timebase) > 0);
        }
        /* The strongest forgery: a reset "1 ms of PMU time ago" but with no enabled time before it,
         * which would scale the counts by the whole enabled time over 1 ms. */
        CHECK(read(fd, buf, sizeof(buf)) > 3 * (ssize_t) sizeof(uint64_t));
        st->reset_enabled_ns = 0;
        st->reset_running_ns = buf[2] > 1000000 ? buf[2] - 1000000 : 0;
        __atomic_store_n(&st->resets, st->resets + 2, __ATOMIC_RELEASE);
        CHECK_RC(pm_get_Tdata_thread(getpid(), gettid(), &d, &t), 0);
        CHECK(d.accu[0] - base >= 400 && d.accu[0] - base <= 410);
        CHECK(PM_TB_TO_NS(t.accu_timebase) == PM_TB_TO_NS(t.accu_purr));
        /* An odd count is a write in progress: never taken. */
        st->reset_enabled_ns = st->reset_running_ns = 0;
        __atomic_store_n(&st->resets, st->resets + 1, __ATOMIC_RELEASE);
        CHECK_RC(pm_get_data_thread(getpid(), gettid(), &d), 0);
        CHECK(d.accu[0] - base >= 400 && d.accu[0] - base <= 410);
        CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

static void test_forged_reset_times_are_refused(void **state) {
        (void) state;
        assert_int_equal(forged_reset_body(NULL), 0);
        assert_int_equal(run_as_nobody(forged_reset_body, NULL), 0);
}

/* A re-executed pmapid makes new pages: the old handle falls back, then a new one is asked for. */
static void test_reexec_sends_reads_back_to_the_bus(void **state) {
        pm_prog_t prog;
        pm_data_t a, b;
        int fds[4];

        (void) state;
        assert_int_equal(local_ready(&prog, NULL), 0);
        assert_int_equal(touch_fresh_pages(100), 0);
        assert_int_equal(pm_stop_mythread(), 0);
        assert_int_equal(pm_get_data_mythread(&a), 0);
        assert_int_equal(kill(fixture.daemon_pid, SIGHUP), 0);
        for (int i = 0; i < 100; i++) {                 /* until the old page says it is gone */
                assert_int_equal(pm_get_data_mythread(&b), 0);
                if (perf_fds_of_self(fds, 4) != 1)
                        break;
                usleep(10000);
        }
        assert_int_equal(pm_get_data_mythread(&b), 0);  /* over the bus, from the new image */
        assert_memory_equal(a.accu, b.accu, sizeof(a.accu));
        assert_int_equal(perf_fds_of_self(fds, 4), 1);  /* and a new handle */
        assert_int_equal(pm_get_data_mythread(&b), 0);
        assert_memory_equal(a.accu, b.accu, sizeof(a.accu));
        assert_int_equal(pm_delete_program_mythread(), 0);
}

static int setup(void **state) {
        pm_info_t info;

        (void) state;
        int r = bus_fixture_start(&fixture, NULL);
        return r == 0 ? pm_init(PM_VERIFIED, &info) : r;
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_local_reads_are_exact_and_add_nothing),
                cmocka_unit_test(test_local_reads_add_no_context_switch),
                cmocka_unit_test(test_context_changed_from_outside_is_never_read_stale),
                cmocka_unit_test(test_forked_child_reads_its_own),
                cmocka_unit_test(test_hostile_holder_spoils_only_its_own),
                cmocka_unit_test(test_only_the_own_context_outside_groups_is_handed_over),
                cmocka_unit_test(test_out_of_fds_reads_over_the_bus),
                cmocka_unit_test(test_local_switches_are_exact_and_known),
                cmocka_unit_test(test_new_threads_inherit_a_local_switch),
                cmocka_unit_test(test_hostile_state_page),
                cmocka_unit_test(test_forged_reset_times_are_refused),
                cmocka_unit_test(test_reexec_sends_reads_back_to_the_bus),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
