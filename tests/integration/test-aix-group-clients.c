/* test-aix-group-clients.c: the call sequences of real AIX pmapi clients that count their process
 * as a group (_mygroup) and read it from inside and from outside (_thread, _group), replayed
 * against pmapid with software events, each in a process of its own, as root and as uid 65534,
 * with exact page counts (N fresh pages: N..N+2; a thread born counting inside the kernel, exactly
 * the kernel's own count of its faults). See test-aix-clients.c for the clients that program single
 * threads. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "aix-client.h"
#include "bus-fixture.h"
#include "check.h"
#include "pmapi.h"
#include "workload.h"

#define ALL_STATUSES (PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT)

static BusFixture fixture;

/* A thread of the process that touches its pages, reads its own count and, unless told to exit,
 * parks until the process ends. */
typedef struct Worker {
        size_t pages;
        bool stay;
        pid_t tid;
        long long own;                  /* its own count after the touch */
        KernelView k;                   /* the kernel's count of its faults around that read */
        KernelView last;                /* and as its last act: all it counts until it is stopped */
        int rc;
        pthread_barrier_t *done;        /* every worker has touched and read */
} Worker;

/* Its own read, which takes the count at a moment between the kernel's two counts around it. */
static int read_seen_by_kernel(pm_data_t *d, KernelView *k) {
        int rc;

        k->before = thread_faults();
        rc = pm_get_data_mythread(d);
        k->after = thread_faults();
        return rc;
}

static void *worker(void *arg) {
        Worker *w = arg;
        pm_data_t d;

        w->tid = gettid();
        w->rc = touch_fresh_pages(w->pages) == 0 ? read_seen_by_kernel(&d, &w->k) : -1;
        w->own = w->rc == 0 ? d.accu[0] : -1;
        w->last = kernel_view_now();
        pthread_barrier_wait(w->done);
        while (w->stay)
                pause();
        return NULL;
}

/* A worker's own count: born counting, where pmapid inherits inside the kernel from its first
 * instruction (exactly what the kernel counted up to its read), else from its library's Inherit reply
 * (its pages and at most 2 more). */
/* The kernel's count of a parked (or stopped) thread's page faults, minor and major, from /proc: what
 * pmapid must say of it from outside. Not its own read: a worker may fault once more on its way to
 * park (seen in the arm64 guest: 104 read from outside, 103 by itself). */
static long long parked_faults(pid_t pid, pid_t tid) {
        char path[96], buf[1024], *p;
        unsigned long long minflt, cminflt, majflt;
        FILE *f;
        size_t l;

        (void) snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int) pid, (int) tid);
        f = fopen(path, "re");
        if (!f)
                return -1;
        l = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[l] = '\0';
        p = strrchr(buf, ')');
        /* after the name: state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt */
        if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %llu %llu %llu", &minflt, &cminflt, &majflt) != 3)
                return -1;
        return (long long) (minflt + majflt);
}

static int check_worker_own(const Worker *w) {
        if (kernel_inheritance())
                CHECK_SEEN_BY_KERNEL(w->own, w->pages, w->k);
        else
                CHECK_RANGE(w->own, w->pages, w->pages + 2);
        return 0;
}

static int start_workers(Worker *w, int n, pthread_barrier_t *done, pthread_t *t) {
        CHECK(pthread_barrier_init(done, NULL, (unsigned) n + 1) == 0);
        for (int i = 0; i < n; i++) {
                w[i].done = done;
                CHECK(pthread_create(&t[i], NULL, worker, &w[i]) == 0);
        }
        pthread_barrier_wait(done);
        for (int i = 0; i < n; i++)
                CHECK_RC(w[i].rc, 0);
        return 0;
}

/* Paradyn's runtime library (dyninst/dyninst, rtinst/src/RTetc-aix.c,
 * PARADYN_initialize_pmapi): pm_init(PM_VERIFIED|PM_CAVEAT|PM_UNVERIFIED|PM_GET_GROUPS, &info,
 * &groups); events[] = -1 up to maxpmcs, then its two events looked up by short name in
 * list_events of counters 0 and 1 (PM_CYC and PM_INST_CMPL there; page faults here); mode user,
 * kernel, process and count ("start counting immediately": no start call ever);
 * pm_set_program_mygroup, so that every thread of the process counts. Reads: a thread's own with
 * pm_get_data_mythread, another thread's with pm_get_data_thread(getpid(), lwp). In a forked
 * child (PARADYN_forkEarlyInit): pm_delete_program_mythread, its rc ignored, then
 * pm_set_program_mygroup again. An older RTaix.c put the same mode, process included, on
 * pm_set_program_mythread, started, and later set once more with its rc ignored. */
static int paradyn_child(const pm_prog_t *parent_prog) {
        pm_prog_t prog = *parent_prog;
        pm_data_t d;

        CHECK(touch_fresh_pages(1) == 0);
        (void) pm_delete_program_mythread();                    /* a process group stays in its process */
        CHECK_RC(pm_set_program_mygroup(&prog), 0);
        CHECK(touch_fresh_pages(300) == 0);
        CHECK_RC(pm_get_data_mygroup(&d), 0);
        CHECK_RANGE(d.accu[0], 300, 302);
        CHECK(d.ginfo.members == 1 && d.ginfo.flags.b.process);
        return 0;
}

static int paradyn_body(void *arg) {
        pm_groups_info_t groups;
        pm_info_t info;
        pm_prog_t prog;
        pm_data_t d, group;
        Worker w[2] = { { .pages = 100, .stay = true }, { .pages = 200, .stay = true } };
        pthread_barrier_t done;
        pthread_t t[2];
        long long main_own;
        int status;
        pid_t child;

        (void) arg;
        CHECK(touch_fresh_pages(1) == 0);
        CHECK_RC(pm_init(PM_VERIFIED | PM_CAVEAT | PM_UNVERIFIED | PM_GET_GROUPS, &info, &groups), 0);
        memset(&prog, 0, sizeof(prog));
        for (int c = 0; c < info.maxpmcs; c++)
                prog.events[c] = -1;
        prog.events[0] = client_event_id(&info, 0, "PM_PAGE_FLT");
        prog.events[1] = client_event_id(&info, 1, "PM_MINOR_FLT");
        prog.mode.b.user = 1;
        prog.mode.b.kernel = 1;
        prog.mode.b.process = 1;
        prog.mode.b.count = 1;
        CHECK_RC(pm_set_program_mygroup(&prog), 0);
        CHECK(start_workers(w, 2, &done, t) == 0);
        for (int i = 0; i < 2; i++) {
                CHECK(check_worker_own(&w[i]) == 0);
                CHECK_RC(pm_get_data_thread(getpid(), w[i].tid, &d), 0);        /* DYNINSTgetCPUtime_LWP */
                CHECK_RANGE(d.accu[0], parked_faults(getpid(), w[i].tid), parked_faults(getpid(), w[i].tid));
        }
        CHECK_RC(pm_get_data_mythread(&d), 0);
        main_own = d.accu[0];
        CHECK_RC(pm_get_data_mygroup(&group), 0);
        CHECK(group.ginfo.members == 3 && group.ginfo.flags.b.process && group.ginfo.flags.b.consistent);
        CHECK_RANGE(group.accu[0], main_own + w[0].own + w[1].own, main_own + w[0].own + w[1].own + 2);

        child = fork();
        CHECK(child >= 0);
        if (child == 0)
                _exit(paradyn_child(&prog));
        CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
        CHECK_RC(pm_delete_program_mygroup(), 0);

        /* The older runtime: process on a thread program (it changes nothing there), set twice. */
        CHECK_RC(pm_init(PM_VERIFIED | PM_CAVEAT | PM_UNVERIFIED, &info), 0);
        prog.mode.b.count = 0;
        CHECK_RC(pm_set_program_mythread(&prog), 0);
        CHECK_RC(pm_start_mythread(), 0);
        CHECK_RC(pm_set_program_mythread(&prog), PM_EEXIST);   /* DYNINSTgetCPUtime_hw, rc ignored */
        CHECK_RC(pm_get_data_mythread(&d), 0);
        main_own = d.accu[0];
        CHECK(touch_fresh_pages(400) == 0);
        CHECK_RC(pm_get_data_mythread(&d), 0);
        CHECK_RANGE(d.accu[0] - main_own, 400, 402);
        CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

/* Paradyn's runtime built with PMAPI_GROUPS (the same PARADYN_initialize_pmapi): when pm_init
 * lists groups it sets is_group and binds no event, so events[0] stays 0 from its static, zeroed
 * program: group 0. Mode user, kernel, process and count, pm_set_program_mygroup; the CPU time
 * samples are then reads of counter 0 with pm_get_data_mythread. Group 0 is a group, as on AIX (it
 * was PM_EGROUPS, and every sample read 0, when pmapid numbered its groups from 1). */
static int paradyn_groups_body(void *arg) {
        static pm_prog_t prog;                                  /* pdyn_pm_prog */
        pm_groups_info_t groups;
        pm_info_t info;
        pm_prog_t got;
        pm_data_t before, after;

        (void) arg;
        CHECK(touch_fresh_pages(1) == 0);
        CHECK_RC(pm_init(PM_VERIFIED | PM_CAVEAT | PM_UNVERIFIED | PM_GET_GROUPS, &info, &groups), 0);
        CHECK(groups.maxgroups > 0);
        prog.mode.w = 0;
        prog.mode.b.is_group = 1;
        prog.mode.b.user = 1;
        prog.mode.b.kernel = 1;
        prog.mode.b.process = 1;
        prog.mode.b.count = 1;
        CHECK_RC(pm_set_program_mygroup(&prog), 0);
        CHECK_RC(pm_get_data_mythread(&before), 0);            /* DYNINSTgetCPUtime_hw */
        CHECK(touch_fresh_pages(400) == 0);
        CHECK_RC(pm_get_data_mythread(&after), 0);
        CHECK(strcmp(groups.event_groups[0].short_name, "pm_faults") == 0);
        CHECK_RANGE(after.accu[0] - before.accu[0], 400, 402);
        CHECK_RC(pm_get_program_mygroup(&got), 0);
        CHECK(got.mode.b.is_group && got.events[0] == 0 && got.mode.b.process);
        CHECK_RC(pm_delete_program_mygroup(), 0);
        return 0;
}

/* Paradyn's daemon (dyninstAPI/src/aix.C, dyn_lwp::getRawCpuTime_hw): pm_init(PM_VERIFIED|
 * PM_CAVEAT, &info), the 2-argument form, its rc only logged; it pauses the inferior ("PM counters
 * are only valid when the process is paused"), then reads each lwp with pm_get_data_thread(pid,
 * lwp) and the whole process with pm_get_data_group(pid, tid) for any thread from getthrds, and
 * tries the next thread when that one has gone. The inferior is the runtime above, with a third
 * worker that has exited: its counts stay in the group. */
static int paradyn_inferior(int report_fd) {
        pm_info_t info;
        pm_prog_t prog;
        Worker w[3] = { { .pages = 100, .stay = true }, { .pages = 200, .stay = true }, { .pages = 300 } };
        pthread_barrier_t done;
        pthread_t t[3];

        /* Dumpable, as after the exec that started it; a uid change (the nobody run) clears it. */
        CHECK(prctl(PR_SET_DUMPABLE, 1) == 0);
        CHECK(touch_fresh_pages(1) == 0);
        CHECK_RC(pm_init(ALL_STATUSES, &info), 0);
        client_program(&prog, PM_USER | PM_KERNEL | PM_PROCESS | PM_COUNT, client_event_id(&info, 0, "PM_PAGE_FLT"),
                       COUNT_NOTHING);
        CHECK_RC(pm_set_program_mygroup(&prog), 0);
        CHECK(start_workers(w, 3, &done, t) == 0);
        CHECK(pthread_join(t[2], NULL) == 0);
        CHECK(write(report_fd, w, sizeof(w)) == (ssize_t) sizeof(w));
        raise(SIGSTOP);
        for (;;)
                pause();
}

static int paradyn_daemon_reads(pid_t pid, int report_fd) {
        Worker w[3];
        pm_info_t info;
        pm_data_t d;
        long long workers = 0;
        int status;

        CHECK(read(report_fd, w, sizeof(w)) == (ssize_t) sizeof(w));
        CHECK(waitpid(pid, &status, WUNTRACED) == pid && WIFSTOPPED(status));
        (void) pm_init(PM_VERIFIED | PM_CAVEAT, &info);         /* "we ignore the return" */
        for (int i = 0; i < 2; i++) {
                CHECK_RC(pm_get_data_thread(pid, w[i].tid, &d), 0);
                CHECK(check_worker_own(&w[i]) == 0);
                CHECK_RANGE(d.accu[0], parked_faults(pid, w[i].tid), parked_faults(pid, w[i].tid));
        }
        CHECK(check_worker_own(&w[2]) == 0);
        for (int i = 0; i < 3; i++)
                workers += w[i].own;
        CHECK_RC(pm_get_data_group(pid, w[2].tid, &d), PM_ENOTHREAD);  /* gone: try the next */
        CHECK_RC(pm_get_data_group(pid, w[0].tid, &d), 0);
        CHECK(d.ginfo.members == 4 && d.ginfo.flags.b.process);
        CHECK(d.accu[0] >= workers);                            /* + the main thread's own */
        CHECK_RC(pm_get_data_group(pid, pid, &d), 0);           /* any live thread gives the same */
        CHECK(d.accu[0] >= workers);
        return 0;
}

static int paradyn_daemon_body(void *arg) {
        int p[2], r;
        pid_t pid;

        (void) arg;
        CHECK(pipe(p) == 0);
        pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                close(p[0]);
                _exit(paradyn_inferior(p[1]));
        }
        close(p[1]);
        r = paradyn_daemon_reads(pid, p[0]);
        close(p[0]);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return r;
}

/* libmpihpm, IBM's MPI wrapper for the POWER counters ("link with libmpihpm.a -lpmapi"; found by
 * code search, repository not named): pm_initialize(...|PM_GET_GROUPS, PM_CURRENT); a static
 * pm_prog_t, so events[1..7] stay 0; events[0] = $HPM_GROUP; mode user, process, runlatch,
 * is_group and count ("start counting immediately"); pm_set_program_mygroup in MPI_Init; in
 * MPI_Finalize pm_stop_mygroup, then pm_get_program_mygroup and pm_get_data_mygroup for the
 * report. The group fails with PM_EGROUPS; the port names the events and clears the rest. */
static int mpihpm_body(void *arg) {
        static pm_prog_t prog;                                  /* zeroed, as mpihpm's is */
        pm_groups_info_t groups;
        pm_info2_t info;
        pm_prog_t got;
        pm_data_t d, own;
        Worker w[2] = { { .pages = 100, .stay = true }, { .pages = 200, .stay = true } };
        pthread_barrier_t done;
        pthread_t t[2];
        long long sum;

        (void) arg;
        CHECK(touch_fresh_pages(1) == 0);
        CHECK_RC(pm_initialize(ALL_STATUSES | PM_GET_GROUPS, &info, &groups, PM_CURRENT), 0);
        prog.events[0] = groups.maxgroups + 5;                  /* HPM_GROUP: a POWER group past ours */
        prog.mode.w = 0;
        prog.mode.b.user = 1;
        prog.mode.b.process = 1;
        prog.mode.b.runlatch = 1;
        prog.mode.b.is_group = 1;
        prog.mode.b.count = 1;
        CHECK_RC(pm_set_program_mygroup(&prog), PM_EGROUPS);
        prog.mode.b.is_group = 0;
        prog.events[0] = client_event2_id(&info, 0, "PM_PAGE_FLT");
        CHECK_RC(pm_set_program_mygroup(&prog), PM_EEVENT);    /* 0 is no event id: not silently ignored */
        for (int c = 1; c < MAX_COUNTERS; c++)
                prog.events[c] = COUNT_NOTHING;
        CHECK_RC(pm_set_program_mygroup(&prog), 0);
        CHECK(start_workers(w, 2, &done, t) == 0);              /* the MPI library's threads */
        CHECK(touch_fresh_pages(300) == 0);
        CHECK_RC(pm_stop_mygroup(), 0);                         /* MPI_Finalize: every member stops */
        CHECK_RC(pm_get_program_mygroup(&got), 0);
        CHECK(got.mode.b.process && got.mode.b.runlatch && got.mode.b.user && !got.mode.b.count);
        CHECK(got.events[0] == prog.events[0]);
        CHECK_RC(pm_get_data_mygroup(&d), 0);
        CHECK(d.ginfo.members == 3 && d.ginfo.flags.b.process && d.ginfo.flags.b.consistent);
        CHECK_RC(pm_get_data_mythread(&own), 0);                /* the report's parts, for the check */
        CHECK(own.accu[0] >= 300);
        sum = own.accu[0];
        for (int i = 0; i < 2; i++) {
                pm_data_t member;
                CHECK_RC(pm_get_data_thread(getpid(), w[i].tid, &member), 0);
                if (kernel_inheritance())                       /* counted from birth to the stop */
                        CHECK_SEEN_BY_KERNEL(member.accu[0], w[i].pages, w[i].last);
                else
                        CHECK_RANGE(member.accu[0], w[i].pages, w[i].pages + 2);
                sum += member.accu[0];
        }
        CHECK(d.accu[0] == sum);                                /* stopped: the sum, exactly */
        return 0;
}

/* hypre's ParaSails driver (hypre-space/hypre, src/distributed_ls/ParaSails/driver.c, under
 * #if 0, pmtoolkit era): fills the program first (four raw event ids, mode.w |= PM_USER, mode.w |=
 * PM_PROCESS), then pm_init(0, &info), the 2-argument form with filter 0, then count = 1 and
 * pm_set_program_mygroup; around the solve: reset, start, stop, get_program, get_data of the
 * group; at the end, delete. Filter 0 selects no event and fails with PM_EFILTER; the port passes
 * the statuses it wants. */
static int hypre_body(void *arg) {
        pm_info_t info;
        pm_prog_t prog, got;
        pm_data_t d;

        (void) arg;
        CHECK(touch_fresh_pages(1) == 0);
        CHECK_RC(pm_init(0, &info), PM_EFILTER);
        CHECK_RC(pm_init(ALL_STATUSES, &info), 0);
        client_program(&prog, 0, client_event_id(&info, 0, "PM_PAGE_FLT"), client_event_id(&info, 1, "PM_MINOR_FLT"));
        prog.mode.w |= PM_USER;
        prog.mode.w |= PM_PROCESS;
        prog.mode.b.count = 1;
        CHECK_RC(pm_set_program_mygroup(&prog), 0);             /* hcinit */
        CHECK_RC(pm_reset_data_mygroup(), 0);                   /* hcreset */
        CHECK_RC(pm_start_mygroup(), 0);                        /* hcstart */
        CHECK(touch_fresh_pages(700) == 0);
        CHECK_RC(pm_stop_mygroup(), 0);                         /* hcstop */
        CHECK_RC(pm_get_program_mygroup(&got), 0);
        CHECK(got.events[0] == prog.events[0] && got.events[1] == prog.events[1] && got.mode.b.process);
        CHECK_RC(pm_get_data_mygroup(&d), 0);
        CHECK_RANGE(d.accu[0], 700, 702);
        CHECK_RANGE(d.accu[1], 700, 702);
        CHECK(d.ginfo.members == 1 && d.ginfo.flags.b.consistent);
        CHECK_RC(pm_delete_program_mygroup(), 0);               /* hcfinish */
        CHECK_RC(pm_get_program_mygroup(&got), PM_ENOCONTEXT);
        return 0;
}

CLIENT_TEST(test_paradyn_runtime_counts_its_process_as_a_group, paradyn_body)
CLIENT_TEST(test_paradyn_groups_build_counts_group_0, paradyn_groups_body)
CLIENT_TEST(test_paradyn_daemon_reads_a_paused_inferior_from_outside, paradyn_daemon_body)
CLIENT_TEST(test_libmpihpm_counts_from_mpi_init_to_mpi_finalize, mpihpm_body)
CLIENT_TEST(test_hypre_brackets_its_solve_with_group_calls, hypre_body)

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
                cmocka_unit_test(test_paradyn_runtime_counts_its_process_as_a_group),
                cmocka_unit_test(test_paradyn_groups_build_counts_group_0),
                cmocka_unit_test(test_paradyn_daemon_reads_a_paused_inferior_from_outside),
                cmocka_unit_test(test_libmpihpm_counts_from_mpi_init_to_mpi_finalize),
                cmocka_unit_test(test_hypre_brackets_its_solve_with_group_calls),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
