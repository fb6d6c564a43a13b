/* test-birth-limits.c: a fork bomb of a counted process meets the per-user limits, not the machine.
 * uid 65534 counts a group and its process makes 40 children that make 25 each (1,040 processes,
 * alive at once) against MaxContextsPerUser=100 and MaxContexts=512, while root's own group makes
 * 20 workers of 1,000 pages at the same moment. Checked: the bomb's group is partial, loudly (its
 * members beyond the limit are refused) and pmapid counts no more of that user than the limit; root's
 * group is exact against perf's own inherited counter (every worker born counting: the bomb did not
 * take the kernel's room for births from other users), and pmapid answers root all along. */
#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "check.h"
#include "pmapi.h"
#include "workload.h"

static BusFixture fixture;

#define PER_USER 100
#define BOMB_CHILDREN 40
#define BOMB_GRANDCHILDREN 25
#define BOMB_PAGES 10
#define WORKERS 20
#define PAGES 1000
#define WINDOW_FAULTS 3

static double now_ms(void) {
        struct timespec t;

        clock_gettime(CLOCK_MONOTONIC, &t);
        return (double) t.tv_sec * 1e3 + (double) t.tv_nsec / 1e6;
}

/* Blocks until the gate's write end closes (every holder's copy). */
static void wait_gate(int fd) {
        char c;

        while (read(fd, &c, 1) < 0 && errno == EINTR)
                ;
}

/* A child of the bomb: its grandchildren touch a few pages and wait at the gate with it. */
static void bomb_child(int gate) {
        pid_t kids[BOMB_GRANDCHILDREN];
        int n = 0;

        for (int i = 0; i < BOMB_GRANDCHILDREN; i++) {
                kids[n] = fork();
                if (kids[n] == 0) {
                        (void) touch_fresh_pages(BOMB_PAGES);
                        wait_gate(gate);
                        _exit(0);
                }
                n += kids[n] > 0;
        }
        (void) touch_fresh_pages(BOMB_PAGES);
        wait_gate(gate);
        for (int i = 0; i < n; i++)
                (void) waitpid(kids[i], NULL, 0);
        _exit(n == BOMB_GRANDCHILDREN ? 0 : 1);
}

/* uid 65534's process: the bomb under a counted group. Tells ready once its children are made
 * (their children are on the way: root makes its workers then), then once all are alive; holds them
 * until told to go, and checks its group. */
static int bomb(int ready, int go) {
        pid_t kids[BOMB_CHILDREN];
        int gate[2], n = 0, failed = 0, status;
        pm_prog_t prog;
        pm_data_t d;
        char c = 0;

        CHECK(pipe(gate) == 0);
        CHECK(page_fault_program(&prog, PM_USER | PM_COUNT) == 0);
        CHECK_RC(pm_set_program_mygroup(&prog), 0);
        for (int i = 0; i < BOMB_CHILDREN; i++) {
                kids[n] = fork();
                if (kids[n] == 0) {
                        close(gate[1]);
                        bomb_child(gate[0]);
                }
                n += kids[n] > 0;
        }
        CHECK(write(ready, &c, 1) == 1);
        close(gate[0]);
        usleep(500 * 1000);             /* every grandchild made; pmapid has read their records */
        CHECK(write(ready, &c, 1) == 1);
        wait_gate(go);
        CHECK_RC(pm_get_data_mygroup(&d), 0);
        close(gate[1]);
        for (int i = 0; i < n; i++)
                failed += waitpid(kids[i], &status, 0) != kids[i] || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
        print_message("# the bomb: %d of %d processes made, its group %s\n",
                      n * (BOMB_GRANDCHILDREN + 1), BOMB_CHILDREN * (BOMB_GRANDCHILDREN + 1),
                      d.ginfo.flags.b.partial ? "partial" : "not partial");
        CHECK(n == BOMB_CHILDREN && failed == 0);
        CHECK(d.ginfo.flags.b.partial);
        CHECK_RC(pm_delete_program_mygroup(), 0);
        return 0;
}

static void *root_workers_main(void *arg) {
        (void) arg;
        return (void *) (intptr_t) touch_fresh_pages(PAGES);
}

/* Root's group, made while the bomb goes off: exact, and each of its reads answered. */
static int root_group(double *ret_slowest_ms) {
        pthread_t w[WORKERS];
        long long grew, ref;
        FaultWindow win;
        int failed = 0;
        pm_data_t d;
        double t;

        t = now_ms();
        CHECK(fault_window_open(&win, false) == 0);
        print_message("# root's pm_init and group made in %.1f ms during the bomb\n", now_ms() - t);
        *ret_slowest_ms = 0;
        for (int i = 0; i < WORKERS; i++) {
                failed += pthread_create(&w[i], NULL, root_workers_main, NULL) != 0;
                t = now_ms();
                CHECK_RC(pm_get_data_mygroup(&d), 0);           /* pmapid answers while the bomb goes off */
                t = now_ms() - t;
                if (t > *ret_slowest_ms)
                        *ret_slowest_ms = t;
        }
        for (int i = 0; i < WORKERS; i++) {
                void *ret = NULL;
                failed += pthread_join(w[i], &ret) != 0 || ret != NULL;
        }
        CHECK(fault_window_close(&win) == 0);
        CHECK(failed == 0);
        grew = win.g1.accu[0] - win.g0.accu[0];
        ref = win.p1 - win.p0;
        print_message("# root's group, made during the bomb: grew by %lld, perf's inherited counter by %lld; "
                      "slowest read %.1f ms\n", grew, ref, *ret_slowest_ms);
        CHECK(!win.g1.ginfo.flags.b.partial);
        CHECK_RANGE(grew, ref, ref + WINDOW_FAULTS);
        return 0;
}

static void test_fork_bomb_meets_the_per_user_limit(void **state) {
        int ready[2], go[2], status, root_rc;
        double slowest;
        uint32_t contexts;
        pid_t pid;
        char c;

        (void) state;
        if (!kernel_inheritance())
                skip();                 /* the fallback has no room for births to fill */
        assert_int_equal(pipe(ready), 0);
        assert_int_equal(pipe(go), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                close(ready[0]);
                close(go[1]);
                if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
                        _exit(126);
                _exit(bomb(ready[1], go[0]));
        }
        close(ready[1]);
        close(go[0]);
        assert_int_equal(read(ready[0], &c, 1), 1);
        root_rc = root_group(&slowest);
        assert_int_equal(read(ready[0], &c, 1), 1);
        contexts = manager_property_u("ContextCount");
        print_message("# with the bomb alive: %u contexts (per-user limit %d)\n", contexts, PER_USER);
        close(go[1]);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_int_equal(root_rc, 0);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
        assert_true(contexts <= PER_USER);
}

static int setup(void **state) {
        (void) state;
        if (bus_fixture_start_bus(&fixture) != 0)
                return -1;
        return bus_fixture_restart_with_config(&fixture, "[Limits]\nMaxContextsPerUser=100\nMaxContexts=512\n");
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fork_bomb_meets_the_per_user_limit),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
