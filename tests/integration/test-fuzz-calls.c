/* test-fuzz-calls.c: random typed calls against the real pmapid, read from the contract
 * (dbus/org.pmapi.PerfMon1.xml): every Manager method, mostly with its own signature and values
 * chosen to hurt (0, -1, INT_MIN, INT_MAX, this process and thread, pmapid itself, arrays of 0, 9 or
 * 1000 events, real and unknown event ids), sometimes with a random signature; as root and as uid
 * 65534, each in a process of its own. pmapid must answer every call (a reply or an error, never a
 * timeout), answer Peer.Ping after every 100 calls, release everything the callers made when they
 * exit, and stop cleanly at the end (under ASan in tests/run.sh's second pass). Debian 12 has no
 * dfuzzer; this is ours. PMAPI_FUZZ_CALLS (default 3000 per identity) and PMAPI_FUZZ_SEED make
 * longer or other runs. */
#include <gio/gio.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "check.h"
#include "workload.h"

#define CALL_TIMEOUT_USEC (5ULL * 1000 * 1000)

typedef struct Method {
        char name[64];
        char signature[32];
} Method;

static BusFixture fixture;
static Method methods[64];
static size_t n_methods;

static uint64_t rng;

static uint64_t next(void) {            /* xorshift64*: reproducible from the seed */
        rng ^= rng >> 12;
        rng ^= rng << 25;
        rng ^= rng >> 27;
        return rng * 2685821657736338717ULL;
}

static int32_t nasty_int(void) {
        const int32_t pool[] = { 0, 1, -1, INT32_MIN, INT32_MAX, getpid(), gettid(), fixture.daemon_pid, 4194304,
                                 getuid() == 0 ? 0 : 1 };
        return next() % 4 == 0 ? (int32_t) next() : pool[next() % (sizeof(pool) / sizeof(pool[0]))];
}

static int32_t event_id(void) {
        const int32_t pool[] = { 1, 2, 3, 4, 5, 6, 7, 100, 1000, 1001, -1, 0, -2, INT32_MAX };
        return pool[next() % (sizeof(pool) / sizeof(pool[0]))];
}

static int append_value(sd_bus_message *m, char type) {
        switch (type) {
        case 'i':
                return sd_bus_message_append_basic(m, 'i', &(int32_t) { nasty_int() });
        case 'u':
                return sd_bus_message_append_basic(m, 'u', &(uint32_t) { next() % 3 ? (uint32_t) (next() % 4) : UINT32_MAX });
        case 'b':
                return sd_bus_message_append_basic(m, 'b', &(int) { (int) (next() % 2) });
        case 't':
                return sd_bus_message_append_basic(m, 't', &(uint64_t) { next() % 2 ? next() : 0 });
        case 's':
                return sd_bus_message_append_basic(m, 's', next() % 2 ? "" : "PM_PAGE_FLT");
        default: {                              /* 'a' of 'i' */
                static const size_t lengths[] = { 0, 1, 8, 8, 8, 9, 1000 };
                size_t n = lengths[next() % (sizeof(lengths) / sizeof(lengths[0]))];
                int32_t *v = calloc(n + 1, sizeof(int32_t));
                int r;

                if (!v)
                        return -ENOMEM;
                for (size_t i = 0; i < n; i++)
                        v[i] = next() % 3 ? -1 : event_id();
                r = sd_bus_message_append_array(m, 'i', v, n * sizeof(int32_t));
                free(v);
                return r;
        }
        }
}

/* The method's own signature most of the time; else a random one of up to 6 types. */
static void pick_signature(const Method *method, char *ret, size_t size) {
        static const char types[] = "iubtsa";
        size_t n;

        if (next() % 5) {
                snprintf(ret, size, "%s", method->signature);
                return;
        }
        n = next() % 7;
        for (size_t i = 0; i < n && i + 1 < size; i++)
                ret[i] = types[next() % (sizeof(types) - 1)];
        ret[n < size ? n : size - 1] = '\0';
}

static long n_replies, n_errors;

static int one_call(sd_bus *bus) {
        sd_bus_message *m = NULL, *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        const Method *method = &methods[next() % n_methods];
        char signature[32];
        int r, failed = 0;

        CHECK(sd_bus_message_new_method_call(bus, &m, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1",
                                             "org.pmapi.PerfMon1.Manager", method->name) >= 0);
        pick_signature(method, signature, sizeof(signature));
        for (const char *t = signature; *t && !failed; t++) {
                failed = append_value(m, *t) < 0;
                t += *t == 'a' && t[1] == 'i';
        }
        r = failed ? -EINVAL : sd_bus_call(bus, m, CALL_TIMEOUT_USEC, &error, &reply);
        /* Any answer will do: a reply or a named error. No answer is pmapid hanging or gone. */
        if (failed || (r < 0 && (!sd_bus_error_is_set(&error) || sd_bus_error_has_name(&error, SD_BUS_ERROR_NO_REPLY) ||
                                 sd_bus_error_has_name(&error, SD_BUS_ERROR_SERVICE_UNKNOWN)))) {
                fprintf(stderr, "# %s(%s): %s\n", method->name, signature, error.name ? error.name : strerror(-r));
                failed = 1;
        }
        n_replies += r >= 0;
        n_errors += r < 0;
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
        sd_bus_message_unref(m);
        return failed;
}

static int fuzz_body(void *arg) {
        long calls = *(const long *) arg;
        sd_bus *bus = NULL;
        int r = 0;

        rng ^= (uint64_t) getuid() * 0x9e3779b97f4a7c15ULL;    /* root and nobody: other sequences */
        CHECK(sd_bus_open_system(&bus) >= 0);
        for (long i = 0; i < calls && r == 0; i++) {
                r = one_call(bus);
                if (r == 0 && i % 100 == 99)
                        r = sd_bus_call_method(bus, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1",
                                               "org.freedesktop.DBus.Peer", "Ping", NULL, NULL, "") < 0;
        }
        sd_bus_flush_close_unref(bus);
        fprintf(stderr, "# uid %u: %ld replies, %ld errors\n", (unsigned) getuid(), n_replies, n_errors);
        return r;
}

static void test_random_typed_calls_get_answers_and_leave_nothing(void **state) {
        const char *env = getenv("PMAPI_FUZZ_CALLS");
        long calls = env ? atol(env) : 3000;

        (void) state;
        assert_int_equal(run_as(0, 0, fuzz_body, &calls), 0);
        assert_int_equal(run_as_nobody(fuzz_body, &calls), 0);
        assert_int_equal(wait_for_context_count(0, 10000), 0);
}

/* Every Manager method of the contract, with its in-arguments' signature. */
static int load_methods(void) {
        g_autofree char *path = g_build_filename(getenv("PMAPI_SOURCE_ROOT"), "dbus", "org.pmapi.PerfMon1.xml", NULL);
        g_autofree char *xml = NULL;
        g_autoptr(GDBusNodeInfo) node = NULL;
        GDBusInterfaceInfo *manager;

        if (!g_file_get_contents(path, &xml, NULL, NULL) || !(node = g_dbus_node_info_new_for_xml(xml, NULL)) ||
            !(manager = g_dbus_node_info_lookup_interface(node, "org.pmapi.PerfMon1.Manager")))
                return -1;
        for (GDBusMethodInfo **mi = manager->methods; mi && *mi && n_methods < 64; mi++) {
                Method *m = &methods[n_methods++];
                snprintf(m->name, sizeof(m->name), "%s", (*mi)->name);
                for (GDBusArgInfo **a = (*mi)->in_args; a && *a; a++)
                        strncat(m->signature, (*a)->signature, sizeof(m->signature) - strlen(m->signature) - 1);
        }
        return n_methods > 20 ? 0 : -1;
}

static int setup(void **state) {
        const char *seed = getenv("PMAPI_FUZZ_SEED");

        (void) state;
        rng = seed ? strtoull(seed, NULL, 0) : 0x5eed5eedULL;
        if (rng == 0)
                rng = 1;
        if (load_methods() < 0)
                return 1;
        fprintf(stderr, "# %zu methods, seed %#llx\n", n_methods, (unsigned long long) rng);
        return bus_fixture_start(&fixture, NULL);
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_random_typed_calls_get_answers_and_leave_nothing),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
