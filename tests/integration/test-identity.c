/* test-identity.c: a caller's identity cannot be borrowed through a recycled pid. The bus records a
 * connection's pid and uid when it connects; a process that connects, forks a child that keeps the
 * connection and exits, leaves its pid free for another user's process. The child, talking on the
 * old connection (a raw client: raw-bus.c), must then be refused by every method that names its
 * caller (CallerGone), never treated as the new owner of that pid: whether the connection had
 * called pmapid before its process died (the pin pmapid took then has fired) or not (the process
 * now behind the pid runs as another user). Root's holders are refused the same way. */
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "check.h"
#include "pmapi.h"
#include "raw-bus.h"
#include "target.h"
#include "workload.h"

#define NOBODY 65534
#define VICTIM_UID 1                    /* daemon */
#define CALLER_GONE "org.pmapi.PerfMon1.Error.CallerGone"

static BusFixture fixture;
static int page_flt;

typedef struct Holder {
        uid_t uid;
        bool warm;                      /* the connection called pmapid before its process exited */
        pid_t pid;                      /* the exited process, whose pid goes to the victim */
        pid_t child;                    /* the child that holds its connection */
        int go[2], result[2];
} Holder;

/* Every Manager method that names its caller, with arguments aimed at the process behind `pid`. */
static int call_everything(int fd, pid_t pid) {
        const RawArg target[] = { { 'i', pid }, { 'i', pid } };
        const RawArg program[] = { { 'i', pid }, { 'i', pid }, { 'i', PM_USER | PM_COUNT }, { 'a', page_flt } };
        const RawArg system[] = { { 'i', PM_USER | PM_PROCTREE }, { 'a', page_flt } };
        const RawArg cpu[] = { { 'u', 0 }, { 'b', 0 } };
        const RawArg inherit[] = { { 'i', pid }, { 'i', pid }, { 'i', pid }, { 'i', pid }, { 't', 0 } };
        const RawArg page[] = { { 'i', pid }, { 'i', pid }, { 'u', 0 }, { 'u', 100 } };
        /* The root cgroup (id 1): every caller's context on it is its own. */
        const RawArg cgroup[] = { { 't', 1 }, { 'i', PM_USER | PM_COUNT }, { 'a', page_flt } };
        const RawArg cgroup_cpu[] = { { 't', 1 }, { 'u', 0 }, { 'b', 1 } };
        const RawArg cgroup_list[] = { { 's', 0, "/" }, { 'b', 0 } };
        static const char *const cgroup_calls[] = { "GetCgroupProgram", "StartCgroup", "StopCgroup",
                                                     "ResetCgroupData", "GetCgroupData", "DeleteCgroupProgram" };
        static const char *const on_target[] = { "GetProgram", "Start", "Stop", "ResetData", "GetData",
                                                 "DeleteProgram", "GetGroupProgram", "StartGroup", "StopGroup",
                                                 "ResetGroupData", "GetGroupData", "GetGroupMembers",
                                                 "DeleteGroupProgram" };
        static const char *const system_calls[] = { "GetSystemProgram", "StartSystem", "StopSystem",
                                                     "ResetSystemData", "GetSystemData", "DeleteSystemProgram",
                                                     "ListContexts" };
        char name[256];

#define EXPECT_GONE(method, args, n)                                                               \
        do {                                                                                       \
                int _r = raw_bus_call(fd, method, args, n, name, sizeof(name));                   \
                if (_r != 1 || strcmp(name, CALLER_GONE) != 0) {                                   \
                        fprintf(stderr, "%s: %d '%s', expected %s\n", method, _r, name, CALLER_GONE); \
                        return 1;                                                                  \
                }                                                                                  \
        } while (0)
        EXPECT_GONE("SetProgram", program, 4);
        EXPECT_GONE("SetGroupProgram", program, 4);
        for (size_t i = 0; i < sizeof(on_target) / sizeof(on_target[0]); i++)
                EXPECT_GONE(on_target[i], target, 2);
        EXPECT_GONE("SetSystemProgram", system, 2);
        for (size_t i = 0; i < sizeof(system_calls) / sizeof(system_calls[0]); i++)
                EXPECT_GONE(system_calls[i], NULL, 0);
        EXPECT_GONE("GetCpuData", cpu, 2);
        EXPECT_GONE("Inherit", inherit, 5);
        EXPECT_GONE("GetGroupMembersPage", page, 4);
        EXPECT_GONE("SetCgroupProgram", cgroup, 3);
        for (size_t i = 0; i < sizeof(cgroup_calls) / sizeof(cgroup_calls[0]); i++)
                EXPECT_GONE(cgroup_calls[i], cgroup, 1);
        EXPECT_GONE("GetCgroupCpuData", cgroup_cpu, 3);
        EXPECT_GONE("ListCgroups", cgroup_list, 2);
#undef EXPECT_GONE
        CHECK(raw_bus_call(fd, "GetEvents", NULL, 0, NULL, 0) == 0);     /* names nobody: answered */
        return 0;
}

/* The process whose connection outlives it: as hold->uid, it connects, makes a call of its own if
 * warm (a program on itself, which must work: the raw client is a real one), forks the holder
 * and exits. The holder waits for the test to give the pid away, then calls everything. */
static int holder_process(Holder *h) {
        const RawArg self[] = { { 'i', getpid() }, { 'i', getpid() }, { 'i', PM_USER }, { 'a', COUNT_NOTHING } };
        RawArg program[4];
        char name[256] = "";
        int fd, go;
        pid_t child;

        if (setgroups(0, NULL) < 0 || setresgid(h->uid, h->uid, h->uid) < 0 || setresuid(h->uid, h->uid, h->uid) < 0)
                return 126;
        fd = raw_bus_connect();
        CHECK(fd >= 0);
        if (h->warm) {
                memcpy(program, self, sizeof(self));
                program[3].value = page_flt;
                CHECK(raw_bus_call(fd, "SetProgram", program, 4, name, sizeof(name)) == 0);
                CHECK(raw_bus_call(fd, "DeleteProgram", self, 2, name, sizeof(name)) == 0);
        }
        child = fork();
        CHECK(child >= 0);
        if (child == 0) {
                int r = 1;
                close(h->go[1]);
                if (read(h->go[0], &go, sizeof(go)) == sizeof(go))
                        r = go > 0 ? call_everything(fd, go) : 0;
                _exit(write(h->result[1], &r, sizeof(r)) == sizeof(r) ? 0 : 1);
        }
        return 0;                               /* the child keeps fd; this process exits */
}

/* Runs the holder, gives the exited process's pid to a process of VICTIM_UID, lets the holder
 * call, and checks that the victim was not touched. 0, or 77 to skip when the pid was taken. */
static int run_holder(uid_t uid, bool warm) {
        Holder h = { .uid = uid, .warm = warm };
        TargetIdentity victim_id = TARGET_UID(VICTIM_UID);
        Target victim;
        pm_prog_t prog;
        int status, r, result = -1;

        CHECK(pipe(h.go) == 0 && pipe(h.result) == 0);
        h.pid = fork();
        CHECK(h.pid >= 0);
        if (h.pid == 0)
                _exit(holder_process(&h));
        CHECK(waitpid(h.pid, &status, 0) == h.pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
        r = target_start_with_pid(&victim, &victim_id, 1, h.pid);
        if (r != 0) {
                int stop = -1;
                CHECK(write(h.go[1], &stop, sizeof(stop)) == sizeof(stop));
                return r > 0 ? 77 : 1;
        }
        CHECK(write(h.go[1], &h.pid, sizeof(h.pid)) == sizeof(h.pid));
        CHECK(read(h.result[0], &result, sizeof(result)) == sizeof(result));
        CHECK_RC(pm_get_program_thread(victim.pid, victim.pid, &prog), PM_ENOCONTEXT);  /* untouched */
        target_kill(&victim);
        CHECK(result == 0);
        return 0;
}

#define HOLDER_TEST(name, uid, warm)                                                               \
        static void name(void **state) {                                                           \
                int r;                                                                             \
                (void) state;                                                                      \
                r = run_holder(uid, warm);                                                         \
                if (r == 77)                                                                       \
                        skip();                 /* other processes kept taking the pid */          \
                assert_int_equal(r, 0);                                                            \
                assert_int_equal(wait_for_context_count(0, 10000), 0);                             \
        }

HOLDER_TEST(test_nobody_connection_after_its_process_exited_is_refused, NOBODY, true)
HOLDER_TEST(test_nobody_connection_first_used_after_its_pid_was_recycled_is_refused, NOBODY, false)
HOLDER_TEST(test_root_connection_after_its_process_exited_is_refused, 0, true)

static int setup(void **state) {
        pm_info_t info;
        int r;

        (void) state;
        r = bus_fixture_start(&fixture, NULL);
        if (r != 0 || pm_init(PM_VERIFIED, &info) != 0)
                return 1;
        page_flt = find_event_id(&info, "PM_PAGE_FLT");
        return page_flt > 0 ? 0 : 1;
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_nobody_connection_after_its_process_exited_is_refused),
                cmocka_unit_test(test_nobody_connection_first_used_after_its_pid_was_recycled_is_refused),
                cmocka_unit_test(test_root_connection_after_its_process_exited_is_refused),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
