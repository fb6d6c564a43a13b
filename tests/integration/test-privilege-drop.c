/* test-privilege-drop.c: a connection's rights never outlive its process's. A process that connects
 * as root (or with a group) and then drops it, on the same connection, must get exactly what a fresh
 * connection of who it is now gets: over the raw bus every call that names its caller answers
 * CallerGone (the connection belongs to the user that connected), and through libpmapi, which then
 * reconnects, the refusals of the user it became (NotOwner, KernelModeDenied, RootRequired). A
 * set-group-ID style drop of the effective gid takes effect on the next call, and a forked child that
 * drops before or after its Inherit keeps counting its own threads as the user it is. Run at
 * perf_event_paranoid 2 and 3 (restored). */
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "check.h"
#include "paranoid.h"
#include "pmapi.h"
#include "raw-bus.h"
#include "target.h"
#include "workload.h"

#define NOBODY 65534
#define OTHER_UID 1                     /* daemon */
#define ERROR(name) "org.pmapi.PerfMon1.Error." name

static BusFixture fixture;
static int page_flt, hidden_event;     /* hidden: kernel mode not shown to owners, or -1 */

/* Runs fn in a forked child (as root, like the test) and returns its exit status: 0 passed. */
static int in_child(int (*fn)(void *arg), void *arg) {
        int status;
        pid_t pid = fork();

        if (pid < 0)
                return -1;
        if (pid == 0)
                _exit(fn(arg));
        return waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int drop_to(uid_t uid, gid_t gid) {
        return setgroups(0, NULL) == 0 && setresgid(gid, gid, gid) == 0 && setresuid(uid, uid, uid) == 0 ? 0 : -1;
}

static int expect_error(int fd, const char *method, const RawArg *args, size_t n, const char *want) {
        char name[256] = "";
        int r = raw_bus_call(fd, method, args, n, name, sizeof(name));

        if (r != 1 || strcmp(name, want) != 0) {
                fprintf(stderr, "%s: %d '%s', expected %s\n", method, r, name, want);
                return -1;
        }
        return 0;
}

typedef struct Victims {
        Target root, other;
} Victims;

/* The calls a dropped root connection made before this fix: programs on another user's and on a
 * root process, kernel mode on its own thread, the every-process system context. gone: what each
 * must answer on the old connection (CallerGone), or NULL for the fresh connection's own refusal. */
static int hostile_calls(int fd, const Victims *v, const char *gone) {
        const RawArg on_root[] = { { 'i', v->root.pid }, { 'i', v->root.pid }, { 'i', PM_USER | PM_COUNT },
                                   { 'a', page_flt } };
        const RawArg on_other[] = { { 'i', v->other.pid }, { 'i', v->other.pid }, { 'i', PM_USER | PM_COUNT },
                                    { 'a', page_flt } };
        const RawArg read_root[] = { { 'i', v->root.pid }, { 'i', v->root.pid } };
        const RawArg kernel_self[] = { { 'i', getpid() }, { 'i', getpid() }, { 'i', PM_KERNEL | PM_COUNT },
                                       { 'a', hidden_event } };
        const RawArg every_process[] = { { 'i', PM_USER | PM_COUNT }, { 'a', page_flt } };

        CHECK(expect_error(fd, "SetProgram", on_root, 4, gone ?: ERROR("NotOwner")) == 0);
        CHECK(expect_error(fd, "SetProgram", on_other, 4, gone ?: ERROR("NotOwner")) == 0);
        CHECK(expect_error(fd, "GetData", read_root, 2, gone ?: ERROR("NotOwner")) == 0);
        if (hidden_event > 0 && (gone || paranoid_now() == 2))
                CHECK(expect_error(fd, "SetProgram", kernel_self, 4, gone ?: ERROR("KernelModeDenied")) == 0);
        CHECK(expect_error(fd, "SetSystemProgram", every_process, 2, gone ?: ERROR("RootRequired")) == 0);
        CHECK(expect_error(fd, "GetSystemData", NULL, 0, gone ?: ERROR("NoContext")) == 0);
        return 0;
}

/* Connects as root, uses the connection (a program on the root victim, read back and deleted), drops
 * to nobody and calls again on the same connection, then on a fresh one. */
static int raw_drop_body(void *arg) {
        const Victims *v = arg;
        const RawArg on_root[] = { { 'i', v->root.pid }, { 'i', v->root.pid }, { 'i', PM_USER | PM_COUNT },
                                   { 'a', page_flt } };
        const RawArg read_root[] = { { 'i', v->root.pid }, { 'i', v->root.pid } };
        char name[256] = "";
        int fd, fresh;

        fd = raw_bus_connect();
        CHECK(fd >= 0);
        CHECK(raw_bus_call(fd, "SetProgram", on_root, 4, name, sizeof(name)) == 0);
        CHECK(raw_bus_call(fd, "GetData", read_root, 2, name, sizeof(name)) == 0);
        CHECK(raw_bus_call(fd, "DeleteProgram", read_root, 2, name, sizeof(name)) == 0);
        CHECK(drop_to(NOBODY, NOBODY) == 0);
        CHECK(hostile_calls(fd, v, ERROR("CallerGone")) == 0);
        fresh = raw_bus_connect();
        CHECK(fresh >= 0);
        CHECK(hostile_calls(fresh, v, NULL) == 0);
        return 0;
}

static int start_victims(Victims *v) {
        TargetIdentity root = TARGET_ROOT, other = TARGET_UID(OTHER_UID);

        if (target_start(&v->root, &root, 1) != 0)
                return -1;
        if (target_start(&v->other, &other, 1) != 0) {
                target_kill(&v->root);
                return -1;
        }
        return 0;
}

static void stop_victims(Victims *v) {
        pm_prog_t prog;

        /* Nothing the dropped process tried stayed behind. */
        assert_int_equal(pm_get_program_thread(v->root.pid, v->root.pid, &prog), PM_ENOCONTEXT);
        assert_int_equal(pm_get_program_thread(v->other.pid, v->other.pid, &prog), PM_ENOCONTEXT);
        target_kill(&v->root);
        target_kill(&v->other);
}

static void run_at_paranoid(int level, int (*fn)(void *arg)) {
        Victims v;

        assert_int_equal(paranoid_set_for_test(level), 0);
        assert_int_equal(start_victims(&v), 0);
        assert_int_equal(in_child(fn, &v), 0);
        stop_victims(&v);
        paranoid_restore_for_test();
        assert_int_equal(wait_for_context_count(0, 10000), 0);
}

static void test_raw_connection_loses_root_with_its_process(void **state) {
        (void) state;
        run_at_paranoid(2, raw_drop_body);
        run_at_paranoid(3, raw_drop_body);
}

/* The same through libpmapi: it reconnects as the user its process is now, so its callers get that
 * user's refusals, and what that user may do still works. */
static int library_drop_body(void *arg) {
        const Victims *v = arg;
        int paranoid = paranoid_now();
        long long before;
        pm_prog_t prog;
        pm_data_t data;

        program_one(&prog, PM_USER | PM_COUNT, page_flt);
        CHECK_RC(pm_set_program_thread(v->root.pid, v->root.pid, &prog), 0);
        CHECK_RC(pm_delete_program_thread(v->root.pid, v->root.pid), 0);
        CHECK(drop_to(NOBODY, NOBODY) == 0);
        CHECK_RC(pm_set_program_thread(v->root.pid, v->root.pid, &prog), PM_ENOTOWNER);
        CHECK_RC(pm_set_program_thread(v->other.pid, v->other.pid, &prog), PM_ENOTOWNER);
        CHECK_RC(pm_get_data_thread(v->root.pid, v->root.pid, &data), PM_ENOTOWNER);
        CHECK_RC(pm_set_program(&prog), PM_ESYSROOT);
        program_one(&prog, PM_KERNEL | PM_COUNT, hidden_event > 0 ? hidden_event : page_flt);
        if (hidden_event > 0)
                CHECK_RC(pm_set_program_mythread(&prog), paranoid >= 3 ? PM_EPERM : PM_EKERNELMODE);
        if (paranoid >= 3)
                return 0;
        /* What nobody may do: count its own thread in user mode, exactly. This runs in a forked
         * child, whose first write to each page it shares with its parent is a fault of its own
         * (copy on write): the pages the window writes besides its 500 (the read path's, the
         * touching's) are written once before it starts. */
        program_one(&prog, PM_USER | PM_COUNT, page_flt);
        CHECK_RC(pm_set_program_mythread(&prog), 0);
        CHECK_RC(pm_get_data_mythread(&data), 0);
        CHECK(touch_fresh_pages(1) == 0);
        CHECK_RC(pm_get_data_mythread(&data), 0);
        before = data.accu[0];
        CHECK(touch_fresh_pages(500) == 0);
        CHECK_RC(pm_get_data_mythread(&data), 0);
        CHECK_NEAR(data.accu[0] - before, 500, 0);
        CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

static void test_library_reconnects_as_the_user_it_became(void **state) {
        (void) state;
        run_at_paranoid(2, library_drop_body);
        run_at_paranoid(3, library_drop_body);
}

/* A set-group-ID program's drop: the process runs as nobody with the victim's group as its effective
 * gid (its real gid another) and may count the victim, which runs as nobody too; once it sets its
 * gids to its real one, the victim's gid is no longer its own and the next call is refused. */
static int setgid_drop_body(void *arg) {
        const Target *victim = arg;
        pm_prog_t prog;

        CHECK(setgroups(0, NULL) == 0 && setresgid(OTHER_UID, NOBODY, NOBODY) == 0 &&
              setresuid(NOBODY, NOBODY, NOBODY) == 0);
        program_one(&prog, PM_USER | PM_COUNT, page_flt);
        CHECK_RC(pm_set_program_thread(victim->pid, victim->pid, &prog), 0);
        CHECK_RC(pm_delete_program_thread(victim->pid, victim->pid), 0);
        CHECK(setresgid(OTHER_UID, OTHER_UID, OTHER_UID) == 0);
        CHECK_RC(pm_set_program_thread(victim->pid, victim->pid, &prog), PM_ENOTOWNER);
        return 0;
}

static void test_dropped_effective_gid_grants_nothing_from_the_next_call(void **state) {
        TargetIdentity nobody = TARGET_UID(NOBODY);
        Target victim;
        pm_prog_t prog;

        (void) state;
        assert_int_equal(paranoid_set_for_test(2), 0);
        assert_int_equal(target_start(&victim, &nobody, 1), 0);
        assert_int_equal(in_child(setgid_drop_body, &victim), 0);
        assert_int_equal(pm_get_program_thread(victim.pid, victim.pid, &prog), PM_ENOCONTEXT);
        target_kill(&victim);
        paranoid_restore_for_test();
}

typedef struct ForkCase {
        bool drop_before_inherit;
        Target *root_victim;
        int to_child[2], to_parent[2];
} ForkCase;

static int say(int fd, char c) {
        return write(fd, &c, 1) == 1 ? 0 : -1;
}

static int hear(int fd, char want) {
        char c = 0;
        return read(fd, &c, 1) == 1 && c == want ? 0 : -1;
}

/* A root process counts its own thread and forks. The child drops to nobody either right after
 * fork() returned (its Inherit made as root, by libpmapi's fork) or before it (fork by syscall, no
 * Inherit: pmapid attaches it from the fork record, then the child calls as nobody). Either way, as
 * nobody it reads its own inherited thread and may not touch root's process; and what it counts is
 * its own, exactly: the parent reads it around 300 fresh pages, so that no call of the child's
 * falls in the window. */
static int fork_case_child(const ForkCase *fc) {
        pm_data_t data;
        pm_prog_t prog;
        int r;

        CHECK(drop_to(NOBODY, NOBODY) == 0);
        program_one(&prog, PM_USER | PM_COUNT, page_flt);
        CHECK_RC(pm_set_program_thread(fc->root_victim->pid, fc->root_victim->pid, &prog), PM_ENOTOWNER);
        /* Attached late from the fork record, or not yet, after a raw clone: both are its own. */
        r = pm_get_data_mythread(&data);
        CHECK(r == 0 || (fc->drop_before_inherit && r == PM_ENOCONTEXT));
        /* A forked child's first write to each page it shares with its parent is a fault of its
         * own (copy on write): the pages the window writes besides its 300 are written once first. */
        CHECK(touch_fresh_pages(1) == 0);
        CHECK(say(fc->to_parent[1], 'r') == 0 && hear(fc->to_child[0], 'g') == 0);
        CHECK(touch_fresh_pages(300) == 0);
        CHECK(say(fc->to_parent[1], 'd') == 0 && hear(fc->to_child[0], 'q') == 0);
        return 0;
}

static int fork_case_body(void *arg) {
        ForkCase *fc = arg;
        pm_data_t before, after;
        pm_prog_t prog;
        int status;
        pid_t child;

        CHECK(pipe(fc->to_child) == 0 && pipe(fc->to_parent) == 0);
        program_one(&prog, PM_USER | PM_COUNT, page_flt);
        CHECK_RC(pm_set_program_mythread(&prog), 0);
        /* clone(SIGCHLD) is fork without libc's wrapper (and without ours); arm64 has no fork(2). */
        child = fc->drop_before_inherit ? (pid_t) syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0) : fork();
        CHECK(child >= 0);
        if (child == 0) {
                close(fc->to_child[1]), close(fc->to_parent[0]);
                _exit(fork_case_child(fc));
        }
        /* Only the child writes to_parent and reads to_child: a child that failed is an end of file. */
        close(fc->to_child[0]), close(fc->to_parent[1]);
        CHECK(hear(fc->to_parent[0], 'r') == 0);
        if (fc->drop_before_inherit) {
                CHECK(say(fc->to_child[1], 'g') == 0 && hear(fc->to_parent[0], 'd') == 0);
        } else {
                CHECK_RC(pm_get_data_thread(child, child, &before), 0);
                CHECK(say(fc->to_child[1], 'g') == 0 && hear(fc->to_parent[0], 'd') == 0);
                CHECK_RC(pm_get_data_thread(child, child, &after), 0);
                CHECK_NEAR(after.accu[0] - before.accu[0], 300, 0);
        }
        CHECK(say(fc->to_child[1], 'q') == 0);
        close(fc->to_child[1]), close(fc->to_parent[0]);
        CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
        CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

static void test_forked_child_that_drops_before_or_after_inherit(void **state) {
        TargetIdentity root = TARGET_ROOT;
        Target victim;
        ForkCase after = { .drop_before_inherit = false, .root_victim = &victim },
                 before = { .drop_before_inherit = true, .root_victim = &victim };

        (void) state;
        assert_int_equal(paranoid_set_for_test(2), 0);
        assert_int_equal(target_start(&victim, &root, 1), 0);
        assert_int_equal(in_child(fork_case_body, &after), 0);
        assert_int_equal(in_child(fork_case_body, &before), 0);
        target_kill(&victim);
        paranoid_restore_for_test();
        assert_int_equal(wait_for_context_count(0, 10000), 0);
}

static int setup(void **state) {
        pm_info_t info;

        (void) state;
        if (bus_fixture_start(&fixture, NULL) != 0 || pm_init(PM_VERIFIED, &info) != 0)
                return 1;
        page_flt = find_event_id(&info, "PM_PAGE_FLT");
        /* Counts no getrusage or /proc shows, so its kernel mode is not the owner's to see. */
        hidden_event = find_event_id(&info, "perf::PERF_COUNT_SW_CGROUP_SWITCHES");
        if (hidden_event < 0)
                hidden_event = find_event_id(&info, "PM_CYC");
        return page_flt > 0 ? 0 : 1;
}

static int teardown(void **state) {
        (void) state;
        paranoid_restore_for_test();
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_raw_connection_loses_root_with_its_process),
                cmocka_unit_test(test_library_reconnects_as_the_user_it_became),
                cmocka_unit_test(test_dropped_effective_gid_grants_nothing_from_the_next_call),
                cmocka_unit_test(test_forked_child_that_drops_before_or_after_inherit),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
