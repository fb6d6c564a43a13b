/* test-access-matrix.c: the security matrix of the third-party calls, over the real bus with real
 * identities (the test runs as root and makes the others: targets and callers are forked children
 * that switch uids before they connect, since the bus keeps the ids of connect time). Each row
 * names a target and a caller and what every call must return: root, the owner, another uid,
 * another group, a tracer, a non-dumpable target, a set-id-like target with mixed uids, pmapid's
 * own thread, pid 1. A refused caller gets the same answer whether or not the thread has a context
 * and its buffers stay untouched; the context stays as it was. Then: a recycled pid, the
 * kernel-mode policy under perf_event_paranoid 2 and 3, the matrix again with every caller in the
 * groups of an [Access] policy at paranoid 2 and 3 (a grant restores counting, never access), the
 * log line of a refusal, and the per-user limit from pmapid.conf. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <pwd.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "check.h"
#include "paranoid.h"
#include "pmapi.h"
#include "target.h"
#include "workload.h"

#define NOBODY 65534
/* Another unprivileged user that dbus-daemon knows (it refuses uids without a passwd entry): the
 * "daemon" account Debian's base-passwd always has. Targets never connect, so any gid will do. */
#define OTHER_UID other_uid
#define OTHER_GID 4242

static uid_t other_uid;
#define OTHER_UID_MARK 1                /* in the rows: replaced by other_uid at setup */
#define JUNK 0x5a
#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

static BusFixture fixture;
static int page_flt, ctx_sw, hidden_event;      /* hidden: kernel mode not shown to owners */

typedef enum TargetKind {
        T_NOBODY, T_ROOT, T_OTHER_GROUP, T_NOT_DUMPABLE, T_SET_ID, T_PMAPID, T_PID_1,
} TargetKind;

typedef struct Row {
        const char *what;
        TargetKind target;
        uid_t caller_uid;
        gid_t caller_gid;
        bool caller_traces;             /* PTRACE_SEIZE as root, then drop to caller_uid */
        bool tracers_tool;              /* the calls come from a child of that tracer (gdb's shell) */
        int expected;                   /* what every call returns: 0 or a refusal */
        bool groups;                    /* the group calls too */
} Row;

static Row rows[] = {
        { "root, nobody's process",          T_NOBODY,       0,         0,         false, false, 0,                true },
        { "owner, its dumpable process",     T_NOBODY,       NOBODY,    NOBODY,    false, false, 0,                true },
        { "other uid",                       T_NOBODY,       OTHER_UID_MARK, 0,    false, false, PM_ENOTOWNER,     true },
        { "owner uid, other group",          T_OTHER_GROUP,  NOBODY,    NOBODY,    false, false, PM_ENOTOWNER,     false },
        { "nobody, root's process",          T_ROOT,         NOBODY,    NOBODY,    false, false, PM_ENOTOWNER,     false },
        { "tracer of another uid's target",  T_NOT_DUMPABLE, OTHER_UID_MARK, 0,    true, false,  0,                true },
        { "tracer's tool, same uid",         T_NOT_DUMPABLE, OTHER_UID_MARK, 0,    true, true,  0,                false },
        { "owner, non-dumpable target",      T_NOT_DUMPABLE, NOBODY,    NOBODY,    false, false, PM_ENOTDUMPABLE,  true },
        { "root, non-dumpable target",       T_NOT_DUMPABLE, 0,         0,         false, false, 0,                false },
        { "owner, set-id-like mixed uids",   T_SET_ID,       NOBODY,    NOBODY,    false, false, PM_ESETID,        true },
        { "root, set-id-like mixed uids",    T_SET_ID,       0,         0,         false, false, 0,                false },
        { "root, a thread of pmapid",        T_PMAPID,       0,         0,         false, false, PM_EDAEMONTHREAD, true },
        { "nobody, a thread of pmapid",      T_PMAPID,       NOBODY,    NOBODY,    false, false, PM_EDAEMONTHREAD, false },
        { "root, pid 1",                     T_PID_1,        0,         0,         false, false, 0,                false },
        { "nobody, pid 1",                   T_PID_1,        NOBODY,    NOBODY,    false, false, PM_ENOTOWNER,     false },
};

static TargetIdentity identity_of(TargetKind k) {
        switch (k) {
        case T_ROOT:
                return TARGET_ROOT;
        case T_OTHER_GROUP:
                return (TargetIdentity) { { NOBODY, NOBODY, NOBODY }, { OTHER_GID, OTHER_GID, OTHER_GID }, false };
        case T_NOT_DUMPABLE:
                return (TargetIdentity) { { NOBODY, NOBODY, NOBODY }, { NOBODY, NOBODY, NOBODY }, true };
        case T_SET_ID:
                return (TargetIdentity) { { NOBODY, NOBODY, 0 }, { NOBODY, NOBODY, NOBODY }, false };
        default:
                return TARGET_UID(NOBODY);
        }
}

/* Supplementary groups every caller takes (the [Access] rounds); none otherwise. */
static gid_t caller_groups[2];
static size_t n_caller_groups;

typedef struct Call {
        const Row *row;
        pid_t pid, tid;
        pid_t trace;                    /* the thread to PTRACE_SEIZE first, or 0 */
} Call;

static bool untouched(const void *p, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (((const unsigned char *) p)[i] != JUNK)
                        return false;
        return true;
}

/* Every call refused with the same code; nothing written to the caller's buffers. */
static int refused_calls(const Call *c, int code) {
        pm_prog_t prog, got;
        pm_data_t d;
        timebasestruct_t tb;

        program_one(&prog, PM_USER | PM_COUNT, page_flt);
        memset(&got, JUNK, sizeof(got));
        memset(&d, JUNK, sizeof(d));
        memset(&tb, JUNK, sizeof(tb));
        CHECK_RC(pm_set_program_thread(c->pid, c->tid, &prog), code);
        CHECK_RC(pm_get_program_thread(c->pid, c->tid, &got), code);
        CHECK_RC(pm_get_tdata_thread(c->pid, c->tid, &d, &tb), code);
        CHECK_RC(pm_start_thread(c->pid, c->tid), code);
        CHECK_RC(pm_stop_thread(c->pid, c->tid), code);
        CHECK_RC(pm_reset_data_thread(c->pid, c->tid), code);
        CHECK_RC(pm_delete_program_thread(c->pid, c->tid), code);
        CHECK_RC(pm_get_data_pthread(c->pid, c->tid, 0, &d), code);
        if (c->row->groups) {
                CHECK_RC(pm_set_program_group(c->pid, c->tid, &prog), code);
                CHECK_RC(pm_get_program_group(c->pid, c->tid, &got), code);
                CHECK_RC(pm_get_data_group(c->pid, c->tid, &d), code);
                CHECK_RC(pm_start_group(c->pid, c->tid), code);
                CHECK_RC(pm_stop_group(c->pid, c->tid), code);
                CHECK_RC(pm_reset_data_group(c->pid, c->tid), code);
                CHECK_RC(pm_delete_program_group(c->pid, c->tid), code);
        }
        CHECK(untouched(&got, sizeof(got)) && untouched(&d, sizeof(d)) && untouched(&tb, sizeof(tb)));
        return 0;
}

/* The whole life of a context and of a group, from outside. */
static int allowed_calls(const Call *c) {
        pm_prog_t prog, got;
        pm_data_t d;
        timebasestruct_t tb;

        program_one(&prog, PM_USER | PM_COUNT, page_flt);
        CHECK_RC(pm_get_data_thread(c->pid, c->tid, &d), PM_ENOCONTEXT);
        CHECK_RC(pm_set_program_thread(c->pid, c->tid, &prog), 0);
        CHECK_RC(pm_set_program_thread(c->pid, c->tid, &prog), PM_EEXIST);
        CHECK_RC(pm_get_program_thread(c->pid, c->tid, &got), 0);
        CHECK(got.events[0] == page_flt && got.events[1] == COUNT_NOTHING && got.mode.b.count && got.mode.b.user);
        CHECK_RC(pm_stop_thread(c->pid, c->tid), 0);
        CHECK_RC(pm_get_program_thread(c->pid, c->tid, &got), 0);
        CHECK(!got.mode.b.count);
        CHECK_RC(pm_reset_data_thread(c->pid, c->tid), 0);
        CHECK_RC(pm_get_tdata_thread(c->pid, c->tid, &d, &tb), 0);
        CHECK(d.accu[0] == 0 && tb.flag == PM_TB_MONOTONIC_NS && PM_TB_TO_NS(tb) > 0);
        CHECK_RC(pm_start_thread(c->pid, c->tid), 0);
        CHECK_RC(pm_get_data_pthread(c->pid, c->tid, (ptid_t) c->tid, &d), 0);
        CHECK_RC(pm_delete_program_thread(c->pid, c->tid), 0);
        CHECK_RC(pm_get_data_thread(c->pid, c->tid, &d), PM_ENOCONTEXT);
        if (c->row->groups) {
                CHECK_RC(pm_set_program_group(c->pid, c->tid, &prog), 0);
                CHECK_RC(pm_get_data_group(c->pid, c->tid, &d), 0);
                CHECK(d.ginfo.members == 1 && d.ginfo.flags.b.consistent && !d.ginfo.flags.b.process);
                CHECK_RC(pm_stop_group(c->pid, c->tid), 0);
                CHECK_RC(pm_reset_data_group(c->pid, c->tid), 0);
                CHECK_RC(pm_delete_program_group(c->pid, c->tid), 0);
                CHECK_RC(pm_get_data_group(c->pid, c->tid, &d), PM_ENOCONTEXT);
        }
        return 0;
}

static int caller_body(void *arg) {
        const Call *c = arg;
        pm_info_t info;

        CHECK_RC(pm_init(PM_VERIFIED, &info), 0);
        return c->row->expected == 0 ? allowed_calls(c) : refused_calls(c, c->row->expected);
}

/* As root: optionally seize the target, then become the caller, then connect and call. */
static int run_caller(const Call *c) {
        int status;
        pid_t pid = fork();

        if (pid < 0)
                return -1;
        if (pid == 0) {
                if (c->trace > 0 && ptrace(PTRACE_SEIZE, c->trace, 0, 0) < 0)
                        _exit(125);
                if (setgroups(n_caller_groups, caller_groups) < 0 || setresgid(c->row->caller_gid, c->row->caller_gid, c->row->caller_gid) < 0 ||
                    setresuid(c->row->caller_uid, c->row->caller_uid, c->row->caller_uid) < 0)
                        _exit(126);
                if (c->row->tracers_tool) {
                        /* The tracer stays, as gdb does while its shell runs pmctl. */
                        pid_t tool = fork();
                        if (tool == 0)
                                _exit(caller_body((void *) c));
                        if (tool < 0 || waitpid(tool, &status, 0) != tool || !WIFEXITED(status))
                                _exit(124);
                        _exit(WEXITSTATUS(status));
                }
                _exit(caller_body((void *) c));
        }
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
                return -1;
        return WEXITSTATUS(status);
}

/* A refused caller must learn nothing from a context being there: run it with root's context on
 * the thread and without, and check root's context is as it was. */
static void check_refused_row(const Call *c) {
        pm_prog_t prog, got;
        pm_data_t before, after;

        program_one(&prog, PM_USER | PM_COUNT, page_flt);
        assert_int_equal(pm_set_program_thread(c->pid, c->tid, &prog), 0);
        assert_int_equal(pm_stop_thread(c->pid, c->tid), 0);
        assert_int_equal(pm_get_data_thread(c->pid, c->tid, &before), 0);
        assert_int_equal(run_caller(c), 0);
        assert_int_equal(pm_get_program_thread(c->pid, c->tid, &got), 0);
        assert_int_equal(got.events[0], page_flt);
        assert_false(got.mode.b.count);                         /* the caller's start did not happen */
        assert_int_equal(pm_get_data_thread(c->pid, c->tid, &after), 0);
        assert_memory_equal(before.accu, after.accu, sizeof(before.accu));
        assert_int_equal(pm_delete_program_thread(c->pid, c->tid), 0);
        assert_int_equal(run_caller(c), 0);
}

/* libpmapi remembers which pmapid set this process's last program: after a restart, one set (and
 * deleted) through the new one, or the callers forked from here would take a missing context for
 * one the old pmapid lost (PM_ERESTARTED). */
static int greet_new_pmapid(void) {
        pm_prog_t prog;

        program_one(&prog, PM_USER, page_flt);
        if (pm_set_program_mythread(&prog) != 0)
                return -1;
        return pm_delete_program_mythread() == 0 ? 0 : -1;
}

static void run_matrix(void) {
        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                const Row *row = &rows[i];
                Target t = {};
                Call c = { .row = row };
                TargetIdentity id = identity_of(row->target);

                fprintf(stderr, "# row: %s\n", row->what);
                if (row->target == T_PMAPID)
                        c.pid = c.tid = fixture.daemon_pid;
                else if (row->target == T_PID_1)
                        c.pid = c.tid = 1;
                else {
                        assert_int_equal(target_start(&t, &id, 2), 0);
                        c.pid = t.pid;
                        c.tid = t.tids[1];              /* a thread that is not the main one */
                }
                c.trace = row->caller_traces ? c.tid : 0;     /* ptrace attaches one thread */
                if (row->expected != 0 && row->target != T_PMAPID)
                        check_refused_row(&c);
                else if (run_caller(&c) != 0)
                        fail_msg("row '%s' failed", row->what);
                target_kill(&t);
        }
}

static void test_access_matrix(void **state) {
        (void) state;
        run_matrix();
}

/* Every caller in the groups of UserModeGroups and KernelModeGroups: at perf_event_paranoid 2 and
 * 3 each row answers as the plain matrix does at 2, the same refusals (no escalation) and the same
 * allowed calls (a grant restores counting, never access to another's threads). */
static void test_access_policy_grants_counting_never_access(void **state) {
        static const int levels[] = { 2, 3 };
        struct group *users = getgrnam("users"), *staff = getgrnam("staff");

        (void) state;
        assert_non_null(users);
        assert_non_null(staff);
        caller_groups[0] = users->gr_gid;
        caller_groups[1] = staff->gr_gid;
        n_caller_groups = 2;
        assert_int_equal(bus_fixture_restart_with_config(&fixture, "[Access]\nUserModeGroups=users\n"
                                                                   "KernelModeGroups=staff\n"), 0);
        assert_int_equal(greet_new_pmapid(), 0);
        for (size_t i = 0; i < ELEMENTSOF(levels); i++) {
                fprintf(stderr, "# [Access] rounds at perf_event_paranoid %d\n", levels[i]);
                assert_int_equal(paranoid_set_for_test(levels[i]), 0);
                run_matrix();
        }
}

static int restore_policy(void **state) {
        (void) state;
        paranoid_restore_for_test();
        n_caller_groups = 0;
        if (bus_fixture_restart_with_config(&fixture, "") != 0)
                return -1;
        return greet_new_pmapid();
}

static int new_owner_reads(void *arg) {
        const pid_t *pid = arg;
        pm_info_t info;
        pm_data_t d;

        CHECK_RC(pm_init(PM_VERIFIED, &info), 0);
        CHECK_RC(pm_get_data_thread(*pid, *pid, &d), PM_ENOTOWNER);
        return 0;
}

static int write_sysctl(const char *path, int value) {
        FILE *f = fopen(path, "we");

        if (!f)
                return -1;
        fprintf(f, "%d\n", value);
        return fclose(f);
}

/* The pid of a dead target goes to a process of another user: root finds no context there (never
 * the old one's counts), and the old target's owner is refused the new process. */
static void test_recycled_pid_is_never_acted_on(void **state) {
        Target old, fresh = {};
        TargetIdentity nobody = TARGET_UID(NOBODY), other = TARGET_UID(OTHER_UID);
        pm_prog_t prog;
        pm_data_t d;
        pid_t pid;
        int r;

        (void) state;
        program_one(&prog, PM_USER | PM_COUNT, page_flt);
        assert_int_equal(target_start(&old, &nobody, 1), 0);
        pid = old.pid;
        assert_int_equal(pm_set_program_thread(pid, pid, &prog), 0);
        assert_int_equal(target_touch(&old, 0, 300), 0);
        assert_int_equal(pm_get_data_thread(pid, pid, &d), 0);
        assert_true(d.accu[0] >= 300);
        target_kill(&old);
        r = target_start_with_pid(&fresh, &other, 1, pid);
        assert_true(r >= 0);
        if (r > 0)
                skip();                                 /* other processes kept taking the pid */
        assert_int_equal(pm_get_data_thread(pid, pid, &d), PM_ENOCONTEXT);
        assert_int_equal(pm_get_program_thread(pid, pid, &prog), PM_ENOCONTEXT);
        assert_int_equal(run_as_nobody(new_owner_reads, &pid), 0);
        assert_int_equal(wait_for_context_count(0, 10000), 0);
        target_kill(&fresh);
}

static int read_sysctl(const char *path) {
        FILE *f = fopen(path, "re");
        int v = -1;

        if (f) {
                if (fscanf(f, "%d", &v) != 1)
                        v = -1;
                fclose(f);
        }
        return v;
}

typedef struct KernelCase {
        pid_t pid, tid;                 /* the caller sets on tid, reads root's context on pid */
        int event;
        int mode;
        int expected_set;
        int expected_read;              /* of root's context on the same thread */
} KernelCase;

static int kernel_mode_body(void *arg) {
        const KernelCase *k = arg;
        pm_info_t info;
        pm_prog_t prog;
        pm_data_t d;

        CHECK_RC(pm_init(PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT, &info), 0);
        program_one(&prog, k->mode, k->event);
        CHECK_RC(pm_get_data_thread(k->pid, k->pid, &d), k->expected_read);
        CHECK_RC(pm_set_program_thread(k->pid, k->tid, &prog), k->expected_set);
        if (k->expected_set == 0)
                CHECK_RC(pm_delete_program_thread(k->pid, k->tid), 0);
        return 0;
}

/* Owner (nobody) on another of its processes: kernel mode of events it sees anyway is allowed at
 * paranoid 2, of others refused; root's kernel-mode context on its thread is not readable to it;
 * at paranoid 3 nothing. */
static void test_kernel_mode_follows_perf_event_paranoid(void **state) {
        const char *paranoid = "/proc/sys/kernel/perf_event_paranoid";
        int old = read_sysctl(paranoid);
        TargetIdentity nobody = TARGET_UID(NOBODY);
        pm_prog_t prog;
        Target t;

        (void) state;
        if (write_sysctl(paranoid, 2) < 0)
                skip();
        assert_int_equal(target_start(&t, &nobody, 2), 0);

        /* Software events whose counts the owner sees in /proc: kernel mode allowed. */
        KernelCase k = { t.pid, t.tids[1], ctx_sw, PM_USER | PM_KERNEL, 0, PM_ENOCONTEXT };
        assert_int_equal(run_as_nobody(kernel_mode_body, &k), 0);
        if (hidden_event > 0) {
                program_one(&prog, PM_USER | PM_KERNEL | PM_COUNT, hidden_event);
                assert_int_equal(pm_set_program_thread(t.pid, t.pid, &prog), 0);   /* root may */
                k = (KernelCase) { t.pid, t.tids[1], hidden_event, PM_USER | PM_KERNEL, PM_EKERNELMODE, PM_EKERNELMODE };
                assert_int_equal(run_as_nobody(kernel_mode_body, &k), 0);
                k = (KernelCase) { t.pid, t.tids[1], hidden_event, PM_USER, 0, PM_EKERNELMODE };
                assert_int_equal(run_as_nobody(kernel_mode_body, &k), 0);
                assert_int_equal(pm_delete_program_thread(t.pid, t.pid), 0);
        } else
                fprintf(stderr, "# no event here hides its kernel-mode counts from owners: that part not run\n");

        assert_int_equal(write_sysctl(paranoid, 3), 0);
        k = (KernelCase) { t.pid, t.tids[1], page_flt, PM_USER, PM_EPERM, PM_ENOCONTEXT };
        assert_int_equal(run_as_nobody(kernel_mode_body, &k), 0);
        program_one(&prog, PM_USER | PM_KERNEL, page_flt);
        assert_int_equal(pm_set_program_thread(t.pid, t.pid, &prog), 0);           /* root still may */
        assert_int_equal(pm_delete_program_thread(t.pid, t.pid), 0);
        assert_int_equal(write_sysctl(paranoid, old), 0);
        target_kill(&t);
}

typedef struct Refusal {
        pid_t pid, tid;
} Refusal;

static int other_uid_sets(void *arg) {
        const Refusal *r = arg;
        pm_info_t info;
        pm_prog_t prog;

        CHECK_RC(pm_init(PM_VERIFIED, &info), 0);
        program_one(&prog, PM_USER, page_flt);
        CHECK_RC(pm_set_program_thread(r->pid, r->tid, &prog), PM_ENOTOWNER);
        printf("%d\n", (int) getpid());
        return 0;
}

static uint64_t calls_refused(void) {
        sd_bus *bus = NULL;
        uint64_t n = 0;

        if (sd_bus_open_system(&bus) >= 0)
                (void) sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1",
                                                   "org.pmapi.PerfMon1.Manager", "CallsRefused", NULL, 't', &n);
        sd_bus_flush_close_unref(bus);
        return n;
}

/* The admin sees who was refused what: one log line with the method, the target, the caller's
 * uid and the reason, and the Manager's CallsRefused. */
static void test_refusals_are_logged_with_caller_and_target(void **state) {
        TargetIdentity nobody = TARGET_UID(NOBODY);
        uint64_t before = calls_refused();
        char target[64], uid[32];
        Refusal r;
        Target t;

        (void) state;
        assert_int_equal(target_start(&t, &nobody, 1), 0);
        r = (Refusal) { t.pid, t.pid };
        usleep(1100000);                /* the matrix above spent other_uid's log budget (log-budget.h) */
        assert_int_equal(run_as(OTHER_UID, OTHER_UID, other_uid_sets, &r), 0);
        assert_int_equal(calls_refused(), before + 1);
        snprintf(target, sizeof(target), "on thread %d of pid %d", (int) t.pid, (int) t.pid);
        snprintf(uid, sizeof(uid), "uid %u:", (unsigned) other_uid);
        assert_true(bus_fixture_log_has(&fixture, "Refused SetProgram", target, uid,
                                        "belongs to another user", NULL));
        target_kill(&t);
}

static int other_uid_reads_200_times(void *arg) {
        const Refusal *r = arg;
        pm_info_t info;
        pm_data_t d;

        CHECK_RC(pm_init(PM_VERIFIED, &info), 0);
        for (int i = 0; i < 200; i++)
                CHECK_RC(pm_get_data_thread(r->pid, r->tid, &d), PM_ENOTOWNER);
        return 0;
}

static int refused_once(void *arg) {
        const Refusal *r = arg;
        pm_info_t info;
        pm_data_t d;

        CHECK_RC(pm_init(PM_VERIFIED, &info), 0);
        CHECK_RC(pm_get_data_thread(r->pid, r->tid, &d), PM_ENOTOWNER);
        return 0;
}

/* One user's flood of refused calls costs the log 10 lines a second (log-budget.h), and its next
 * line says how many went unlogged; another user's refusal is logged meanwhile; every refusal is
 * counted in CallsRefused all the same. */
static void test_refusal_log_is_bounded_per_user(void **state) {
        TargetIdentity nobody = TARGET_UID(NOBODY);
        uint64_t before = calls_refused();
        char uid[32];
        Refusal r, root_r;
        Target t, root_t;
        int lines;

        (void) state;
        assert_int_equal(target_start(&t, &nobody, 1), 0);
        assert_int_equal(target_start(&root_t, &TARGET_ROOT, 1), 0);
        r = (Refusal) { t.pid, t.pid };
        root_r = (Refusal) { root_t.pid, root_t.pid };
        snprintf(uid, sizeof(uid), "uid %u:", (unsigned) other_uid);
        lines = bus_fixture_log_count(&fixture, "Refused GetData", uid, NULL);
        usleep(1100000);                        /* a fresh budget window for other_uid */
        assert_int_equal(run_as(OTHER_UID, OTHER_UID, other_uid_reads_200_times, &r), 0);
        assert_int_equal(calls_refused(), before + 200);
        assert_int_equal(bus_fixture_log_count(&fixture, "Refused GetData", uid, NULL), lines + 10);
        assert_int_equal(run_as_nobody(refused_once, &root_r), 0);
        assert_true(bus_fixture_log_has(&fixture, "Refused GetData", "uid 65534:", NULL));
        usleep(1100000);
        assert_int_equal(run_as(OTHER_UID, OTHER_UID, refused_once, &r), 0);
        assert_true(bus_fixture_log_has(&fixture, "Refused GetData", uid, "190 more refusals of this user not logged",
                                        NULL));
        target_kill(&t);
        target_kill(&root_t);
}

static int owner_fills_its_limit(void *arg) {
        const Target *t = arg;
        pm_info_t info;
        pm_prog_t prog;

        CHECK_RC(pm_init(PM_VERIFIED, &info), 0);
        program_one(&prog, PM_USER, page_flt);
        CHECK_RC(pm_set_program_thread(t->pid, t->tids[0], &prog), 0);
        CHECK_RC(pm_set_program_thread(t->pid, t->tids[1], &prog), 0);
        CHECK_RC(pm_set_program_thread(t->pid, t->tids[2], &prog), PM_ELIMIT);
        CHECK_RC(pm_delete_program_thread(t->pid, t->tids[0]), 0);
        CHECK_RC(pm_set_program_thread(t->pid, t->tids[2], &prog), 0);
        return 0;
}

/* MaxContextsPerUser from pmapid.conf binds the caller that makes the contexts; root is not
 * charged for them. */
static void test_per_user_limit_comes_from_the_config_file(void **state) {
        TargetIdentity nobody = TARGET_UID(NOBODY);
        pm_prog_t prog;
        Target t;

        (void) state;
        assert_int_equal(bus_fixture_restart_with_config(&fixture, "[Limits]\nMaxContextsPerUser=2\n"), 0);

        assert_int_equal(target_start(&t, &nobody, 4), 0);
        assert_int_equal(run_as_nobody(owner_fills_its_limit, &t), 0);
        program_one(&prog, PM_USER, page_flt);
        assert_int_equal(pm_set_program_thread(t.pid, t.tids[3], &prog), 0);     /* root's own count */
        target_kill(&t);
}

static int setup(void **state) {
        struct passwd *pw = getpwnam("daemon");
        pm_info_t info;

        (void) state;
        if (!pw || pw->pw_uid == 0 || pw->pw_uid == NOBODY)
                return -1;
        other_uid = pw->pw_uid;
        for (size_t i = 0; i < ELEMENTSOF(rows); i++)
                if (rows[i].caller_uid == OTHER_UID_MARK)
                        rows[i].caller_uid = rows[i].caller_gid = other_uid;
        if (bus_fixture_start_bus(&fixture) != 0)
                return -1;
        fixture.capture_log = true;
        if (bus_fixture_start_daemon(&fixture, NULL) != 0)
                return -1;
        if (pm_init(PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT, &info) != 0)
                return -1;
        page_flt = find_event_id(&info, "PM_PAGE_FLT");
        ctx_sw = find_event_id(&info, "PM_CTX_SW");
        /* Counts no getrusage or /proc shows, so its kernel mode is not the owner's to see. */
        hidden_event = find_event_id(&info, "perf::PERF_COUNT_SW_CGROUP_SWITCHES");
        if (hidden_event < 0)
                hidden_event = find_event_id(&info, "PM_CYC");
        return page_flt > 0 && ctx_sw > 0 ? 0 : -1;
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_access_matrix),
                cmocka_unit_test_teardown(test_access_policy_grants_counting_never_access, restore_policy),
                cmocka_unit_test(test_recycled_pid_is_never_acted_on),
                cmocka_unit_test(test_kernel_mode_follows_perf_event_paranoid),
                cmocka_unit_test(test_refusals_are_logged_with_caller_and_target),
                cmocka_unit_test(test_refusal_log_is_bounded_per_user),
                cmocka_unit_test(test_per_user_limit_comes_from_the_config_file),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
