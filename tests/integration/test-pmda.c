/* test-pmda.c: pmdapmapi in a real, private pmcd against the test's real pmapid: what PCP clients
 * read (libpcp's pmFetch, pminfo -f, a pmlogger archive, dbpmda) equals what pm_get_data_thread
 * and pm_get_data_group read, counter for counter, for threads that touched known numbers of pages; a group's members
 * and consistency follow AIX's rules; the agent run as nobody sees only nobody's contexts; pmapid
 * gone gives no values (never stale ones), logged once, and the agent reconnects when it is back;
 * a born thread that keeps its CPU is fetched as of the fetch, not of its last switch. */
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "pcp-fixture.h"
#include "pmapi.h"
#include "target.h"
#include "workload.h"

#define NOBODY 65534

static BusFixture fixture;
static PcpFixture pcp;
static int page_flt, minor_flt;

static const char *pmda_path(void) {
        const char *p = getenv("PMAPI_PMDA");
        assert_non_null(p);
        return p;
}

static int64_t fetch(PcpFixture *f, const char *metric, int inst) {
        int64_t v = -1;
        int r = pcp_fetch_one(f, metric, inst, &v);

        if (r != 0)
                fprintf(stderr, "%s[%d]: %s\n", metric, inst, r < 0 ? pcp_error(r) : "no value");
        assert_int_equal(r, 0);
        return v;
}

static void program(pm_prog_t *prog, int mode) {
        program_one(prog, mode, page_flt);
        prog->events[1] = minor_flt;
}

static void test_thread_values_equal_pmapid(void **state) {
        char s[128], want[128];
        pm_accu_time_t times;
        pm_prog_t prog;
        pm_data_t d;
        Target t;

        (void) state;
        assert_int_equal(target_start(&t, &TARGET_ROOT, 2), 0);
        program(&prog, PM_USER | PM_COUNT);
        assert_int_equal(pm_set_program_thread(t.pid, t.tids[1], &prog), 0);
        assert_int_equal(target_touch(&t, 1, 1000), 0);

        /* Stopped, so that nothing moves between the two reads (the thread may still be on its way
         * back to its pipe, and its time running with it). */
        assert_int_equal(pm_stop_thread(t.pid, t.tids[1]), 0);
        assert_int_equal(pm_get_Tdata_thread(t.pid, t.tids[1], &d, &times), 0);
        assert_in_range(d.accu[0], 1000, 1002);
        assert_int_equal(fetch(&pcp, "pmapi.thread.counter.value", t.tids[1] * 8), d.accu[0]);
        assert_int_equal(fetch(&pcp, "pmapi.thread.counter.value", t.tids[1] * 8 + 1), d.accu[1]);
        assert_int_equal(fetch(&pcp, "pmapi.thread.time_running", t.tids[1]),
                         (int64_t) PM_TB_TO_NS(times.accu_timebase));
        assert_int_equal(fetch(&pcp, "pmapi.thread.time_enabled", t.tids[1]), (int64_t) PM_TB_TO_NS(times.accu_purr));
        assert_int_equal(fetch(&pcp, "pmapi.thread.pid", t.tids[1]), t.pid);
        assert_int_equal(fetch(&pcp, "pmapi.thread.counting", t.tids[1]), 0);
        assert_int_equal(pm_start_thread(t.pid, t.tids[1]), 0);
        assert_int_equal(fetch(&pcp, "pmapi.thread.counting", t.tids[1]), 1);
        assert_int_equal(fetch(&pcp, "pmapi.thread.group", t.tids[1]), 0);
        assert_int_equal(fetch(&pcp, "pmapi.thread.owner_uid", t.tids[1]), 0);
        /* Counters that count nothing, and threads without a context, have no instance. */
        assert_int_equal(pcp_fetch_one(&pcp, "pmapi.thread.counter.value", t.tids[1] * 8 + 2, &(int64_t) { 0 }), 1);
        assert_int_equal(pcp_fetch_one(&pcp, "pmapi.thread.pid", t.tids[0], &(int64_t) { 0 }), 1);

        assert_int_equal(pcp_fetch_string(&pcp, "pmapi.thread.counter.event", t.tids[1] * 8, s, sizeof(s)), 0);
        assert_string_equal(s, "PM_PAGE_FLT");
        assert_int_equal(pcp_fetch_string(&pcp, "pmapi.thread.counter.status", t.tids[1] * 8 + 1, s, sizeof(s)), 0);
        assert_string_equal(s, "verified");
        assert_int_equal(pcp_instance_name(&pcp, "pmapi.thread.counter.value", t.tids[1] * 8 + 1, s, sizeof(s)), 0);
        (void) snprintf(want, sizeof(want), "%d:1 PM_MINOR_FLT", (int) t.tids[1]);
        assert_string_equal(s, want);

        /* A reset is seen at the next fetch: the value falls to 0 (hence PM_SEM_INSTANT). */
        assert_int_equal(pm_reset_data_thread(t.pid, t.tids[1]), 0);
        assert_int_equal(fetch(&pcp, "pmapi.thread.counter.value", t.tids[1] * 8), 0);
        target_kill(&t);
        /* A context gone is gone from the next fetch. */
        assert_int_equal(wait_for_context_count(0, 5000), 0);
        assert_int_equal(pcp_fetch_one(&pcp, "pmapi.thread.pid", t.tids[1], &(int64_t) { 0 }), 1);
}

static void test_group_values_members_and_consistency(void **state) {
        pm_prog_t prog;
        pm_data_t d;
        int64_t id;
        Target t;

        (void) state;
        assert_int_equal(target_start(&t, &TARGET_ROOT, 3), 0);
        program(&prog, PM_USER | PM_COUNT | PM_PROCESS);
        assert_int_equal(pm_set_program_group(t.pid, t.tids[0], &prog), 0);
        for (int i = 0; i < 3; i++)
                assert_int_equal(target_touch(&t, i, 100 * (size_t) (i + 1)), 0);

        id = fetch(&pcp, "pmapi.thread.group", t.tids[2]);
        assert_true(id > 0);
        assert_int_equal(fetch(&pcp, "pmapi.thread.group", t.tids[0]), id);
        assert_int_equal(pm_get_data_group(t.pid, t.tids[1], &d), 0);
        assert_in_range(d.accu[0], 600, 606);
        assert_int_equal(fetch(&pcp, "pmapi.group.counter.value", (int) id * 8), d.accu[0]);
        assert_int_equal(fetch(&pcp, "pmapi.group.counter.value", (int) id * 8 + 1), d.accu[1]);
        assert_int_equal(fetch(&pcp, "pmapi.group.members", (int) id), 3);
        assert_int_equal(fetch(&pcp, "pmapi.group.consistent", (int) id), 1);
        assert_int_equal(fetch(&pcp, "pmapi.group.process", (int) id), 1);
        assert_int_equal(fetch(&pcp, "pmapi.group.partial", (int) id), 0);
        assert_int_equal(fetch(&pcp, "pmapi.group.counting", (int) id), 1);

        /* A member that leaves takes its data with it: the group's value falls. */
        assert_int_equal(pm_delete_program_thread(t.pid, t.tids[2]), 0);
        assert_int_equal(pm_get_data_group(t.pid, t.tids[1], &d), 0);
        assert_in_range(d.accu[0], 300, 303);
        assert_int_equal(fetch(&pcp, "pmapi.group.counter.value", (int) id * 8), d.accu[0]);
        assert_int_equal(fetch(&pcp, "pmapi.group.members", (int) id), 2);

        /* A group reset with two members: zero and inconsistent. */
        assert_int_equal(pm_reset_data_group(t.pid, t.tids[0]), 0);
        assert_int_equal(fetch(&pcp, "pmapi.group.counter.value", (int) id * 8), 0);
        assert_int_equal(fetch(&pcp, "pmapi.group.consistent", (int) id), 0);
        target_kill(&t);
        assert_int_equal(wait_for_context_count(0, 5000), 0);
}

/* pminfo -f, the way an administrator reads it, prints the same count. */
static void test_pminfo_prints_what_pmapid_reads(void **state) {
        char cmd[600], line[512], want[64];
        long long shown = -1;
        pm_prog_t prog;
        pm_data_t d;
        Target t;
        FILE *in;

        (void) state;
        assert_int_equal(target_start(&t, &TARGET_ROOT, 1), 0);
        program(&prog, PM_USER | PM_COUNT);
        assert_int_equal(pm_set_program_thread(t.pid, t.tids[0], &prog), 0);
        assert_int_equal(target_touch(&t, 0, 777), 0);
        assert_int_equal(pm_get_data_thread(t.pid, t.tids[0], &d), 0);

        (void) snprintf(cmd, sizeof(cmd), "pminfo -h '%s' -f pmapi.thread.counter.value", pcp.host);
        (void) snprintf(want, sizeof(want), "\"%d:0 PM_PAGE_FLT\"] value ", (int) t.tids[0]);
        in = popen(cmd, "r");
        assert_non_null(in);
        while (fgets(line, sizeof(line), in)) {
                const char *p = strstr(line, want);
                if (p)
                        shown = strtoll(p + strlen(want), NULL, 10);
        }
        assert_int_equal(pclose(in), 0);
        assert_in_range(d.accu[0], 777, 779);
        assert_int_equal(shown, d.accu[0]);
        target_kill(&t);
        assert_int_equal(wait_for_context_count(0, 5000), 0);
}

/* pmlogger archives what the agent serves: every record of the archive holds the count. */
static void test_pmlogger_archives_what_pmapid_reads(void **state) {
        char cmd[2048], line[512], want[64];
        int records = 0, exact = 0;
        pm_prog_t prog;
        pm_data_t d;
        Target t;
        FILE *f;

        (void) state;
        assert_int_equal(target_start(&t, &TARGET_ROOT, 1), 0);
        program(&prog, PM_USER | PM_COUNT);
        assert_int_equal(pm_set_program_thread(t.pid, t.tids[0], &prog), 0);
        assert_int_equal(target_touch(&t, 0, 400), 0);
        assert_int_equal(pm_stop_thread(t.pid, t.tids[0]), 0);
        assert_int_equal(pm_get_data_thread(t.pid, t.tids[0], &d), 0);
        assert_in_range(d.accu[0], 400, 402);

        (void) snprintf(cmd, sizeof(cmd), "%s/logger.conf", pcp.dir);
        f = fopen(cmd, "we");
        assert_non_null(f);
        fprintf(f, "log mandatory on 100 msec {\n    pmapi.thread.counter.value\n    pmapi.daemon.up\n}\n");
        assert_int_equal(fclose(f), 0);
        (void) snprintf(cmd, sizeof(cmd), "pmlogger -h '%s' -c '%s/logger.conf' -T 0.8sec -l '%s/log/pmlogger.log' "
                                          "'%s/archive' && pmdumplog '%s/archive'", pcp.host, pcp.dir, pcp.dir, pcp.dir,
                        pcp.dir);
        (void) snprintf(want, sizeof(want), "\"%d:0 PM_PAGE_FLT\"] value ", (int) t.tids[0]);
        f = popen(cmd, "r");
        assert_non_null(f);
        while (fgets(line, sizeof(line), f)) {
                const char *p = strstr(line, want);
                if (!p)
                        continue;
                records++;
                exact += strtoll(p + strlen(want), NULL, 10) == d.accu[0];
        }
        assert_int_equal(pclose(f), 0);
        assert_true(records >= 3);
        assert_int_equal(exact, records);
        target_kill(&t);
        assert_int_equal(wait_for_context_count(0, 5000), 0);
}

/* dbpmda talks to the agent alone, as PCP's developers check an agent's descriptors. */
static void test_dbpmda_reads_the_descriptors(void **state) {
        char script[300], cmd[900], out[8192] = "";
        size_t n = 0;
        FILE *f;

        (void) state;
        (void) snprintf(script, sizeof(script), "%s/dbpmda.in", pcp.dir);
        f = fopen(script, "we");
        assert_non_null(f);
        fprintf(f, "open pipe %s -d 190 -l %s/log/dbpmda-agent.log --bus %s\n", pmda_path(), pcp.dir,
                fixture.address);
        fprintf(f, "desc pmapi.thread.counter.value\ndesc pmapi.daemon.calls_refused\n");
        fprintf(f, "desc pmapi.group.time_running\ntext pmapi.group.counter.value\nfetch pmapi.daemon.up\n");
        assert_int_equal(fclose(f), 0);
        (void) snprintf(cmd, sizeof(cmd), "dbpmda -n '%s/root.pmns' -e < '%s' 2>&1", pcp.dir, script);
        f = popen(cmd, "r");
        assert_non_null(f);
        while (n < sizeof(out) - 1 && (n += fread(out + n, 1, sizeof(out) - 1 - n, f)) > 0 && !feof(f))
                ;
        out[n] = '\0';
        assert_int_equal(pclose(f), 0);
        /* Values: signed 64 bits, instantaneous (they fall at resets), counted in events. */
        assert_non_null(strstr(out, "PMID: 190.2.0\n    Data Type: 64-bit int  InDom: 190.1 0x2f800001\n"
                                    "    Semantics: instant  Units: count"));
        /* pmapid's own tallies only grow: a counter. */
        assert_non_null(strstr(out, "PMID: 190.0.5\n    Data Type: 64-bit unsigned int  InDom: PM_INDOM_NULL "
                                    "0xffffffff\n    Semantics: counter  Units: count"));
        assert_non_null(strstr(out, "Semantics: instant  Units: nanosec"));
        assert_non_null(strstr(out, "falls when a member leaves or resets its data"));
        assert_non_null(strstr(out, "190.0.0 (pmapi.daemon.up): numval: 1 valfmt: 0 vlist[]:\n   value 1"));
}

/* The agent as nobody: only the contexts pmapid shows nobody (its own threads), not root's. */
static void test_agent_as_nobody_sees_only_what_nobody_may(void **state) {
        TargetIdentity id = TARGET_UID(NOBODY);
        PcpFixture as_nobody;
        Target mine, theirs;
        pm_prog_t prog;
        pm_data_t d;

        (void) state;
        assert_int_equal(pcp_fixture_start(&as_nobody, pmda_path(), fixture.address, "-U nobody"), 0);
        assert_int_equal(target_start(&mine, &id, 1), 0);
        assert_int_equal(target_start(&theirs, &TARGET_ROOT, 1), 0);
        program(&prog, PM_USER | PM_COUNT);
        assert_int_equal(pm_set_program_thread(mine.pid, mine.tids[0], &prog), 0);
        assert_int_equal(pm_set_program_thread(theirs.pid, theirs.tids[0], &prog), 0);
        assert_int_equal(target_touch(&mine, 0, 300), 0);
        assert_int_equal(pm_get_data_thread(mine.pid, mine.tids[0], &d), 0);

        assert_int_equal(fetch(&as_nobody, "pmapi.thread.counter.value", mine.tids[0] * 8), d.accu[0]);
        assert_int_equal(pcp_fetch_one(&as_nobody, "pmapi.thread.pid", theirs.tids[0], &(int64_t) { 0 }), 1);
        /* Root's agent sees both. */
        assert_int_equal(fetch(&pcp, "pmapi.thread.pid", theirs.tids[0]), theirs.pid);
        assert_int_equal(fetch(&pcp, "pmapi.thread.pid", mine.tids[0]), mine.pid);
        pcp_fixture_stop(&as_nobody);
        target_kill(&mine);
        target_kill(&theirs);
        assert_int_equal(wait_for_context_count(0, 5000), 0);
}

/* pmapid gone: no values, never the last ones; one log line; back when pmapid is. */
static void test_pmapid_absent_gives_no_values_then_reconnects(void **state) {
        int64_t v;
        pm_prog_t prog;
        Target t;

        (void) state;
        assert_int_equal(target_start(&t, &TARGET_ROOT, 1), 0);
        program(&prog, PM_USER | PM_COUNT);
        assert_int_equal(pm_set_program_thread(t.pid, t.tids[0], &prog), 0);
        assert_int_equal(fetch(&pcp, "pmapi.daemon.up", -1), 1);
        assert_int_equal(fetch(&pcp, "pmapi.thread.pid", t.tids[0]), t.pid);

        assert_int_equal(bus_fixture_stop_daemon(&fixture), 0);
        for (int i = 0; i < 3; i++) {
                assert_int_equal(fetch(&pcp, "pmapi.daemon.up", -1), 0);
                assert_int_equal(pcp_fetch_one(&pcp, "pmapi.daemon.contexts", -1, &v), pcp_err_again());
                assert_int_equal(pcp_fetch_one(&pcp, "pmapi.thread.pid", t.tids[0], &v), 1);
                assert_int_equal(pcp_fetch_one(&pcp, "pmapi.thread.counter.value", t.tids[0] * 8, &v), 1);
        }
        assert_true(fetch(&pcp, "pmapi.pmda.failures", -1) >= 3);
        assert_int_equal(pcp_fixture_log_count(&pcp, "pmapid does not answer"), 1);

        assert_int_equal(bus_fixture_start_daemon(&fixture, NULL), 0);
        assert_int_equal(fetch(&pcp, "pmapi.daemon.up", -1), 1);
        assert_int_equal(fetch(&pcp, "pmapi.daemon.contexts", -1), 0);  /* a stop loses them (fd store aside) */
        assert_int_equal(pcp_fixture_log_count(&pcp, "answers again"), 1);
        target_kill(&t);
}

typedef struct Spinner {
        volatile pid_t tid;
        volatile bool stop;
} Spinner;

static void *spin_main(void *p) {
        Spinner *s = p;
        cpu_set_t set;

        CPU_ZERO(&set);
        CPU_SET(last_online_cpu(), &set);
        (void) sched_setaffinity(0, sizeof(set), &set);
        s->tid = (pid_t) syscall(SYS_gettid);
        while (!s->stop)
                ;
        return NULL;
}

/* Every thread of process pid and of its children (pmcd's agents) to CPU cpu's set alone, or to
 * every CPU (cpu -1). */
static void pin_process_tree(pid_t pid, int cpu) {
        char path[96], buf[256], *p, *end;
        cpu_set_t set;
        FILE *f;

        CPU_ZERO(&set);
        for (int c = 0; c < CPU_SETSIZE; c++)
                if (cpu < 0 || c == cpu)
                        CPU_SET(c, &set);
        (void) snprintf(path, sizeof(path), "/proc/%d/task", (int) pid);
        DIR *d = opendir(path);
        for (struct dirent *e; d && (e = readdir(d));)
                if (e->d_name[0] != '.')
                        (void) sched_setaffinity(atoi(e->d_name), sizeof(set), &set);
        if (d)
                closedir(d);
        (void) snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int) pid, (int) pid);
        f = fopen(path, "re");
        if (f && fgets(buf, sizeof(buf), f))
                for (p = buf; (pid = (pid_t) strtol(p, &end, 10)) > 0; p = end)
                        pin_process_tree(pid, cpu);
        if (f)
                fclose(f);
}

/* A thread born counting the task clock spins on its own CPU and never blocks: each fetch of its
 * value holds at least its CPU time before the fetch (the kernel's clock of the thread), and at
 * most the time since it was created. pmapid folds its CPU before it answers the agent's read
 * (pmapid(8)); the slack is test-live-reads' (interrupt time and switch edges). pmapid, pmcd and
 * the agent are kept on CPU 0 meanwhile: none of them switches the spinner out for the fold. */
static void test_a_running_born_thread_is_fetched_as_of_the_fetch(void **state) {
        const long long slack_ns = 1000000;
        Spinner s = { 0 };
        clockid_t clock;
        pm_info_t info;
        pm_prog_t prog;
        pthread_t t;
        long long born;

        (void) state;
        if (!kernel_inheritance())
                skip();
        assert_int_equal(pm_init(PM_VERIFIED, &info), 0);
        program_one(&prog, PM_USER | PM_COUNT, find_event_id(&info, "PM_TASK_CLOCK"));
        assert_int_equal(pm_set_program_mythread(&prog), 0);
        born = clock_now_ns(CLOCK_MONOTONIC);
        assert_int_equal(pthread_create(&t, NULL, spin_main, &s), 0);
        while (!s.tid)
                sched_yield();
        assert_int_equal(pthread_getcpuclockid(t, &clock), 0);
        pin_process_tree(fixture.daemon_pid, 0);
        pin_process_tree(pcp.pmcd_pid, 0);
        for (int i = 0; i < 8; i++) {
                long long before;
                int64_t v;

                usleep(100000);
                before = clock_now_ns(clock);
                v = fetch(&pcp, "pmapi.thread.counter.value", s.tid * 8);
                assert_in_range(v, before - slack_ns, clock_now_ns(CLOCK_MONOTONIC) - born);
        }
        pin_process_tree(fixture.daemon_pid, -1);
        pin_process_tree(pcp.pmcd_pid, -1);
        s.stop = true;
        assert_int_equal(pthread_join(t, NULL), 0);
        assert_int_equal(pm_delete_program_mythread(), 0);
}

static int setup(void **state) {
        pm_info_t info;
        const char *why;

        (void) state;
        if (!pcp_available(&why)) {
                printf("# SKIP %s\n", why);
                exit(77);
        }
        if (bus_fixture_start(&fixture, NULL) != 0 || pm_init(PM_VERIFIED, &info) != 0)
                return -1;
        page_flt = find_event_id(&info, "PM_PAGE_FLT");
        minor_flt = find_event_id(&info, "PM_MINOR_FLT");
        if (page_flt <= 0 || minor_flt <= 0)
                return -1;
        return pcp_fixture_start(&pcp, pmda_path(), fixture.address, NULL);
}

static int teardown(void **state) {
        (void) state;
        pcp_fixture_stop(&pcp);
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_thread_values_equal_pmapid),
                cmocka_unit_test(test_group_values_members_and_consistency),
                cmocka_unit_test(test_pminfo_prints_what_pmapid_reads),
                cmocka_unit_test(test_pmlogger_archives_what_pmapid_reads),
                cmocka_unit_test(test_dbpmda_reads_the_descriptors),
                cmocka_unit_test(test_agent_as_nobody_sees_only_what_nobody_may),
                cmocka_unit_test(test_a_running_born_thread_is_fetched_as_of_the_fetch),
                cmocka_unit_test(test_pmapid_absent_gives_no_values_then_reconnects),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
