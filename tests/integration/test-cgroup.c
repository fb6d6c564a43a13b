/* test-cgroup.c: cgroup contexts (pm_set_program_wp(3), AIX's WPAR calls) against a real pmapid and
 * real cgroups the test makes under the cgroup v2 mount: a cgroup counts exactly the pages its
 * processes touch, its descendants' too, and nothing of a busier process outside it; its CPUs add up
 * to its total; pm_get_wplist finds it by path and refuses paths that are not cgroups; a cgroup
 * removed while counted keeps its last counts and says so; a delegated owner may count its own
 * cgroup and nothing else; the context is an object on the bus. Skips only where cgroup v2 is not
 * mounted or not writable. */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "bus-names.h"
#include "cgroup-tree.h"
#include "check.h"
#include "macro.h"
#include "paranoid.h"
#include "pmapi.h"
#include "workload.h"

#define INSIDE 2000
#define INNER 3000
#define OUTSIDE 10000

static BusFixture fixture;

/* The cid of the test's cgroup rel, through pm_get_wplist by path: 0 if not found. */
static cid_t cid_of(const char *rel) {
        pm_wpar_ctx_info_t info;
        int n = 1;

        if (pm_get_wplist(cgroup_tree_path(rel), &info, &n) != 0 || n != 1 || info.cid != info.hwpar)
                return 0;
        return info.cid;
}

/* Sum of counter 0 over every CPU of the cgroup context (those never counted skipped). */
static long long sum_cpus(pm_wp_handle_t h) {
        long long sum = 0;
        pm_data_t d;

        for (int cpu = 0; cpu < 1024; cpu++) {
                int r = pm_get_data_lcpu_wp(h, cpu, &d);
                if (r == PM_ECPU)
                        continue;
                if (r != 0)
                        return -1;
                sum += d.accu[0];
        }
        return sum;
}

/* Pages touched in the cgroup and in one below it are counted exactly, those of a process outside
 * (five times as many) not at all; the CPUs add up; stop, reset and start work as for pm_start. */
static void test_counts_exactly_the_cgroup(void **state) {
        Worker inside, inner, outside;
        pm_prog_t prog;
        pm_data_t d;
        cid_t cid;

        (void) state;
        assert_int_equal(cgroup_tree_make("work"), 0);
        assert_int_equal(cgroup_tree_make("work/inner"), 0);
        assert_int_equal(worker_start(&inside, 0), 0);
        assert_int_equal(worker_start(&inner, 0), 0);
        assert_int_equal(worker_start(&outside, 0), 0);
        assert_int_equal(cgroup_tree_move("work", inside.pid), 0);
        assert_int_equal(cgroup_tree_move("work/inner", inner.pid), 0);
        cid = cid_of("work");
        assert_true(cid == cgroup_tree_id("work") && cid != 0);

        assert_int_equal(page_fault_program(&prog, PM_USER | PM_COUNT), 0);
        assert_int_equal(pm_set_program_wp(cid, &prog), 0);
        assert_int_equal(worker_touch(&inside, INSIDE), 0);
        assert_int_equal(worker_touch(&outside, OUTSIDE), 0);
        assert_int_equal(worker_touch(&inner, INNER), 0);
        assert_int_equal(pm_stop_wp(cid), 0);
        assert_int_equal(pm_get_data_wp(cid, &d), 0);
        printf("# cgroup %s: %lld page faults, %lld minor, for %d + %d pages inside, %d outside\n",
               cgroup_tree_path("work"), d.accu[0], d.accu[1], INSIDE, INNER, OUTSIDE);
        assert_int_equal(d.accu[0], INSIDE + INNER);
        assert_int_equal(d.accu[1], INSIDE + INNER);
        assert_int_equal(sum_cpus(cid), d.accu[0]);

        /* Stopped: nothing counts; reset: zero; started again: counts again. */
        assert_int_equal(worker_touch(&inside, 100), 0);
        assert_int_equal(pm_get_data_wp(cid, &d), 0);
        assert_int_equal(d.accu[0], INSIDE + INNER);
        assert_int_equal(pm_reset_data_wp(cid), 0);
        assert_int_equal(pm_get_data_wp(cid, &d), 0);
        assert_int_equal(d.accu[0], 0);
        assert_int_equal(pm_start_wp(cid), 0);
        assert_int_equal(worker_touch(&inner, 100), 0);
        assert_int_equal(pm_stop_wp(cid), 0);
        assert_int_equal(pm_get_data_wp(cid, &d), 0);
        assert_int_equal(d.accu[0], 100);
        assert_int_equal(pm_get_program_wp(cid, &prog), 0);
        assert_int_equal(prog.mode.w & (PM_USER | PM_COUNT), PM_USER);

        assert_int_equal(pm_delete_program_wp(cid), 0);
        assert_int_equal(pm_get_data_wp(cid, &d), PM_ENOCONTEXT);
        worker_stop(&inside);
        worker_stop(&inner);
        worker_stop(&outside);
        assert_int_equal(cgroup_tree_remove("work/inner"), 0);
        assert_int_equal(cgroup_tree_remove("work"), 0);
}

/* pm_get_wplist by path (from the v2 root or under the mount point), for the whole tree, with too
 * little room; paths that are not cgroups, ids that name none, and calls out of turn. */
static void test_wplist_and_bad_input(void **state) {
        char path[1200];
        pm_wpar_ctx_info_t one[1], *all;
        int n = 0, found = 0;
        pm_prog_t prog;
        pm_data_t d;
        cid_t cid;

        (void) state;
        assert_int_equal(cgroup_tree_make("list"), 0);
        cid = cgroup_tree_id("list");
        assert_true(cid != 0);
        assert_int_equal(cid_of("list"), cid);
        n = 1;
        assert_int_equal(pm_get_wplist(cgroup_tree_fs_path("list"), one, &n), 0);
        assert_int_equal(n, 1);
        assert_true(one[0].cid == cid && one[0].removed == 0);
        assert_string_equal(one[0].name, cgroup_tree_path("list"));
        snprintf(path, sizeof(path), "%s/./", cgroup_tree_path("list"));
        n = 1;
        assert_int_equal(pm_get_wplist(path, one, &n), 0);
        assert_true(n == 1 && one[0].cid == cid);

        /* The whole tree: count first, then fill; too little room gives the count too. */
        n = 0;
        assert_int_equal(pm_get_wplist(NULL, NULL, &n), 0);
        assert_true(n >= 3);            /* the root, the test's top cgroup, "list" */
        all = calloc((size_t) n, sizeof(*all));
        assert_non_null(all);
        assert_int_equal(pm_get_wplist(NULL, all, &n), 0);
        for (int i = 0; i < n; i++)
                found += all[i].cid == cid && strcmp(all[i].name, cgroup_tree_path("list")) == 0;
        assert_int_equal(found, 1);
        assert_string_equal(all[0].name, "/");
        free(all);
        n = 1;
        assert_int_equal(pm_get_wplist(NULL, one, &n), 0);
        assert_true(n >= 3);
        assert_string_equal(one[0].name, "/");

        /* Not cgroups. */
        n = 1;
        snprintf(path, sizeof(path), "%s/nothing-here", cgroup_tree_path("list"));
        assert_int_equal(pm_get_wplist(path, one, &n), PM_ENOCGROUP);
        snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup_tree_path("list"));
        assert_int_equal(pm_get_wplist(path, one, &n), PM_ECGROUPPATH);
        snprintf(path, sizeof(path), "%s/../../etc", cgroup_tree_path("list"));
        assert_int_equal(pm_get_wplist(path, one, &n), PM_ECGROUPPATH);
        snprintf(path, sizeof(path), "%s/../..", cgroup_tree_fs_path("list"));
        assert_int_equal(pm_get_wplist(path, one, &n), PM_ECGROUPPATH);
        assert_int_equal(pm_get_wplist("", one, &n), PM_ECGROUPPATH);
        /* A symlink to the cgroup is not the cgroup: paths are read under the v2 mount only. */
        snprintf(path, sizeof(path), "/tmp/pmapi-test-cgroup-link-%d", (int) getpid());
        assert_int_equal(symlink(cgroup_tree_fs_path("list"), path), 0);
        assert_int_equal(pm_get_wplist(path, one, &n), PM_ENOCGROUP);
        unlink(path);
        assert_int_equal(pm_get_wplist(NULL, one, NULL), PM_EFAULT);

        /* Ids and calls out of turn. */
        assert_int_equal(page_fault_program(&prog, PM_USER), 0);
        assert_int_equal(pm_set_program_wp(UINT64_C(1) << 62, &prog), PM_ENOCGROUP);
        assert_int_equal(pm_set_program_wp(0, &prog), PM_ENOCGROUP);
        assert_int_equal(pm_get_data_wp(cid, &d), PM_ENOCONTEXT);
        assert_int_equal(pm_start_wp(cid), PM_ENOCONTEXT);
        assert_int_equal(pm_set_program_wp(cid, NULL), PM_EFAULT);
        prog.mode.w |= PM_PROCTREE;
        assert_int_equal(pm_set_program_wp(cid, &prog), PM_EMODE);
        prog.mode.w &= ~PM_PROCTREE;
        assert_int_equal(pm_set_program_wp(cid, &prog), 0);
        assert_int_equal(pm_set_program_wp(cid, &prog), PM_EEXIST);
        assert_int_equal(pm_get_data_wp(cid, NULL), PM_EFAULT);
        assert_int_equal(pm_get_data_lcpu_wp(cid, -1, &d), PM_ECPU);
        assert_int_equal(pm_get_data_lcpu_wp(cid, 100000, &d), PM_ECPU);
        /* pmapid serves on. */
        assert_int_equal(pm_get_data_wp(cid, &d), 0);
        assert_int_equal(d.accu[0], 0);
        assert_int_equal(pm_delete_program_wp(cid), 0);
        assert_int_equal(cgroup_tree_remove("list"), 0);
}

/* A file of the hierarchy has an inode number too: the id of a cgroup's cgroup.procs names no
 * cgroup, and SetCgroupProgram says so with a pmapi error (NotACgroup, PM_ECGROUPPATH), never a
 * raw errno, to root and to nobody alike. */
static int file_id_body(void *arg) {
        pm_prog_t prog;

        CHECK(page_fault_program(&prog, PM_USER) == 0);
        CHECK_RC(pm_set_program_wp(*(const cid_t *) arg, &prog), PM_ECGROUPPATH);
        return 0;
}

static void test_file_id_is_not_a_cgroup(void **state) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        char path[1200];
        pm_prog_t prog;
        struct stat st;
        cid_t file;

        (void) state;
        assert_int_equal(cgroup_tree_make("file-id"), 0);
        snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup_tree_fs_path("file-id"));
        assert_int_equal(stat(path, &st), 0);
        file = (cid_t) st.st_ino;
        assert_int_equal(page_fault_program(&prog, PM_USER), 0);
        assert_int_equal(sd_bus_open_system(&bus), 0);
        assert_true(sd_bus_call_method(bus, PMAPI_SERVICE, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE,
                                       "SetCgroupProgram", &error, NULL, "tiai", (uint64_t) file,
                                       (int32_t) prog.mode.w, 8, prog.events[0], COUNT_NOTHING, COUNT_NOTHING,
                                       COUNT_NOTHING, COUNT_NOTHING, COUNT_NOTHING, COUNT_NOTHING, COUNT_NOTHING) < 0);
        printf("# SetCgroupProgram(%" PRIu64 ", a cgroup.procs): %s: %s\n", (uint64_t) file, error.name,
               error.message);
        assert_string_equal(error.name, PMAPI_ERROR_NOT_A_CGROUP);
        assert_int_equal(pm_set_program_wp(file, &prog), PM_ECGROUPPATH);
        assert_int_equal(run_as_nobody(file_id_body, &file), 0);
        /* The cgroup's own id still works. */
        assert_int_equal(pm_set_program_wp(cgroup_tree_id("file-id"), &prog), 0);
        assert_int_equal(pm_delete_program_wp(cgroup_tree_id("file-id")), 0);
        assert_int_equal(cgroup_tree_remove("file-id"), 0);
}

/* pmapid without CAP_DAC_READ_SEARCH cannot open a cgroup by its id (open_by_handle_at(2); a
 * container's seccomp filter does the same): SetCgroupProgram says that, as PM_EOPEN, and not that
 * perf_event_paranoid refused the caller (it said so before, to root). */
static void test_refused_handle_is_said_as_such(void **state) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        pm_prog_t prog;
        cid_t cid;

        (void) state;
        assert_int_equal(cgroup_tree_make("no-handle"), 0);
        cid = cgroup_tree_id("no-handle");
        assert_int_equal(bus_fixture_stop_daemon(&fixture), 0);
        assert_int_equal(setenv("PMAPI_TEST_DROP_CAP", "DAC_READ_SEARCH", 1), 0);
        assert_int_equal(bus_fixture_start_daemon(&fixture, NULL), 0);
        assert_int_equal(unsetenv("PMAPI_TEST_DROP_CAP"), 0);
        assert_int_equal(page_fault_program(&prog, PM_USER), 0);
        assert_int_equal(pm_set_program_mythread(&prog), 0);   /* this process meets the new pmapid */
        assert_int_equal(pm_delete_program_mythread(), 0);

        assert_int_equal(sd_bus_open_system(&bus), 0);
        assert_true(sd_bus_call_method(bus, PMAPI_SERVICE, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE,
                                       "SetCgroupProgram", &error, NULL, "tiai", (uint64_t) cid,
                                       (int32_t) prog.mode.w, 8, prog.events[0], prog.events[1], COUNT_NOTHING,
                                       COUNT_NOTHING, COUNT_NOTHING, COUNT_NOTHING, COUNT_NOTHING, COUNT_NOTHING) < 0);
        printf("# SetCgroupProgram without CAP_DAC_READ_SEARCH: %s: %s\n", error.name, error.message);
        assert_string_equal(error.name, PMAPI_ERROR_OPEN_FAILED);
        assert_non_null(strstr(error.message, "open_by_handle_at"));
        assert_null(strstr(error.message, "paranoid"));
        assert_int_equal(pm_set_program_wp(cid, &prog), PM_EOPEN);
        assert_int_equal(bus_fixture_log_count(&fixture, "perf_event_paranoid", "cgroup", NULL), 0);

        assert_int_equal(bus_fixture_stop_daemon(&fixture), 0);
        assert_int_equal(bus_fixture_start_daemon(&fixture, NULL), 0);
        assert_int_equal(pm_set_program_mythread(&prog), 0);
        assert_int_equal(pm_delete_program_mythread(), 0);
        assert_int_equal(pm_set_program_wp(cid, &prog), 0);      /* with it, the same call works */
        assert_int_equal(pm_delete_program_wp(cid), 0);
        assert_int_equal(cgroup_tree_remove("no-handle"), 0);
}

static int bus_property_bool(const char *path, const char *name, int *ret) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus *bus = NULL;
        int r;

        r = sd_bus_open_system(&bus);
        if (r >= 0)
                r = sd_bus_get_property_trivial(bus, PMAPI_SERVICE, path, PMAPI_CGROUP_INTERFACE, name, &error, 'b',
                                                ret);
        sd_bus_error_free(&error);
        sd_bus_flush_close_unref(bus);
        return r;
}

/* A cgroup removed while counted keeps its last counts; pm_get_wplist still names it for the owner,
 * marked removed; it cannot be started again; its bus object says Removed. */
static void test_removed_cgroup_keeps_its_counts(void **state) {
        char object[128];
        pm_wpar_ctx_info_t info;
        Worker w;
        pm_prog_t prog;
        pm_data_t d;
        int n = 1, removed = -1;
        cid_t cid;

        (void) state;
        assert_int_equal(cgroup_tree_make("gone"), 0);
        assert_int_equal(worker_start(&w, 0), 0);
        assert_int_equal(cgroup_tree_move("gone", w.pid), 0);
        cid = cid_of("gone");
        assert_true(cid != 0);
        assert_int_equal(page_fault_program(&prog, PM_USER | PM_COUNT), 0);
        assert_int_equal(pm_set_program_wp(cid, &prog), 0);
        snprintf(object, sizeof(object), PMAPI_CGROUP_PREFIX "/%" PRIu64 "/%d", (uint64_t) cid, (int) getpid());
        assert_int_equal(bus_property_bool(object, "Removed", &removed), 0);
        assert_int_equal(removed, 0);
        assert_int_equal(worker_touch(&w, INSIDE), 0);
        assert_int_equal(cgroup_tree_remove("gone"), 0);       /* moves the worker out first */
        assert_int_equal(worker_touch(&w, INSIDE), 0);          /* outside now */

        assert_int_equal(pm_get_data_wp(cid, &d), 0);
        printf("# removed cgroup: %lld page faults kept for %d pages touched inside\n", d.accu[0], INSIDE);
        assert_int_equal(d.accu[0], INSIDE);
        assert_int_equal(pm_get_wplist(cgroup_tree_path("gone"), &info, &n), 0);
        assert_true(n == 1 && info.cid == cid && info.removed == 1);
        assert_int_equal(pm_start_wp(cid), PM_ENOCGROUP);
        assert_int_equal(bus_property_bool(object, "Removed", &removed), 0);
        assert_int_equal(removed, 1);
        assert_int_equal(pm_get_data_wp(cid, &d), 0);
        assert_int_equal(d.accu[0], INSIDE);
        assert_int_equal(pm_delete_program_wp(cid), 0);
        n = 1;
        assert_int_equal(pm_get_wplist(cgroup_tree_path("gone"), &info, &n), PM_ENOCGROUP);
        assert_true(bus_fixture_log_has(&fixture, "was removed; its last counts stay", NULL));
        worker_stop(&w);
}

typedef struct DelegatedArg {
        cid_t cids[3];                  /* [0] not delegated, [1] delegated, [2] delegated with root's */
        Worker w;                       /* nobody's, in [1] */
} DelegatedArg;

/* nobody: not its cgroup, refused; its delegated cgroup with its own worker, counted exactly; the
 * same cgroup with a root process in it, refused. */
static int delegated_body(void *p) {
        DelegatedArg *arg = p;
        const cid_t *cids = arg->cids;
        Worker *w = &arg->w;
        pm_prog_t prog;
        pm_data_t d;
        int thread_rc;

        CHECK(page_fault_program(&prog, PM_USER | PM_COUNT) == 0);
        CHECK_RC(pm_set_program_wp(cids[0], &prog), PM_ECGROUPACCESS);
        CHECK_RC(pm_set_program_wp(cids[2], &prog), PM_ECGROUPACCESS);
        CHECK_RC(pm_set_program_wp(cids[1], &prog), 0);
        CHECK(worker_touch(w, INSIDE) == 0);
        CHECK_RC(pm_stop_wp(cids[1]), 0);
        CHECK_RC(pm_get_data_wp(cids[1], &d), 0);
        printf("# delegated cgroup, counted by nobody: %lld page faults for %d pages\n", d.accu[0], INSIDE);
        fflush(stdout);                 /* a child: it ends with _exit() */
        CHECK(d.accu[0] == INSIDE);
        CHECK_RC(pm_delete_program_wp(cids[1]), 0);
        /* Kernel mode: granted or refused as for the owner's own threads (the cgroup holds nothing
         * else), whatever perf_event_paranoid says. */
        prog.mode.w |= PM_KERNEL;
        thread_rc = pm_set_program_mythread(&prog);
        CHECK(thread_rc == 0 || thread_rc == PM_EKERNELMODE);
        if (thread_rc == 0)
                CHECK_RC(pm_delete_program_mythread(), 0);
        CHECK_RC(pm_set_program_wp(cids[1], &prog), thread_rc);
        if (thread_rc == 0)
                CHECK_RC(pm_delete_program_wp(cids[1]), 0);
        return 0;
}

static void test_delegated_owner(void **state) {
        DelegatedArg arg;
        Worker root_worker;

        (void) state;
        assert_int_equal(cgroup_tree_make("other"), 0);
        assert_int_equal(cgroup_tree_make("mine"), 0);
        assert_int_equal(cgroup_tree_make("mixed"), 0);
        assert_int_equal(cgroup_tree_delegate("mine", 65534), 0);
        assert_int_equal(cgroup_tree_delegate("mixed", 65534), 0);
        assert_int_equal(worker_start(&arg.w, 65534), 0);
        assert_int_equal(worker_start(&root_worker, 0), 0);
        assert_int_equal(cgroup_tree_move("mine", arg.w.pid), 0);
        assert_int_equal(cgroup_tree_move("mixed", root_worker.pid), 0);
        arg.cids[0] = cgroup_tree_id("other");
        arg.cids[1] = cgroup_tree_id("mine");
        arg.cids[2] = cgroup_tree_id("mixed");
        assert_int_equal(run_as_nobody(delegated_body, &arg), 0);
        worker_stop(&arg.w);
        worker_stop(&root_worker);
        assert_int_equal(cgroup_tree_remove("mixed"), 0);
        assert_int_equal(cgroup_tree_remove("mine"), 0);
        assert_int_equal(cgroup_tree_remove("other"), 0);
}

/* At perf_event_paranoid 3 with no [Access] grant, the delegated owner is refused too (restored
 * after, even on failure); with one, it counts. */
static int paranoid3_body(void *arg) {
        const cid_t *cid = arg;
        pm_prog_t prog;

        CHECK(page_fault_program(&prog, PM_USER) == 0);
        CHECK_RC(pm_set_program_wp(*cid, &prog), PM_EPERM);
        return 0;
}

/* The same owner in a group of [Access] UserModeGroups= counts its cgroup exactly at paranoid 3. */
static int granted_body(void *p) {
        DelegatedArg *arg = p;
        pm_prog_t prog;
        pm_data_t d;

        CHECK(page_fault_program(&prog, PM_USER | PM_COUNT) == 0);
        CHECK_RC(pm_set_program_wp(arg->cids[1], &prog), 0);
        CHECK(worker_touch(&arg->w, INSIDE) == 0);
        CHECK_RC(pm_get_data_wp(arg->cids[1], &d), 0);
        printf("# paranoid 3, UserModeGroups=nogroup: %lld page faults for %d pages\n", d.accu[0], INSIDE);
        fflush(stdout);
        CHECK(d.accu[0] == INSIDE);
        CHECK_RC(pm_set_program_wp(arg->cids[0], &prog), PM_ECGROUPACCESS);   /* a grant, not access */
        CHECK_RC(pm_delete_program_wp(arg->cids[1]), 0);
        return 0;
}

/* nobody with nogroup (65534) as a supplementary group, as a login gives it. */
static int run_in_nogroup(int (*fn)(void *), void *arg) {
        gid_t nogroup = 65534;
        int status;
        pid_t pid = fork();

        if (pid < 0)
                return -1;
        if (pid == 0) {
                if (setgroups(1, &nogroup) < 0 || setresgid(65534, 65534, 65534) < 0 ||
                    setresuid(65534, 65534, 65534) < 0)
                        _exit(126);
                _exit(fn(arg));
        }
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
                return -1;
        return WEXITSTATUS(status);
}

static void test_paranoid_3_refuses_delegated_owner(void **state) {
        DelegatedArg arg;
        pm_prog_t prog;
        cid_t cid;

        (void) state;
        assert_int_equal(cgroup_tree_make("strict"), 0);
        assert_int_equal(cgroup_tree_make("foreign"), 0);
        assert_int_equal(cgroup_tree_delegate("strict", 65534), 0);
        cid = cgroup_tree_id("strict");
        assert_int_equal(paranoid_set_for_test(3), 0);
        assert_int_equal(run_as_nobody(paranoid3_body, &cid), 0);

        assert_int_equal(bus_fixture_restart_with_config(&fixture, "[Access]\nUserModeGroups=nogroup\n"), 0);
        /* This process set programs through the pmapid before: once through this one, so that its
         * children do not take the restart for a loss (PM_ERESTARTED). */
        assert_int_equal(page_fault_program(&prog, PM_USER), 0);
        assert_int_equal(pm_set_program_mythread(&prog), 0);
        assert_int_equal(pm_delete_program_mythread(), 0);
        assert_int_equal(worker_start(&arg.w, 65534), 0);
        assert_int_equal(cgroup_tree_move("strict", arg.w.pid), 0);
        arg.cids[0] = cgroup_tree_id("foreign");
        arg.cids[1] = cid;
        assert_int_equal(run_in_nogroup(granted_body, &arg), 0);
        worker_stop(&arg.w);
        paranoid_restore_for_test();
        assert_int_equal(cgroup_tree_remove("foreign"), 0);
        assert_int_equal(cgroup_tree_remove("strict"), 0);
}

static int setup(void **state) {
        pm_info_t info;

        (void) state;
        if (cgroup_tree_setup() < 0)
                exit(77);
        if (bus_fixture_start_bus(&fixture) != 0)
                return -1;
        fixture.capture_log = true;     /* after the bus: starting it clears the fixture */
        if (bus_fixture_start_daemon(&fixture, NULL) != 0)
                return -1;
        return pm_init(PM_VERIFIED, &info, NULL) == 0 ? 0 : -1;
}

static int teardown(void **state) {
        (void) state;
        paranoid_restore_for_test();
        cgroup_tree_teardown();
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_counts_exactly_the_cgroup),
                cmocka_unit_test(test_wplist_and_bad_input),
                cmocka_unit_test(test_file_id_is_not_a_cgroup),
                cmocka_unit_test(test_refused_handle_is_said_as_such),
                cmocka_unit_test(test_removed_cgroup_keeps_its_counts),
                cmocka_unit_test(test_delegated_owner),
                cmocka_unit_test(test_paranoid_3_refuses_delegated_owner),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
