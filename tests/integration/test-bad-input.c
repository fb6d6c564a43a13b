/* test-bad-input.c: every kind of bad input gets its own error code (or D-Bus error) and the
 * daemon keeps serving: calls before pm_init, NULL pointers, unknown or filtered-out event ids,
 * bad mode bits, calls without a context, threads that are not the caller's, kernel mode refused
 * by perf_event_paranoid, and malformed D-Bus calls sent with busctl; the multiplexing methods
 * (SetProgramMx and the rest) with arguments of the wrong types, and with bad sets, slices and
 * modes, each answered with its own D-Bus error. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "bus-names.h"
#include "check.h"
#include "cpu-pmu.h"
#include "pmapi.h"
#include "workload.h"

static BusFixture fixture;
static int page_faults_id;

/* Must run first: nothing in this process has called pm_init yet. */
static void test_calls_before_pm_init_are_refused(void **state) {
        pm_prog_t prog;
        pm_data_t d;

        (void) state;
        program_one(&prog, PM_USER, 2);
        assert_int_equal(pm_set_program_mythread(&prog), PM_ENOTINIT);
        assert_int_equal(pm_get_program_mythread(&prog), PM_ENOTINIT);
        assert_int_equal(pm_start_mythread(), PM_ENOTINIT);
        assert_int_equal(pm_stop_mythread(), PM_ENOTINIT);
        assert_int_equal(pm_reset_data_mythread(), PM_ENOTINIT);
        assert_int_equal(pm_get_data_mythread(&d), PM_ENOTINIT);
        assert_int_equal(pm_delete_program_mythread(), PM_ENOTINIT);
}

static void test_init_arguments_are_checked(void **state) {
        pm_info_t info;
        pm_info2_t info2;
        pm_groups_info_t groups = { .maxgroups = 42 };

        (void) state;
        assert_int_equal(pm_init(0, &info), PM_EFILTER);
        assert_int_equal(pm_init(PM_GET_GROUPS, &info, &groups), PM_EFILTER);
        assert_int_equal(pm_init(PM_VERIFIED, NULL), PM_EFAULT);
        assert_int_equal(pm_init(PM_VERIFIED | PM_GET_GROUPS, &info, NULL), PM_EFAULT);
        assert_int_equal(pm_initialize(PM_VERIFIED, &info2, &groups, 12), PM_EPROCTYPE);
        assert_int_equal(pm_initialize(PM_VERIFIED, NULL, &groups, PM_CURRENT), PM_EFAULT);
        assert_int_equal(pm_initialize(PM_VERIFIED, &info2, NULL, PM_CURRENT), PM_EFAULT);

        /* Every group whatever the filter, numbered from 0: pm_faults (which has the unverified
         * PM_MAJOR_FLT) stays group 0, pm_sched group 1. */
        assert_int_equal(pm_init(PM_VERIFIED | PM_GET_GROUPS, &info, &groups), 0);
        assert_true(groups.maxgroups >= 2);
        assert_non_null(groups.event_groups);
        assert_int_equal(groups.event_groups[0].group_id, 0);
        assert_int_equal(groups.event_groups[1].group_id, 1);
        assert_string_equal(groups.event_groups[1].short_name, "pm_sched");
        assert_true(maxpmcs_is_this_machines(info.maxpmcs));
        page_faults_id = find_event_id(&info, "PM_PAGE_FLT");
        assert_true(page_faults_id > 0);
        for (int i = 0; i < info.maxevents[0]; i++)
                assert_int_equal(info.list_events[0][i].status, PM_VERIFIED);
        assert_int_equal(pm_initialize(PM_VERIFIED | PM_CAVEAT, &info2, &groups, PM_CURRENT), 0);
        for (int i = 0; i < info2.maxevents[0]; i++)
                assert_true(info2.list_events[0][i].status.b.verified || info2.list_events[0][i].status.b.caveat);
}

static void test_null_pointers_are_refused(void **state) {
        (void) state;
        assert_int_equal(pm_set_program_mythread(NULL), PM_EFAULT);
        assert_int_equal(pm_get_program_mythread(NULL), PM_EFAULT);
        assert_int_equal(pm_get_data_mythread(NULL), PM_EFAULT);
        assert_int_equal(pm_get_tdata_mythread(NULL, NULL), PM_EFAULT);
}

static void test_event_ids_must_come_from_pm_init(void **state) {
        pm_info_t info;
        pm_prog_t prog;

        (void) state;
        program_one(&prog, PM_USER, 12345);
        assert_int_equal(pm_set_program_mythread(&prog), PM_EEVENT);
        program_one(&prog, PM_USER, -7);
        assert_int_equal(pm_set_program_mythread(&prog), PM_EEVENT);
        /* With a caveat-only filter, the verified page-fault event is not a valid id. */
        assert_int_equal(pm_init(PM_CAVEAT, &info), 0);
        program_one(&prog, PM_USER, page_faults_id);
        assert_int_equal(pm_set_program_mythread(&prog), PM_EEVENT);
        assert_int_equal(pm_init(PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT, &info), 0);
        assert_int_equal(pm_get_program_mythread(&prog), PM_ENOCONTEXT);      /* nothing was created */
}

static void test_mode_bits_are_checked(void **state) {
        static const struct { int mode; int expected; } cases[] = {
                { PM_USER | PM_PROCTREE | PM_NO_INHERIT, PM_EMODE },    /* a contradiction */
                { PM_USER | 0x100000 /* wpar_all */, PM_EMODE },
                { PM_USER | 0x40 /* spare */, PM_EMODE },
                { PM_USER | (5 << 26) /* threshold */, PM_ETHRESH },
                { PM_USER | 0x800000 /* hypervisor */, PM_EHYPERVISOR },
        };
        pm_prog_t prog;

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                program_one(&prog, cases[i].mode, page_faults_id);
                assert_int_equal(pm_set_program_mythread(&prog), cases[i].expected);
        }
        program_one(&prog, PM_USER, COUNT_NOTHING);
        assert_int_equal(pm_set_program_mythread(&prog), PM_ENOEVENTS);
}

static void test_calls_without_context_are_refused(void **state) {
        pm_prog_t prog;
        pm_data_t d;

        (void) state;
        assert_int_equal(pm_get_program_mythread(&prog), PM_ENOCONTEXT);
        assert_int_equal(pm_start_mythread(), PM_ENOCONTEXT);
        assert_int_equal(pm_stop_mythread(), PM_ENOCONTEXT);
        assert_int_equal(pm_reset_data_mythread(), PM_ENOCONTEXT);
        assert_int_equal(pm_get_data_mythread(&d), PM_ENOCONTEXT);
        assert_int_equal(pm_delete_program_mythread(), PM_ENOCONTEXT);
}

/* Sends a Manager call with sd-bus directly; returns 0 or the D-Bus error name in ret_name. */
static int raw_call(const char *method, int pid, int tid, char ret_name[128]) {
        sd_bus *bus = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        if (sd_bus_open_system(&bus) < 0)
                return -1;
        r = sd_bus_call_method(bus, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1", "org.pmapi.PerfMon1.Manager",
                               method, &error, NULL, "ii", pid, tid);
        ret_name[0] = 0;
        if (r < 0 && error.name)
                snprintf(ret_name, 128, "%s", error.name);
        sd_bus_error_free(&error);
        sd_bus_flush_close_unref(bus);
        return r < 0 ? -1 : 0;
}

static int set_program_raw(int pid, int tid, char ret_name[128]) {
        sd_bus *bus = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        if (sd_bus_open_system(&bus) < 0)
                return -1;
        r = sd_bus_call_method(bus, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1", "org.pmapi.PerfMon1.Manager",
                               "SetProgram", &error, NULL, "iiiai", pid, tid, PM_USER, 1, page_faults_id);
        ret_name[0] = 0;
        if (r < 0 && error.name)
                snprintf(ret_name, 128, "%s", error.name);
        sd_bus_error_free(&error);
        sd_bus_flush_close_unref(bus);
        return r < 0 ? -1 : 0;
}

static pid_t root_pid, root_tid;

/* As nobody: the root test process's thread (which has a live context) is refused before any
 * context is looked at; a tid claimed for the wrong process is not found. */
static int other_process_body(void *arg) {
        char name[128];

        (void) arg;
        CHECK(set_program_raw(root_pid, root_tid, name) < 0);
        CHECK(strcmp(name, "org.pmapi.PerfMon1.Error.NotOwner") == 0);
        CHECK(raw_call("GetData", root_pid, root_tid, name) < 0);
        CHECK(strcmp(name, "org.pmapi.PerfMon1.Error.NotOwner") == 0);
        CHECK(raw_call("DeleteProgram", root_pid, root_tid, name) < 0);
        CHECK(strcmp(name, "org.pmapi.PerfMon1.Error.NotOwner") == 0);
        CHECK(raw_call("GetData", getpid(), root_tid, name) < 0);      /* claims it as its own */
        CHECK(strcmp(name, "org.pmapi.PerfMon1.Error.NoSuchThread") == 0);
        CHECK(raw_call("GetData", 999999, 999999, name) < 0);
        CHECK(strcmp(name, "org.pmapi.PerfMon1.Error.NoSuchThread") == 0);
        return 0;
}

static void test_threads_of_other_processes_follow_the_access_rule(void **state) {
        char name[128];
        pm_prog_t prog;
        pm_data_t d;

        (void) state;
        assert_int_equal(set_program_raw(getpid(), 1, name), -1);           /* pid 1 is not our thread */
        assert_string_equal(name, "org.pmapi.PerfMon1.Error.NoSuchThread");
        assert_int_equal(set_program_raw(getpid(), fixture.daemon_pid, name), -1);
        assert_string_equal(name, "org.pmapi.PerfMon1.Error.NoSuchThread");
        assert_int_equal(set_program_raw(fixture.daemon_pid, fixture.daemon_pid, name), -1);
        assert_string_equal(name, "org.pmapi.PerfMon1.Error.DaemonThread"); /* not even for root */

        program_one(&prog, PM_USER | PM_COUNT, page_faults_id);
        assert_int_equal(pm_set_program_mythread(&prog), 0);
        root_pid = getpid();
        root_tid = gettid();
        assert_int_equal(run_as_nobody(other_process_body, NULL), 0);
        assert_int_equal(pm_get_data_mythread(&d), 0);                    /* untouched */
        assert_int_equal(pm_delete_program_mythread(), 0);
}

static int write_paranoid(int value) {
        FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "we");
        if (!f)
                return -1;
        fprintf(f, "%d\n", value);
        return fclose(f);
}

static int read_paranoid(void) {
        FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
        int v = 2;
        if (f) {
                if (fscanf(f, "%d", &v) != 1)
                        v = 2;
                fclose(f);
        }
        return v;
}

static int expected_rc;
static int kernel_mode_body(void *arg) {
        pm_info_t info;
        pm_prog_t prog;
        int mode = *(int *) arg;

        CHECK_RC(pm_init(PM_VERIFIED, &info), 0);
        program_one(&prog, mode, find_event_id(&info, "PM_PAGE_FLT"));
        CHECK_RC(pm_set_program_mythread(&prog), expected_rc);
        if (expected_rc == 0)
                CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

static void test_perf_event_paranoid_is_applied_to_unprivileged_callers(void **state) {
        int old = read_paranoid();
        int user = PM_USER, kernel = PM_USER | PM_KERNEL;

        (void) state;
        if (write_paranoid(2) < 0)
                skip();
        /* Page faults: the owner sees them in getrusage anyway, so kernel mode is allowed. */
        expected_rc = 0;
        assert_int_equal(run_as_nobody(kernel_mode_body, &kernel), 0);
        /* paranoid 3 (Debian): no unprivileged perf at all, not even user mode. */
        assert_int_equal(write_paranoid(3), 0);
        expected_rc = PM_EPERM;
        assert_int_equal(run_as_nobody(kernel_mode_body, &user), 0);
        expected_rc = 0;
        assert_int_equal(kernel_mode_body(&kernel), 0);                        /* root still may */
        assert_int_equal(write_paranoid(old), 0);
}

/* busctl sends what it is told; pmapid must answer with an error and keep serving. */
static int busctl(const char *args, char *out, size_t size) {
        char cmd[1024];
        FILE *p;
        size_t n;

        snprintf(cmd, sizeof(cmd), "busctl --address=%s call -- org.pmapi.PerfMon1 /org/pmapi/PerfMon1 %s 2>&1",
                 fixture.address, args);
        p = popen(cmd, "r");
        if (!p)
                return -1;
        n = fread(out, 1, size - 1, p);
        out[n] = 0;
        return pclose(p);
}

static void test_malformed_bus_calls_get_errors_and_daemon_keeps_serving(void **state) {
        static const struct { const char *args; const char *expected; } cases[] = {
                { "org.pmapi.PerfMon1.Manager SetProgram s hello", "Invalid" },
                { "org.pmapi.PerfMon1.Manager SetProgram iiiai 1 1 4 9 1 2 3 4 5 6 7 8 9", "At most 8 events" },
                { "org.pmapi.PerfMon1.Manager SetProgram iiiai -5 -5 4 1 100002", "not a live thread" },
                { "org.pmapi.PerfMon1.Manager SetProgram iiiai 0 0 2147483647 1 100002", "thresholdable" },
                /* OpenJ9's copy of AIX's big-endian pm_mode_t, compiled little-endian: 0x24001480 */
                { "org.pmapi.PerfMon1.Manager SetProgram iiiai 0 0 603985024 1 0", "AIX's big-endian" },
                { "org.pmapi.PerfMon1.Manager GetData ii 2147483647 -2147483648", "not a live thread" },
                { "org.pmapi.PerfMon1.Manager GetData ss a b", "Invalid" },
                { "org.pmapi.PerfMon1.Manager SetSystemProgram iai 2 9 1 2 3 4 5 6 7 8 9", "At most 8 events" },
                { "org.pmapi.PerfMon1.Manager SetSystemProgram iai 16 1 100002", "bits this scope" },
                { "org.pmapi.PerfMon1.Manager SetSystemProgram s x", "Invalid" },
                { "org.pmapi.PerfMon1.Manager GetSystemData", "no system-wide context" },
                { "org.pmapi.PerfMon1.Manager GetCpuData ub 4294967295 true", "no system-wide context" },
                { "org.pmapi.PerfMon1.Manager GetCpuData s x", "Invalid" },
                { "org.pmapi.PerfMon1.Manager ListCgroups sb /../etc false", "'..' component" },
                { "org.pmapi.PerfMon1.Manager ListCgroups sb /no/such/cgroup/here false", "No cgroup" },
                { "org.pmapi.PerfMon1.Manager ListCgroups sb '' true", "not a cgroup path" },
                { "org.pmapi.PerfMon1.Manager ListCgroups s /", "Invalid" },
                { "org.pmapi.PerfMon1.Manager SetCgroupProgram tiai 4611686018427387904 2 1 100002", "No such cgroup" },
                { "org.pmapi.PerfMon1.Manager SetCgroupProgram tiai 1 2 9 1 2 3 4 5 6 7 8 9", "At most 8 events" },
                { "org.pmapi.PerfMon1.Manager GetCgroupData t 1", "does not count cgroup 1" },
                { "org.pmapi.PerfMon1.Manager GetCgroupCpuData tub 1 4294967295 true", "does not count" },
                { "org.pmapi.PerfMon1.Manager StartCgroup i 1", "Invalid" },
                { "org.pmapi.PerfMon1.Manager NoSuchMethod", "Unknown method" },
                { "org.pmapi.PerfMon1.Nothing Start ii 1 1", "Access denied" },       /* bus policy */
        };
        char out[4096];
        pm_prog_t prog;
        pm_data_t d;

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                int r = busctl(cases[i].args, out, sizeof(out));
                printf("# busctl call %s -> %s", cases[i].args, out);
                assert_int_not_equal(r, 0);
                assert_non_null(strstr(out, cases[i].expected));
        }
        /* Still serving, with exact counts. */
        program_one(&prog, PM_USER | PM_COUNT, page_faults_id);
        assert_int_equal(pm_set_program_mythread(&prog), 0);
        assert_int_equal(touch_fresh_pages(100), 0);
        assert_int_equal(pm_get_data_mythread(&d), 0);
        assert_in_range(d.accu[0], 98, 102);
        assert_int_equal(pm_delete_program_mythread(), 0);
}

/* The Mx methods with the wrong signatures: sd-bus refuses them before pmapid's code runs; and a
 * set of nine events, a read of a system context that does not exist. */
static void test_malformed_mx_calls_get_errors_and_daemon_keeps_serving(void **state) {
        static const struct { const char *args; const char *expected; } cases[] = {
                { "org.pmapi.PerfMon1.Manager SetProgramMx s hello", "Invalid" },
                { "org.pmapi.PerfMon1.Manager SetProgramMx 'iiiba(ii)' 0 0 100 false 1 6 2", "Invalid" },
                { "org.pmapi.PerfMon1.Manager SetProgramMx iiib 0 0 100 false", "Invalid" },
                { "org.pmapi.PerfMon1.Manager SetProgramMx 'iiiba(iai)' 0 0 100 false 1 6 9 1 2 3 4 5 6 7 8 9",
                  "At most 8 events" },
                { "org.pmapi.PerfMon1.Manager GetProgramMx ss a b", "Invalid" },
                { "org.pmapi.PerfMon1.Manager GetDataMx s x", "Invalid" },
                { "org.pmapi.PerfMon1.Manager GetDataMx ii 2147483647 -2147483648", "not a live thread" },
                { "org.pmapi.PerfMon1.Manager SetGroupProgramMx iiib 0 0 100 true", "Invalid" },
                { "org.pmapi.PerfMon1.Manager GetGroupProgramMx u 1", "Invalid" },
                { "org.pmapi.PerfMon1.Manager GetGroupDataMx s x", "Invalid" },
                { "org.pmapi.PerfMon1.Manager SetSystemProgramMx 'iiba(iai)' 0 100 false 1 6 1 2", "Invalid" },
                { "org.pmapi.PerfMon1.Manager SetSystemProgramMx 'iba(iai)' 100 false 1 6 9 1 2 3 4 5 6 7 8 9",
                  "At most 8 events" },
                { "org.pmapi.PerfMon1.Manager GetSystemProgramMx s x", "Invalid" },
                { "org.pmapi.PerfMon1.Manager GetSystemDataMx s x", "Invalid" },
                { "org.pmapi.PerfMon1.Manager GetCpuDataMx s x", "Invalid" },
                { "org.pmapi.PerfMon1.Manager GetCpuDataMx u 0", "Invalid" },
        };
        char out[4096];

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                int r = busctl(cases[i].args, out, sizeof(out));
                printf("# busctl call %s -> %s", cases[i].args, out);
                assert_int_not_equal(r, 0);
                assert_non_null(strstr(out, cases[i].expected));
        }
        assert_int_equal(wait_for_context_count(0, 10000), 0);
}

/* A call of SetProgramMx (pid and tid: this thread), SetGroupProgramMx (the same) or
 * SetSystemProgramMx: n_sets sets of n_events page-fault events each, set k with modes[k % 2];
 * returns 0, or -1 with the D-Bus error name in ret_name. */
typedef struct MxCall {
        const char *method;
        int slice;
        bool multi_mode;
        int modes[2];
        int n_sets, n_events;
} MxCall;

static int set_program_mx_raw(const MxCall *c, char ret_name[128]) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *m = NULL;
        sd_bus *bus = NULL;
        int32_t events[16];
        int r;

        for (int k = 0; k < 16; k++)
                events[k] = page_faults_id;
        ret_name[0] = 0;
        if (sd_bus_open_system(&bus) < 0)
                return -2;
        r = sd_bus_message_new_method_call(bus, &m, PMAPI_SERVICE, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE,
                                           c->method);
        if (r >= 0 && strcmp(c->method, "SetSystemProgramMx") != 0)
                r = sd_bus_message_append(m, "ii", (int32_t) getpid(), (int32_t) gettid());
        if (r >= 0)
                r = sd_bus_message_append(m, "ib", (int32_t) c->slice, (int) c->multi_mode);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "(iai)");
        for (int k = 0; r >= 0 && k < c->n_sets; k++) {
                r = sd_bus_message_open_container(m, 'r', "iai");
                if (r >= 0)
                        r = sd_bus_message_append(m, "i", (int32_t) c->modes[k % 2]);
                if (r >= 0)
                        r = sd_bus_message_append_array(m, 'i', events, sizeof(int32_t) * (size_t) c->n_events);
                if (r >= 0)
                        r = sd_bus_message_close_container(m);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_call(bus, m, 0, &error, NULL);
        if (r < 0 && error.name)
                snprintf(ret_name, 128, "%s", error.name);
        sd_bus_error_free(&error);
        sd_bus_message_unref(m);
        sd_bus_flush_close_unref(bus);
        return r < 0 ? -1 : 0;
}

/* Well-typed Mx calls with a bad slice, too few or too many sets, modes that disagree, a set with
 * no event or a bad mode: pmapid's own error for each (not the library's, which checks first), no
 * context left behind, and it keeps serving. */
static void test_bad_mx_programs_get_named_errors_from_pmapid(void **state) {
        static const MxCall ok = { "SetProgramMx", 100, false, { PM_USER, PM_USER }, 2, 1 };
        static const struct { MxCall call; const char *expected; } cases[] = {
                { { "SetProgramMx", 9, false, { PM_USER, PM_USER }, 2, 1 }, PMAPI_ERROR_BAD_SLICE },
                { { "SetProgramMx", 30001, false, { PM_USER, PM_USER }, 2, 1 }, PMAPI_ERROR_BAD_SLICE },
                { { "SetProgramMx", 0, false, { PM_USER, PM_USER }, 1, 1 }, PMAPI_ERROR_BAD_SLICE },
                { { "SetProgramMx", 100, false, { PM_USER, PM_USER }, 0, 1 }, PMAPI_ERROR_BAD_SETS },
                { { "SetProgramMx", 100, false, { PM_USER, PM_USER }, 9, 1 }, PMAPI_ERROR_BAD_SETS },
                { { "SetProgramMx", 100, false, { PM_USER, PM_USER }, 17, 1 }, PMAPI_ERROR_BAD_SETS },
                { { "SetProgramMx", 100, false, { PM_USER, PM_KERNEL }, 2, 1 }, PMAPI_ERROR_SET_MODES_DISAGREE },
                { { "SetProgramMx", 100, true, { PM_USER | PM_COUNT, PM_USER }, 2, 1 },
                  PMAPI_ERROR_SET_MODES_DISAGREE },
                { { "SetProgramMx", 100, true, { PM_USER | PM_PROCTREE, PM_USER }, 2, 1 },
                  PMAPI_ERROR_SET_MODES_DISAGREE },
                { { "SetProgramMx", 100, false, { PM_USER, PM_USER }, 2, 0 }, PMAPI_ERROR_NO_EVENTS },
                { { "SetProgramMx", 100, true, { PM_USER, PM_USER | 0x40 }, 2, 1 }, PMAPI_ERROR_INVALID_MODE },
                { { "SetGroupProgramMx", 5, false, { PM_USER, PM_USER }, 2, 1 }, PMAPI_ERROR_BAD_SLICE },
                { { "SetGroupProgramMx", 100, false, { PM_USER, PM_USER }, 0, 1 }, PMAPI_ERROR_BAD_SETS },
                { { "SetSystemProgramMx", 100000, false, { PM_USER, PM_USER }, 2, 1 }, PMAPI_ERROR_BAD_SLICE },
                { { "SetSystemProgramMx", 100, false, { PM_USER, PM_USER }, 9, 1 }, PMAPI_ERROR_BAD_SETS },
                { { "SetSystemProgramMx", 100, true, { PM_USER | PM_PROCTREE, PM_USER }, 2, 1 },
                  PMAPI_ERROR_SET_MODES_DISAGREE },
        };
        char name[128];
        pm_prog_t prog;
        pm_data_t d;

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                int r = set_program_mx_raw(&cases[i].call, name);
                printf("# %s slice %d, %d sets of %d events, modes %#x/%#x -> %s\n", cases[i].call.method,
                       cases[i].call.slice, cases[i].call.n_sets, cases[i].call.n_events,
                       (unsigned) cases[i].call.modes[0], (unsigned) cases[i].call.modes[1], name);
                assert_int_equal(r, -1);
                assert_string_equal(name, cases[i].expected);
        }
        assert_int_equal(wait_for_context_count(0, 10000), 0);
        /* The good call, on the same wire, is taken; a second one finds the context. */
        assert_int_equal(set_program_mx_raw(&ok, name), 0);
        assert_int_equal(set_program_mx_raw(&ok, name), -1);
        assert_string_equal(name, PMAPI_ERROR_CONTEXT_EXISTS);
        assert_int_equal(pm_delete_program_mythread(), 0);
        /* Still serving, with exact counts. */
        program_one(&prog, PM_USER | PM_COUNT, page_faults_id);
        assert_int_equal(pm_set_program_mythread(&prog), 0);
        assert_int_equal(touch_fresh_pages(100), 0);
        assert_int_equal(pm_get_data_mythread(&d), 0);
        assert_in_range(d.accu[0], 98, 102);
        assert_int_equal(pm_delete_program_mythread(), 0);
}

static int saved_paranoid;

static int setup(void **state) {
        (void) state;
        saved_paranoid = read_paranoid();
        int r = bus_fixture_start(&fixture, NULL);
        return r;
}

static int teardown(void **state) {
        (void) state;
        (void) write_paranoid(saved_paranoid);  /* even if a test failed half-way */
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_calls_before_pm_init_are_refused),
                cmocka_unit_test(test_init_arguments_are_checked),
                cmocka_unit_test(test_null_pointers_are_refused),
                cmocka_unit_test(test_event_ids_must_come_from_pm_init),
                cmocka_unit_test(test_mode_bits_are_checked),
                cmocka_unit_test(test_calls_without_context_are_refused),
                cmocka_unit_test(test_threads_of_other_processes_follow_the_access_rule),
                cmocka_unit_test(test_perf_event_paranoid_is_applied_to_unprivileged_callers),
                cmocka_unit_test(test_malformed_bus_calls_get_errors_and_daemon_keeps_serving),
                cmocka_unit_test(test_malformed_mx_calls_get_errors_and_daemon_keeps_serving),
                cmocka_unit_test(test_bad_mx_programs_get_named_errors_from_pmapid),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
