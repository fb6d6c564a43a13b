/* test-system.c: the system-wide context (daemon/model/system.c) over the fake counter backend, with exact
 * numbers: one group per online CPU (or per tree thread and CPU, with inherit), CPUs add up to the
 * total, a CPU that goes offline keeps its counts and one that comes back counts on from them, a
 * reset is an offset that also covers what offline CPUs kept, start/stop switch every group. Also
 * the parsers of the kernel's CPU lists and of CPU hotplug uevents. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "counter.h"
#include "cpu-list.h"
#include "cpu-watch.h"
#include "event-table.h"
#include "pmapi.h"
#include "system.h"

static int setup_table(void **state) {
        EventTable *t = NULL;

        if (event_table_new_unprobed(event_sources, n_event_sources, &t) < 0)
                return -1;
        *state = t;
        return 0;
}

static int teardown_table(void **state) {
        event_table_free(*state);
        return 0;
}

static Program program_with(uint32_t mode) {
        Program p = { .mode = mode };

        for (int c = 0; c < MAX_COUNTERS; c++)
                p.events[c] = COUNT_NOTHING;
        p.events[1] = EVENT_ID(2);                /* counter 1: some event of the table */
        return p;
}

static int64_t cpu_value(SystemContext *s, unsigned cpu) {
        AcctVector v;

        assert_int_equal(system_read_cpu(s, cpu, v), 0);
        return v[1];
}

static int64_t total(SystemContext *s) {
        AcctVector v;

        assert_int_equal(system_read(s, v), 0);
        return v[1];
}

/* Work done on a CPU: the fake counters move only while enabled. */
static void work(SystemContext *s, unsigned cpu, size_t group, uint64_t n) {
        assert_true(group < s->cpus[cpu].n_groups);
        counter_fake_count(s->cpus[cpu].groups[group], 0, n);
}

static void test_every_online_cpu_counts_and_adds_up(void **state) {
        Program p = program_with(PM_USER | PM_COUNT);
        bool online[4] = { true, false, true, true };
        size_t n_open = counter_fake_n_open();
        SystemContext *s = NULL;
        AcctVector v;

        assert_int_equal(system_new(&counter_backend_fake, *state, &p, 100, 0, NULL, 0, online, 4, &s), 0);
        assert_int_equal(counter_fake_n_open(), n_open + 3);
        assert_int_equal(counter_fake_last_target().tid, -1);
        assert_int_equal(counter_fake_last_target().cpu, 3);
        assert_false(counter_fake_last_target().inherit);
        work(s, 0, 0, 10);
        work(s, 2, 0, 200);
        work(s, 3, 0, 3000);
        assert_int_equal(cpu_value(s, 0), 10);
        assert_int_equal(cpu_value(s, 2), 200);
        assert_int_equal(cpu_value(s, 3), 3000);
        assert_int_equal(total(s), 3210);
        assert_int_equal(system_read_cpu(s, 1, v), -ENXIO);     /* never online */
        assert_int_equal(system_read_cpu(s, 4, v), -ENXIO);     /* no such CPU */
        system_free(s);
        assert_int_equal(counter_fake_n_open(), n_open);
}

static void test_proctree_opens_one_inherit_group_per_thread_and_cpu(void **state) {
        Program p = program_with(PM_USER | PM_COUNT | PM_PROCTREE);
        bool online[2] = { true, true };
        pid_t tree[3] = { 500, 501, 700 };
        size_t n_open = counter_fake_n_open();
        SystemContext *s = NULL;

        assert_int_equal(system_new(&counter_backend_fake, *state, &p, 500, 1000, tree, 3, online, 2, &s), 0);
        assert_int_equal(counter_fake_n_open(), n_open + 6);
        assert_int_equal(counter_fake_last_target().tid, 700);
        assert_int_equal(counter_fake_last_target().cpu, 1);
        assert_true(counter_fake_last_target().inherit);
        work(s, 0, 0, 1);
        work(s, 0, 2, 20);
        work(s, 1, 1, 300);
        assert_int_equal(cpu_value(s, 0), 21);
        assert_int_equal(cpu_value(s, 1), 300);
        assert_int_equal(total(s), 321);
        assert_true(system_get_program(s).mode & PM_PROCTREE);
        system_free(s);
}

static void test_start_stop_switch_every_cpu(void **state) {
        Program p = program_with(PM_USER);
        bool online[2] = { true, true };
        SystemContext *s = NULL;

        assert_int_equal(system_new(&counter_backend_fake, *state, &p, 100, 0, NULL, 0, online, 2, &s), 0);
        work(s, 0, 0, 5);                       /* not counting yet */
        assert_int_equal(total(s), 0);
        assert_false(system_get_program(s).mode & PM_COUNT);
        assert_int_equal(system_start(s), 0);
        assert_int_equal(system_start(s), 0);
        assert_true(system_get_program(s).mode & PM_COUNT);
        work(s, 0, 0, 5);
        work(s, 1, 0, 7);
        assert_int_equal(system_stop(s), 0);
        assert_int_equal(system_stop(s), 0);
        work(s, 1, 0, 1000);
        assert_int_equal(total(s), 12);
        system_free(s);
}

/* Offline keeps the CPU's counts; back online, new counters count on from them; a reset covers
 * the kept counts too. */
static void test_offline_cpu_keeps_its_counts_and_resets_are_offsets(void **state) {
        Program p = program_with(PM_USER | PM_COUNT);
        bool online[2] = { true, true };
        SystemContext *s = NULL;

        assert_int_equal(system_new(&counter_backend_fake, *state, &p, 100, 0, NULL, 0, online, 2, &s), 0);
        work(s, 1, 0, 40);
        assert_int_equal(system_cpu_offline(s, 1), 0);
        assert_int_equal(system_cpu_offline(s, 1), 0);  /* idempotent */
        assert_false(system_cpu_open(s, 1));
        assert_int_equal(cpu_value(s, 1), 40);
        assert_int_equal(system_cpu_online(s, 1), 0);
        assert_int_equal(system_cpu_online(s, 1), 0);
        assert_true(system_cpu_open(s, 1));
        work(s, 1, 0, 2);
        assert_int_equal(cpu_value(s, 1), 42);
        work(s, 0, 0, 8);
        assert_int_equal(system_reset(s), 0);
        assert_int_equal(total(s), 0);
        work(s, 1, 0, 3);
        assert_int_equal(cpu_value(s, 1), 3);
        assert_int_equal(system_cpu_offline(s, 1), 0);
        assert_int_equal(cpu_value(s, 1), 3);
        assert_int_equal(total(s), 3);
        /* A CPU that comes online for the first time counts from then on. */
        assert_int_equal(system_cpu_online(s, 5), -ENXIO);
        system_free(s);
}

static void test_failed_open_leaves_nothing_open(void **state) {
        Program p = program_with(PM_USER);
        bool online[2] = { true, true };
        size_t n_open = counter_fake_n_open();
        SystemContext *s = NULL;

        counter_fake_fail_next_open(-EMFILE);
        assert_int_equal(system_new(&counter_backend_fake, *state, &p, 100, 0, NULL, 0, online, 2, &s), -EMFILE);
        assert_null(s);
        assert_int_equal(counter_fake_n_open(), n_open);
}

static void test_cpu_lists_parse(void **state) {
        bool set[8];

        (void) state;
        assert_int_equal(cpu_list_parse("0-1\n", set, 8), 0);
        assert_true(set[0] && set[1] && !set[2]);
        assert_int_equal(cpu_list_parse("0,2-3,7", set, 8), 0);
        assert_true(set[0] && !set[1] && set[2] && set[3] && !set[4] && set[7]);
        assert_int_equal(cpu_list_parse("", set, 8), 0);
        assert_false(set[0]);
        assert_int_equal(cpu_list_parse("0-8", set, 8), -ERANGE);
        assert_int_equal(cpu_list_parse("3-1", set, 8), -EINVAL);
        assert_int_equal(cpu_list_parse("a", set, 8), -EINVAL);
        assert_int_equal(cpu_list_parse("1;2", set, 8), -EINVAL);
}

static void test_hotplug_uevents_parse(void **state) {
        static const char online[] = "online@/devices/system/cpu/cpu1\0ACTION=online\0DEVPATH=/devices/system/cpu/cpu1";
        static const char offline[] = "offline@/devices/system/cpu/cpu12\0ACTION=offline";
        static const char other[] = "add@/devices/virtual/net/lo\0ACTION=add";
        static const char not_cpu[] = "online@/devices/system/cpu/cpufreq\0ACTION=online";
        static const char unterminated[3] = { 'o', 'n', 'l' };
        unsigned cpu = 99;
        bool on = false;

        (void) state;
        assert_int_equal(cpu_watch_parse(online, sizeof(online), &cpu, &on), 1);
        assert_int_equal(cpu, 1);
        assert_true(on);
        assert_int_equal(cpu_watch_parse(offline, sizeof(offline), &cpu, &on), 1);
        assert_int_equal(cpu, 12);
        assert_false(on);
        assert_int_equal(cpu_watch_parse(other, sizeof(other), &cpu, &on), 0);
        assert_int_equal(cpu_watch_parse(not_cpu, sizeof(not_cpu), &cpu, &on), 0);
        assert_int_equal(cpu_watch_parse(unterminated, sizeof(unterminated), &cpu, &on), 0);
}

/* A CPU whose group the PMU time-shared before a reset, and not since: the read after the reset is
 * what came since, scaled by the times since (exact here), never "scaled now less scaled then". */
static void test_reset_keeps_each_groups_raw_base(void **state) {
        bool online[2] = { true, false };
        Program p = program_with(PM_USER | PM_COUNT);
        SystemContext *s = NULL;
        AcctVector v;

        assert_int_equal(system_new(&counter_backend_fake, *state, &p, 100, 0, NULL, 0, online, 2, &s), 0);
        work(s, 0, 0, 100);
        counter_fake_advance(s->cpus[0].groups[0], 200, 100);   /* on the PMU half the time */
        assert_int_equal(cpu_value(s, 0), 200);
        assert_int_equal(system_reset(s), 0);
        assert_int_equal(cpu_value(s, 0), 0);
        work(s, 0, 0, 50);
        counter_fake_advance(s->cpus[0].groups[0], 100, 100);   /* all the time since */
        assert_int_equal(cpu_value(s, 0), 50);
        assert_int_equal(system_read_cpu(s, 0, v), 0);
        assert_int_equal(v[ACCT_ENABLED], 100);
        assert_int_equal(v[ACCT_RUNNING], 100);
        assert_int_equal(total(s), 50);
        system_free(s);
}

/* A process tree's counters are never scaled: one is off whenever its thread runs on another CPU. */
static void test_proctree_is_never_scaled(void **state) {
        bool online[2] = { true, false };
        pid_t tree[1] = { 500 };
        Program p = program_with(PM_USER | PM_COUNT | PM_PROCTREE);
        SystemContext *s = NULL;
        AcctVector v;

        assert_int_equal(system_new(&counter_backend_fake, *state, &p, 500, 1000, tree, 1, online, 2, &s), 0);
        work(s, 0, 0, 100);
        counter_fake_advance(s->cpus[0].groups[0], 200, 100);   /* it ran on the other CPU half the time */
        assert_int_equal(system_read_cpu(s, 0, v), 0);
        assert_int_equal(v[1], 100);
        assert_int_equal(v[ACCT_ENABLED], 100);
        assert_int_equal(v[ACCT_RUNNING], 100);
        system_free(s);
}

/* A cgroup context: one group per CPU aimed at the cgroup's directory; once the cgroup is gone (its
 * files are), it keeps its counts and no CPU coming online opens counters for it. A directory with a
 * cgroup.procs file stands in for the cgroup. */
static void test_cgroup_context_targets_its_cgroup_and_outlives_it(void **state) {
        char dir[] = "/tmp/pmapi-test-cgroup-XXXXXX", procs[64];
        bool online[2] = { true, false };
        Program p = program_with(PM_USER | PM_COUNT);
        SystemContext *s = NULL;
        CounterTarget t;
        int fd;

        assert_non_null(mkdtemp(dir));
        snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
        fd = open(procs, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        close(fd);
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(system_new_cgroup(&counter_backend_fake, *state, &p, 100, 0, fd, 42, "/a", online, 2, &s),
                         0);
        t = counter_fake_last_target();
        assert_int_equal(t.cgroup_fd, fd);
        assert_int_equal(t.cpu, 0);
        assert_false(t.inherit);
        assert_int_equal(s->cgroup_id, 42);
        assert_string_equal(s->cgroup_path, "/a");
        assert_false(system_cgroup_removed(s));
        work(s, 0, 0, 70);
        assert_int_equal(total(s), 70);

        assert_int_equal(unlink(procs), 0);             /* the cgroup's files go with it */
        assert_true(system_cgroup_removed(s));
        assert_int_equal(s->cgroup_fd, -1);
        assert_int_equal(total(s), 70);
        assert_int_equal(system_cpu_online(s, 1), -ENODEV);
        assert_false(system_cpu_open(s, 1));
        assert_int_equal(total(s), 70);
        system_free(s);
        assert_int_equal(rmdir(dir), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_every_online_cpu_counts_and_adds_up),
                cmocka_unit_test(test_proctree_opens_one_inherit_group_per_thread_and_cpu),
                cmocka_unit_test(test_start_stop_switch_every_cpu),
                cmocka_unit_test(test_offline_cpu_keeps_its_counts_and_resets_are_offsets),
                cmocka_unit_test(test_failed_open_leaves_nothing_open),
                cmocka_unit_test(test_cgroup_context_targets_its_cgroup_and_outlives_it),
                cmocka_unit_test(test_reset_keeps_each_groups_raw_base),
                cmocka_unit_test(test_proctree_is_never_scaled),
                cmocka_unit_test(test_cpu_lists_parse),
                cmocka_unit_test(test_hotplug_uevents_parse),
        };
        return cmocka_run_group_tests(tests, setup_table, teardown_table);
}
