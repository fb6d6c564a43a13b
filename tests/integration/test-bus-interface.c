/* test-bus-interface.c: the D-Bus face of pmapid. dbus/org.pmapi.PerfMon1.xml and the live
 * daemon's introspection must agree member by member; thread objects carry the right properties
 * and are visible to their owner and root only. */
#include <gio/gio.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "check.h"
#include "pmapi.h"
#include "workload.h"

static BusFixture fixture;
static int page_faults_id;

static char *introspect(const char *path) {
        sd_bus *bus = NULL;
        sd_bus_message *reply = NULL;
        const char *xml;
        char *copy = NULL;

        if (sd_bus_open_system(&bus) < 0)
                return NULL;
        if (sd_bus_call_method(bus, "org.pmapi.PerfMon1", path, "org.freedesktop.DBus.Introspectable",
                               "Introspect", NULL, &reply, "") >= 0 &&
            sd_bus_message_read(reply, "s", &xml) >= 0)
                copy = strdup(xml);
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        return copy;
}

static void assert_args_equal(GDBusArgInfo **want, GDBusArgInfo **got, const char *member) {
        size_t i;

        for (i = 0; want && want[i]; i++) {
                assert_non_null(got);
                assert_non_null(got[i]);
                printf("#   %s arg %s %s\n", member, want[i]->name, want[i]->signature);
                assert_string_equal(want[i]->name, got[i]->name);
                assert_string_equal(want[i]->signature, got[i]->signature);
        }
        assert_true(!got || !got[i]);
}

/* Every method, argument and property of the contract is live, and nothing else is. */
static void assert_interface_matches(GDBusInterfaceInfo *want, const char *live_xml) {
        g_autoptr(GError) error = NULL;
        g_autoptr(GDBusNodeInfo) live = g_dbus_node_info_new_for_xml(live_xml, &error);
        GDBusInterfaceInfo *got;
        size_t n;

        assert_non_null(live);
        got = g_dbus_node_info_lookup_interface(live, want->name);
        assert_non_null(got);
        for (n = 0; want->methods && want->methods[n]; n++) {
                GDBusMethodInfo *m = g_dbus_interface_info_lookup_method(got, want->methods[n]->name);
                assert_non_null(m);
                assert_args_equal(want->methods[n]->in_args, m->in_args, m->name);
                assert_args_equal(want->methods[n]->out_args, m->out_args, m->name);
        }
        for (size_t i = 0; got->methods && got->methods[i]; i++)
                assert_non_null(g_dbus_interface_info_lookup_method(want, got->methods[i]->name));
        for (n = 0; want->properties && want->properties[n]; n++) {
                GDBusPropertyInfo *p = g_dbus_interface_info_lookup_property(got, want->properties[n]->name);
                assert_non_null(p);
                assert_string_equal(p->signature, want->properties[n]->signature);
                assert_int_equal(p->flags, G_DBUS_PROPERTY_INFO_FLAGS_READABLE);
        }
        for (size_t i = 0; got->properties && got->properties[i]; i++)
                assert_non_null(g_dbus_interface_info_lookup_property(want, got->properties[i]->name));
}

static void set_program(int mode) {
        pm_prog_t prog = { .mode.w = mode };
        for (int c = 0; c < MAX_COUNTERS; c++)
                prog.events[c] = COUNT_NOTHING;
        prog.events[3] = page_faults_id;
        assert_int_equal(pm_set_program_mythread(&prog), 0);
}

static void test_contract_xml_matches_live_introspection(void **state) {
        g_autofree char *path = g_build_filename(getenv("PMAPI_SOURCE_ROOT"), "dbus", "org.pmapi.PerfMon1.xml", NULL);
        g_autofree char *contract = NULL;
        g_autofree char *manager_xml = NULL, *thread_xml = NULL, *thread_path = NULL;
        g_autoptr(GDBusNodeInfo) want = NULL;
        g_autoptr(GError) error = NULL;

        (void) state;
        assert_true(g_file_get_contents(path, &contract, NULL, &error));
        want = g_dbus_node_info_new_for_xml(contract, &error);
        assert_non_null(want);

        manager_xml = introspect("/org/pmapi/PerfMon1");
        assert_non_null(manager_xml);
        assert_interface_matches(g_dbus_node_info_lookup_interface(want, "org.pmapi.PerfMon1.Manager"), manager_xml);

        set_program(PM_USER);
        thread_path = g_strdup_printf("/org/pmapi/PerfMon1/thread/%d", (int) gettid());
        thread_xml = introspect(thread_path);
        assert_non_null(thread_xml);
        assert_interface_matches(g_dbus_node_info_lookup_interface(want, "org.pmapi.PerfMon1.Thread"), thread_xml);
        assert_int_equal(pm_delete_program_mythread(), 0);
}

/* The thread's Group property names the group object, which describes the group. */
static void test_group_object_describes_the_group(void **state) {
        g_autofree char *path = g_build_filename(getenv("PMAPI_SOURCE_ROOT"), "dbus", "org.pmapi.PerfMon1.xml", NULL);
        g_autofree char *thread_path = g_strdup_printf("/org/pmapi/PerfMon1/thread/%d", (int) gettid());
        g_autofree char *contract = NULL, *group_xml = NULL, *group_path = NULL;
        g_autoptr(GDBusNodeInfo) want = NULL;
        g_autoptr(GError) gerror = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        pm_prog_t prog = { .mode.w = PM_USER };
        uint32_t members, uid;
        int consistent, process, counting;
        sd_bus_message *reply = NULL;
        sd_bus *bus = NULL;
        const char *p = NULL;

        (void) state;
        assert_true(g_file_get_contents(path, &contract, NULL, &gerror));
        want = g_dbus_node_info_new_for_xml(contract, &gerror);
        assert_non_null(want);
        for (int c = 0; c < MAX_COUNTERS; c++)
                prog.events[c] = COUNT_NOTHING;
        prog.events[0] = page_faults_id;
        assert_int_equal(pm_set_program_mygroup(&prog), 0);
        assert_int_equal(sd_bus_open_system(&bus), 0);
        assert_int_equal(sd_bus_get_property(bus, "org.pmapi.PerfMon1", thread_path, "org.pmapi.PerfMon1.Thread",
                                             "Group", &error, &reply, "o"), 0);
        assert_int_equal(sd_bus_message_read(reply, "o", &p), 1);
        group_path = g_strdup(p);
        reply = sd_bus_message_unref(reply);
        assert_true(g_str_has_prefix(group_path, "/org/pmapi/PerfMon1/group/"));
        group_xml = introspect(group_path);
        assert_non_null(group_xml);
        assert_interface_matches(g_dbus_node_info_lookup_interface(want, "org.pmapi.PerfMon1.Group"), group_xml);

#define GROUP_PROP(name, type, ptr) \
        assert_int_equal(sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", group_path, \
                                                     "org.pmapi.PerfMon1.Group", name, &error, type, ptr), 0)
        GROUP_PROP("Members", 'u', &members);
        GROUP_PROP("OwnerUid", 'u', &uid);
        GROUP_PROP("Consistent", 'b', &consistent);
        GROUP_PROP("Process", 'b', &process);
        GROUP_PROP("Counting", 'b', &counting);
        assert_int_equal(members, 1);
        assert_int_equal(uid, getuid());
        assert_true(consistent);
        assert_false(process);
        assert_false(counting);
        assert_int_equal(pm_start_mygroup(), 0);
        GROUP_PROP("Counting", 'b', &counting);
        assert_true(counting);
#undef GROUP_PROP

        assert_int_equal(pm_delete_program_mygroup(), 0);
        /* Gone with its last member. */
        assert_true(sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", group_path, "org.pmapi.PerfMon1.Group",
                                                "Members", &error, 'u', &members) < 0);
        sd_bus_error_free(&error);
        sd_bus_flush_close_unref(bus);
}

/* A system-wide context shows one object per CPU, described by the contract's Cpu interface, and
 * they go with the context: a process tree's under /proctree/<owner pid>/cpu/<n> (the context that
 * counts every process has /cpu/<n>; SystemOwnerPid names only its owner). */
static void test_cpu_objects_describe_the_system_context(void **state) {
        g_autofree char *path = g_build_filename(getenv("PMAPI_SOURCE_ROOT"), "dbus", "org.pmapi.PerfMon1.xml", NULL);
        g_autofree char *contract = NULL, *cpu_xml = NULL;
        g_autoptr(GDBusNodeInfo) want = NULL;
        g_autoptr(GError) gerror = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        pm_prog_t prog = { .mode.w = PM_USER | PM_PROCTREE };
        int32_t owner, mode;
        uint32_t cpu;
        int online, tree;
        sd_bus *bus = NULL;
        g_autofree char *cpu0 = g_strdup_printf("/org/pmapi/PerfMon1/proctree/%d/cpu/0", (int) getpid());

        (void) state;
        assert_true(g_file_get_contents(path, &contract, NULL, &gerror));
        want = g_dbus_node_info_new_for_xml(contract, &gerror);
        assert_non_null(want);
        for (int c = 0; c < MAX_COUNTERS; c++)
                prog.events[c] = COUNT_NOTHING;
        prog.events[0] = page_faults_id;
        assert_int_equal(pm_set_program(&prog), 0);
        cpu_xml = introspect(cpu0);
        assert_non_null(cpu_xml);
        assert_interface_matches(g_dbus_node_info_lookup_interface(want, "org.pmapi.PerfMon1.Cpu"), cpu_xml);
        assert_int_equal(sd_bus_open_system(&bus), 0);
#define CPU_PROP(name, type, ptr) \
        assert_int_equal(sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", cpu0, \
                                                     "org.pmapi.PerfMon1.Cpu", name, &error, type, ptr), 0)
        CPU_PROP("Cpu", 'u', &cpu);
        CPU_PROP("Online", 'b', &online);
        CPU_PROP("OwnerPid", 'i', &owner);
        CPU_PROP("ProcessTree", 'b', &tree);
        CPU_PROP("Mode", 'i', &mode);
#undef CPU_PROP
        assert_int_equal(cpu, 0);
        assert_true(online);
        assert_int_equal(owner, getpid());
        assert_true(tree);
        assert_int_equal(mode, PM_USER | PM_PROCTREE);
        assert_int_equal(sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1",
                                                     "org.pmapi.PerfMon1.Manager", "SystemOwnerPid", &error, 'i',
                                                     &owner), 0);
        assert_int_equal(owner, 0);                     /* nobody counts every process */
        assert_true(sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1/cpu/0",
                                                "org.pmapi.PerfMon1.Cpu", "Cpu", &error, 'u', &cpu) < 0);
        sd_bus_error_free(&error);

        assert_int_equal(pm_delete_program(), 0);
        assert_true(sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", cpu0,
                                                "org.pmapi.PerfMon1.Cpu", "Cpu", &error, 'u', &cpu) < 0);
        sd_bus_error_free(&error);
        sd_bus_flush_close_unref(bus);
}

/* A cgroup context is an object /cgroup/<id>/<owner pid> with the contract's Cgroup interface, its
 * CPUs below it with the Cpu interface; another user cannot read it; it goes with the context. */
static int cgroup_hidden_body(void *arg) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus *bus = NULL;
        uint64_t id = 0;
        int ok;

        if (sd_bus_open_system(&bus) < 0)
                return 1;
        ok = sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", arg, "org.pmapi.PerfMon1.Cgroup", "Cgroup",
                                         &error, 't', &id) < 0;
        sd_bus_error_free(&error);
        sd_bus_flush_close_unref(bus);
        return ok ? 0 : 1;
}

static void test_cgroup_object_describes_the_cgroup_context(void **state) {
        g_autofree char *path = g_build_filename(getenv("PMAPI_SOURCE_ROOT"), "dbus", "org.pmapi.PerfMon1.xml", NULL);
        g_autofree char *contract = NULL, *object = NULL, *cpu0 = NULL, *xml = NULL, *cpu_xml = NULL;
        g_autoptr(GDBusNodeInfo) want = NULL;
        g_autoptr(GError) gerror = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        pm_prog_t prog = { .mode.w = PM_USER | PM_COUNT };
        pm_wpar_ctx_info_t root;
        sd_bus *bus = NULL;
        uint64_t id = 0;
        int removed = -1, n = 1;
        char *p = NULL;

        (void) state;
        if (pm_get_wplist("/", &root, &n) != 0)
                skip();                 /* no cgroup v2 here: test-cgroup says why */
        assert_true(g_file_get_contents(path, &contract, NULL, &gerror));
        want = g_dbus_node_info_new_for_xml(contract, &gerror);
        assert_non_null(want);
        for (int c = 0; c < MAX_COUNTERS; c++)
                prog.events[c] = COUNT_NOTHING;
        prog.events[0] = page_faults_id;
        assert_int_equal(pm_set_program_wp(root.cid, &prog), 0);
        object = g_strdup_printf("/org/pmapi/PerfMon1/cgroup/%llu/%d", root.cid, (int) getpid());
        cpu0 = g_strdup_printf("%s/cpu/0", object);
        xml = introspect(object);
        assert_non_null(xml);
        assert_interface_matches(g_dbus_node_info_lookup_interface(want, "org.pmapi.PerfMon1.Cgroup"), xml);
        cpu_xml = introspect(cpu0);
        assert_non_null(cpu_xml);
        assert_interface_matches(g_dbus_node_info_lookup_interface(want, "org.pmapi.PerfMon1.Cpu"), cpu_xml);
        assert_int_equal(sd_bus_open_system(&bus), 0);
        assert_int_equal(sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", object, "org.pmapi.PerfMon1.Cgroup",
                                                     "Cgroup", &error, 't', &id), 0);
        assert_int_equal(id, root.cid);
        assert_int_equal(sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", object, "org.pmapi.PerfMon1.Cgroup",
                                                     "Removed", &error, 'b', &removed), 0);
        assert_false(removed);
        assert_int_equal(sd_bus_get_property_string(bus, "org.pmapi.PerfMon1", object, "org.pmapi.PerfMon1.Cgroup",
                                                    "Path", &error, &p), 0);
        assert_string_equal(p, "/");
        free(p);
        assert_int_equal(run_as_nobody(cgroup_hidden_body, object), 0);
        assert_int_equal(pm_delete_program_wp(root.cid), 0);
        assert_true(sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", object, "org.pmapi.PerfMon1.Cgroup",
                                                "Cgroup", &error, 't', &id) < 0);
        sd_bus_error_free(&error);
        sd_bus_flush_close_unref(bus);
}

static void test_thread_object_properties_describe_the_context(void **state) {
        g_autofree char *path = g_strdup_printf("/org/pmapi/PerfMon1/thread/%d", (int) gettid());
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        sd_bus *bus = NULL;
        const int32_t *events;
        size_t n_bytes;
        int32_t pid, tid, mode;
        uint32_t uid;
        int counting;

        (void) state;
        set_program(PM_USER | PM_KERNEL);
        assert_int_equal(sd_bus_open_system(&bus), 0);
        assert_int_equal(sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", path, "org.pmapi.PerfMon1.Thread",
                                                     "ProcessId", &error, 'i', &pid), 0);
        assert_int_equal(sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", path, "org.pmapi.PerfMon1.Thread",
                                                     "ThreadId", &error, 'i', &tid), 0);
        assert_int_equal(sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", path, "org.pmapi.PerfMon1.Thread",
                                                     "OwnerUid", &error, 'u', &uid), 0);
        assert_int_equal(sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", path, "org.pmapi.PerfMon1.Thread",
                                                     "Mode", &error, 'i', &mode), 0);
        assert_int_equal(sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", path, "org.pmapi.PerfMon1.Thread",
                                                     "Counting", &error, 'b', &counting), 0);
        assert_int_equal(pid, getpid());
        assert_int_equal(tid, gettid());
        assert_int_equal(uid, getuid());
        assert_int_equal(mode, PM_USER | PM_KERNEL);
        assert_false(counting);
        assert_int_equal(pm_start_mythread(), 0);
        assert_int_equal(sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", path, "org.pmapi.PerfMon1.Thread",
                                                     "Counting", &error, 'b', &counting), 0);
        assert_true(counting);
        assert_int_equal(sd_bus_get_property(bus, "org.pmapi.PerfMon1", path, "org.pmapi.PerfMon1.Thread",
                                             "Events", &error, &reply, "ai"), 0);
        assert_int_equal(sd_bus_message_read_array(reply, 'i', (const void **) &events, &n_bytes), 1);
        assert_int_equal(n_bytes, MAX_COUNTERS * sizeof(int32_t));
        for (int c = 0; c < MAX_COUNTERS; c++)
                assert_int_equal(events[c], c == 3 ? page_faults_id : COUNT_NOTHING);
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        assert_int_equal(pm_delete_program_mythread(), 0);
}

static char root_thread_path[128];

/* Another uid neither lists nor reads root's context object. */
static int other_uid_body(void *arg) {
        sd_bus *bus = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int32_t tid;
        char *xml;

        (void) arg;
        CHECK(sd_bus_open_system(&bus) >= 0);
        CHECK(sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", root_thread_path, "org.pmapi.PerfMon1.Thread",
                                          "ThreadId", &error, 'i', &tid) < 0);
        sd_bus_error_free(&error);
        sd_bus_flush_close_unref(bus);
        xml = introspect("/org/pmapi/PerfMon1/thread");
        CHECK(xml && !strstr(xml, "<node name=\""));
        free(xml);
        return 0;
}

static void test_thread_objects_are_hidden_from_other_users(void **state) {
        g_autofree char *xml = NULL;

        (void) state;
        set_program(PM_USER);
        snprintf(root_thread_path, sizeof(root_thread_path), "/org/pmapi/PerfMon1/thread/%d", (int) gettid());
        xml = introspect("/org/pmapi/PerfMon1/thread");
        assert_non_null(xml);
        assert_non_null(strstr(xml, "<node name=\""));                 /* root sees its own */
        assert_int_equal(run_as_nobody(other_uid_body, NULL), 0);
        assert_int_equal(pm_delete_program_mythread(), 0);
}

static int setup(void **state) {
        pm_info_t info;
        (void) state;
        int r = bus_fixture_start(&fixture, NULL);
        if (r == 0)
                r = pm_init(PM_VERIFIED, &info);
        page_faults_id = find_event_id(&info, "PM_PAGE_FLT");
        return r;
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_contract_xml_matches_live_introspection),
                cmocka_unit_test(test_thread_object_properties_describe_the_context),
                cmocka_unit_test(test_group_object_describes_the_group),
                cmocka_unit_test(test_cpu_objects_describe_the_system_context),
                cmocka_unit_test(test_cgroup_object_describes_the_cgroup_context),
                cmocka_unit_test(test_thread_objects_are_hidden_from_other_users),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
