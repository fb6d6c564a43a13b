/* test-access.c: the third-party access rule (daemon/kernel/access.c) as a table, and the /proc reader on
 * this process and on a non-dumpable child. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "access.h"
#include "macro.h"

#define ME 1000
#define OTHER 1001
#define MY_GID 5
#define CALLER_PID 4242

typedef struct Row {
        const char *what;
        uid_t caller_euid;
        TargetCreds target;
        int yama;
        AccessVerdict expected;
} Row;

#define UIDS(a, b, c) { a, b, c }
#define G UIDS(MY_GID, MY_GID, MY_GID)
#define TARGET(u, g, tracer_, dumpable_, ancestor) \
        { .uid = u, .gid = g, .tracer = tracer_, .dumpable = dumpable_, .caller_is_ancestor = ancestor }
#define OWN_THREAD(u, dumpable_) { .uid = u, .gid = G, .dumpable = dumpable_, .same_process = true }
#define DAEMON_THREAD { .uid = UIDS(0, 0, 0), .gid = UIDS(0, 0, 0), .dumpable = true, .is_daemon = true }
/* Traced by process 77 of tracer_uid; the caller is 77's descendant. */
#define TRACED_BY_CALLERS_PARENT(tracer_uid) \
        { .uid = UIDS(ME, ME, ME), .gid = G, .tracer = 77, .tracer_euid = tracer_uid, \
          .caller_descends_from_tracer = true }

static const Row rows[] = {
        { "root, any target",                 0,     TARGET(UIDS(OTHER, OTHER, OTHER), UIDS(7, 7, 7), 0, false, false), 1,
          ACCESS_ROOT },
        { "own process, even not dumpable",   ME,    OWN_THREAD(UIDS(ME, ME, ME), false), 2,
          ACCESS_SELF },
        { "own process, set-id",              ME,    OWN_THREAD(UIDS(ME, 0, 0), true), 0,
          ACCESS_SELF },
        { "pmapid's thread, root",            0,     DAEMON_THREAD, 0,
          ACCESS_DENIED_DAEMON },
        { "pmapid's thread, other user",      ME,    DAEMON_THREAD, 0,
          ACCESS_DENIED_DAEMON },
        { "owner, dumpable",                  ME,    TARGET(UIDS(ME, ME, ME), G, 0, true, false), 0,
          ACCESS_OWNER },
        { "other uid",                        OTHER, TARGET(UIDS(ME, ME, ME), G, 0, true, false), 0,
          ACCESS_DENIED_OTHER_USER },
        { "owner, target in another group",   ME,    TARGET(UIDS(ME, ME, ME), UIDS(7, 7, 7), 0, true, false), 0,
          ACCESS_DENIED_OTHER_GROUP },
        { "owner's target ran setuid root",   ME,    TARGET(UIDS(ME, 0, 0), G, 0, true, false), 0,
          ACCESS_DENIED_SET_ID },
        { "setuid to the caller's uid",       ME,    TARGET(UIDS(OTHER, ME, ME), G, 0, true, false), 0,
          ACCESS_DENIED_SET_ID },
        { "mixed uids of a third user",       ME,    TARGET(UIDS(OTHER, 0, 0), G, 0, true, false), 0,
          ACCESS_DENIED_OTHER_USER },
        { "owner, setgid target",             ME,    TARGET(UIDS(ME, ME, ME), UIDS(MY_GID, 6, 6), 0, true, false), 0,
          ACCESS_DENIED_SET_ID },
        { "owner, not dumpable",              ME,    TARGET(UIDS(ME, ME, ME), G, 0, false, false), 0,
          ACCESS_DENIED_NOT_DUMPABLE },
        { "tracer of another user's target",  OTHER, TARGET(UIDS(ME, ME, ME), G, CALLER_PID, false, false), 1,
          ACCESS_TRACER },
        { "traced by someone else",           OTHER, TARGET(UIDS(ME, ME, ME), G, 99, true, false), 0,
          ACCESS_DENIED_OTHER_USER },
        { "yama 1, caller is the parent",     ME,    TARGET(UIDS(ME, ME, ME), G, 0, true, true), 1,
          ACCESS_OWNER },
        { "yama 1, caller is not an ancestor", ME,   TARGET(UIDS(ME, ME, ME), G, 0, true, false), 1,
          ACCESS_DENIED_YAMA },
        { "yama 2, owner",                    ME,    TARGET(UIDS(ME, ME, ME), G, 0, true, true), 2,
          ACCESS_DENIED_YAMA },
        { "yama 3, root",                     0,     TARGET(UIDS(ME, ME, ME), G, 0, true, true), 3,
          ACCESS_DENIED_YAMA },
        { "yama 3, own process",              ME,    OWN_THREAD(UIDS(ME, ME, ME), true), 3,
          ACCESS_SELF },
        { "yama 2, root",                     0,     TARGET(UIDS(ME, ME, ME), G, 0, true, false), 2,
          ACCESS_ROOT },
        { "yama 2, tracer",                   OTHER, TARGET(UIDS(ME, ME, ME), G, CALLER_PID, true, false), 2,
          ACCESS_TRACER },
        { "tool of the tracer, same euid",    OTHER, TRACED_BY_CALLERS_PARENT(OTHER), 1,
          ACCESS_TRACER },
        { "tool of the tracer, other euid",   OTHER, TRACED_BY_CALLERS_PARENT(0), 0,
          ACCESS_DENIED_OTHER_USER },
};

static void test_access_rule_table(void **state) {
        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                Caller c = { .pid = CALLER_PID, .euid = rows[i].caller_euid, .egid = MY_GID };
                AccessVerdict v = access_check(&c, &rows[i].target, rows[i].yama);
                if (v != rows[i].expected)
                        fail_msg("%s: verdict %d, expected %d", rows[i].what, v, rows[i].expected);
                assert_int_equal(access_allowed(v), v == ACCESS_SELF || v == ACCESS_ROOT || v == ACCESS_TRACER ||
                                                    v == ACCESS_OWNER);
                assert_non_null(access_verdict_reason(v));
        }
}

/* Every refusal has a reason a person can act on, distinct from the others. */
static void test_every_refusal_has_its_own_reason(void **state) {
        (void) state;
        for (int v = 0; v < _ACCESS_VERDICT_MAX; v++) {
                assert_string_not_equal(access_verdict_reason(v), "invalid verdict");
                for (int w = 0; w < v; w++)
                        assert_string_not_equal(access_verdict_reason(v), access_verdict_reason(w));
        }
        assert_string_equal(access_verdict_reason(_ACCESS_VERDICT_MAX), "invalid verdict");
}

static void test_reads_this_thread(void **state) {
        TargetCreds t;

        (void) state;
        assert_int_equal(target_creds_read(getpid(), gettid(), getppid(), &t), 0);
        assert_int_equal(t.uid[0], getuid());
        assert_int_equal(t.uid[1], geteuid());
        assert_int_equal(t.gid[0], getgid());
        assert_int_equal(t.tracer, 0);
        assert_true(t.dumpable);
        assert_true(access_is_ancestor(getppid(), getpid()));   /* our parent started us */
        assert_false(access_is_ancestor(getpid(), getppid()));
        assert_false(t.same_process);
        assert_int_equal(target_creds_read(getpid(), gettid(), getpid(), &t), 0);
        assert_true(t.same_process);
        assert_int_equal(target_creds_read(getpid(), 1, getpid(), &t), -ESRCH);     /* not our thread */
}

/* A child that made itself non-dumpable reads as such (when it is not root's: /proc then stays
 * root's either way). */
static void test_reads_a_non_dumpable_child(void **state) {
        int ready[2];
        TargetCreds t;
        pid_t pid;
        char c;

        (void) state;
        if (geteuid() != 0)
                skip();
        assert_int_equal(pipe(ready), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
                        _exit(1);
                prctl(PR_SET_DUMPABLE, 0);
                (void) write(ready[1], "x", 1);
                pause();
                _exit(0);
        }
        assert_int_equal(read(ready[0], &c, 1), 1);
        assert_int_equal(target_creds_read(pid, pid, getpid(), &t), 0);
        assert_int_equal(t.uid[0], 65534);
        assert_false(t.dumpable);
        assert_true(access_is_ancestor(getpid(), pid));
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        close(ready[0]);
        close(ready[1]);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_access_rule_table),
                cmocka_unit_test(test_every_refusal_has_its_own_reason),
                cmocka_unit_test(test_reads_this_thread),
                cmocka_unit_test(test_reads_a_non_dumpable_child),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
