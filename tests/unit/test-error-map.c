/* test-error-map.c: the two edges where errors change form, tested end to end without a bus. The
 * daemon's edge (daemon/bus/bus-errors.c) turns negative errnos and ProgramErrors into D-Bus error
 * names; the library's edge (pmapi/error-map.c) turns those names into AIX PM_E* codes, and
 * pm_strerror()/pm_error() (pmapi/pm-error.c) explain every code. The lists of names and codes are
 * read from include/internal/bus-names.h and include/pmapi.h themselves, so a name or code added
 * there without a mapping or a message fails here. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-errors.h"
#include "bus-names.h"
#include "error-map.h"
#include "macro.h"
#include "pmapi.h"
#include "program.h"

#define UNKNOWN_CODE_TEXT "Unknown pmapi error code"

/* The names the header is expected to hold; the parsed list must contain them all, which proves
 * the parser reads the header. Names beyond these are still checked, since checks use the parsed
 * list. */
static const char *const known_error_names[] = {
        PMAPI_ERROR_CONTEXT_EXISTS,
        PMAPI_ERROR_NO_CONTEXT,
        PMAPI_ERROR_NO_SUCH_THREAD,
        PMAPI_ERROR_ACCESS_DENIED,
        PMAPI_ERROR_KERNEL_MODE_DENIED,
        PMAPI_ERROR_LIMIT_EXCEEDED,
        PMAPI_ERROR_UNKNOWN_EVENT,
        PMAPI_ERROR_INVALID_MODE,
        PMAPI_ERROR_NO_EVENTS,
        PMAPI_ERROR_THRESHOLD,
        PMAPI_ERROR_HYPERVISOR,
        PMAPI_ERROR_UNKNOWN_GROUP,
        PMAPI_ERROR_OPEN_FAILED,
        PMAPI_ERROR_NO_MEMORY,
        PMAPI_ERROR_BAD_SLICE,
        PMAPI_ERROR_BAD_SETS,
        PMAPI_ERROR_SET_MODES_DISAGREE,
        PMAPI_ERROR_FOREIGN_MODE_LAYOUT,
};

typedef struct PmCode {
        const char *name;
        int code;
} PmCode;

#define CODE(c) { #c, c }

static const PmCode known_codes[] = {
        CODE(PM_ENOTINIT),
        CODE(PM_EFILTER),
        CODE(PM_EPROCTYPE),
        CODE(PM_EFAULT),
        CODE(PM_EEVENT),
        CODE(PM_EMODE),
        CODE(PM_ENOCONTEXT),
        CODE(PM_ENOTHREAD),
        CODE(PM_EPERM),
        CODE(PM_EKERNELMODE),
        CODE(PM_ENODAEMON),
        CODE(PM_EDAEMON),
        CODE(PM_ENOMEM),
        CODE(PM_ELIMIT),
        CODE(PM_EOPEN),
        CODE(PM_ETHRESH),
        CODE(PM_EHYPERVISOR),
        CODE(PM_EGROUPS),
        CODE(PM_ENOEVENTS),
        CODE(PM_ENOGROUP),
        CODE(PM_ENOTOWNER),
        CODE(PM_ESETID),
        CODE(PM_ENOTDUMPABLE),
        CODE(PM_EPTRACESCOPE),
        CODE(PM_EDAEMONTHREAD),
        CODE(PM_EPTID),
        CODE(PM_ESYSBUSY),
        CODE(PM_ESYSROOT),
        CODE(PM_ECPU),
        CODE(PM_ECALLERGONE),
        CODE(PM_ERESTARTED),
        CODE(PM_ENOTATTACHED),
        CODE(PM_ENOCGROUP),
        CODE(PM_ECGROUPPATH),
        CODE(PM_ECGROUPACCESS),
        CODE(PM_ENOCGROUPV2),
        CODE(PM_EMXSLICE),
        CODE(PM_EMXSETS),
        CODE(PM_EMXMODE),
        CODE(PM_EMODELAYOUT),
        CODE(PM_EEXIST_AIX5),
        CODE(PM_EEXIST),
        CODE(PM_ENOTSTARTED),
};

#define MAX_PARSED 128

typedef struct Parsed {
        char name[128];
        int value;                      /* PM codes only */
} Parsed;

static FILE *open_source(const char *relative) {
        const char *root = getenv("PMAPI_SOURCE_ROOT");
        char path[4096];
        FILE *f;

        if (!root)
                fail_msg("PMAPI_SOURCE_ROOT is not set: run this test through 'meson test'");
        (void) snprintf(path, sizeof(path), "%s/%s", root, relative);
        f = fopen(path, "re");
        if (!f)
                fail_msg("cannot open %s: %s", path, strerror(errno));
        return f;
}

/* Every `#define PMAPI_ERROR_X PMAPI_ERROR_PREFIX "Name"` of bus-names.h, as the full name. */
static size_t parse_error_names(Parsed *ret, size_t max) {
        FILE *f = open_source("include/internal/bus-names.h");
        char line[512];
        size_t n = 0;

        while (fgets(line, sizeof(line), f)) {
                char macro[64], suffix[64];

                if (sscanf(line, "#define PMAPI_ERROR_%63s PMAPI_ERROR_PREFIX \"%63[^\"]\"", macro,
                           suffix) != 2)
                        continue;
                assert_true(n < max);
                (void) snprintf(ret[n].name, sizeof(ret[n].name), "%s%s", PMAPI_ERROR_PREFIX, suffix);
                n++;
        }
        fclose(f);
        return n;
}

/* Every `#define PM_E<X> <number>` of pmapi.h. */
static size_t parse_pm_codes(Parsed *ret, size_t max) {
        FILE *f = open_source("include/pmapi.h");
        char line[512];
        size_t n = 0;

        while (fgets(line, sizeof(line), f)) {
                char rest[64];
                int value;

                if (sscanf(line, "#define PM_E%63s %d", rest, &value) != 2)
                        continue;
                assert_true(n < max);
                (void) snprintf(ret[n].name, sizeof(ret[n].name), "PM_E%s", rest);
                ret[n].value = value;
                n++;
        }
        fclose(f);
        return n;
}

static void test_header_error_names_are_all_parsed(void **state) {
        Parsed parsed[MAX_PARSED];
        size_t n = parse_error_names(parsed, MAX_PARSED);

        for (size_t i = 0; i < ELEMENTSOF(known_error_names); i++) {
                bool found = false;
                for (size_t j = 0; j < n; j++)
                        found = found || strcmp(parsed[j].name, known_error_names[i]) == 0;
                if (!found)
                        fail_msg("'%s' not found by the bus-names.h parser", known_error_names[i]);
        }
}

static void test_every_bus_error_name_maps_to_a_pm_code(void **state) {
        Parsed parsed[MAX_PARSED];
        size_t n = parse_error_names(parsed, MAX_PARSED);

        assert_true(n >= ELEMENTSOF(known_error_names));
        for (size_t i = 0; i < n; i++) {
                int code = error_map_lookup(parsed[i].name);
                if (code <= 0)
                        fail_msg("'%s' has no PM code in pmapi/error-map.c", parsed[i].name);
                if (strcmp(pm_strerror(NULL, code), UNKNOWN_CODE_TEXT) == 0)
                        fail_msg("'%s' maps to %d, which has no message", parsed[i].name, code);
        }
}

static void test_distinct_bus_error_names_map_to_distinct_codes(void **state) {
        Parsed parsed[MAX_PARSED];
        size_t n = parse_error_names(parsed, MAX_PARSED);

        assert_true(n >= ELEMENTSOF(known_error_names));
        for (size_t i = 0; i < n; i++)
                for (size_t j = i + 1; j < n; j++)
                        if (error_map_lookup(parsed[i].name) == error_map_lookup(parsed[j].name))
                                fail_msg("'%s' and '%s' both map to %d", parsed[i].name, parsed[j].name,
                                         error_map_lookup(parsed[i].name));
}

static void test_unlisted_name_has_no_code(void **state) {
        assert_int_equal(error_map_lookup("org.example.Nope"), 0);
        assert_int_equal(error_map_lookup(PMAPI_ERROR_PREFIX), 0);
        assert_int_equal(error_map_lookup(""), 0);
}

static void test_every_pm_code_in_header_is_known(void **state) {
        Parsed parsed[MAX_PARSED];
        size_t n = parse_pm_codes(parsed, MAX_PARSED);

        assert_int_equal(n, ELEMENTSOF(known_codes));
        for (size_t i = 0; i < n; i++) {
                bool found = false;
                for (size_t j = 0; j < ELEMENTSOF(known_codes); j++)
                        if (strcmp(parsed[i].name, known_codes[j].name) == 0) {
                                assert_int_equal(parsed[i].value, known_codes[j].code);
                                found = true;
                        }
                if (!found)
                        fail_msg("%s = %d in pmapi.h is not in this test's table", parsed[i].name,
                                 parsed[i].value);
        }
}

static void test_every_pm_code_has_its_own_message(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(known_codes); i++) {
                const char *m = pm_strerror((char *) "test", known_codes[i].code);

                assert_non_null(m);
                if (strcmp(m, UNKNOWN_CODE_TEXT) == 0 || m[0] == '\0')
                        fail_msg("%s (%d) has no message", known_codes[i].name, known_codes[i].code);
                for (size_t j = 0; j < i; j++)
                        if (strcmp(m, pm_strerror(NULL, known_codes[j].code)) == 0)
                                fail_msg("%s and %s share a message", known_codes[i].name,
                                         known_codes[j].name);
        }
}

static void test_unknown_codes_say_unknown(void **state) {
        static const int unknown[] = { -1, 1000, 42, 58, 60, 84, 86, -59, -13, 2147483647 };

        for (size_t i = 0; i < ELEMENTSOF(unknown); i++)
                assert_string_equal(pm_strerror((char *) "x", unknown[i]), UNKNOWN_CODE_TEXT);
        assert_string_equal(pm_strerror(NULL, -2147483647 - 1), UNKNOWN_CODE_TEXT);
}

/* What pm_error(where, code) writes to stderr. */
static char *capture_pm_error(const char *where, int code) {
        static char buf[1024];
        int p[2], saved;
        ssize_t n;

        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        saved = dup(STDERR_FILENO);
        assert_true(saved >= 0);
        (void) fflush(stderr);
        assert_int_equal(dup2(p[1], STDERR_FILENO), STDERR_FILENO);
        close(p[1]);

        pm_error((char *) where, code);
        (void) fflush(stderr);

        assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
        close(saved);
        n = read(p[0], buf, sizeof(buf) - 1);   /* every writer is closed: one read gets it all */
        close(p[0]);
        assert_true(n >= 0);
        buf[n] = '\0';
        return buf;
}

static void test_pm_error_prints_where_and_message(void **state) {
        char want[1024];

        (void) snprintf(want, sizeof(want), "pm_start_mythread: %s\n", pm_strerror(NULL, PM_EEVENT));
        assert_string_equal(capture_pm_error("pm_start_mythread", PM_EEVENT), want);

        (void) snprintf(want, sizeof(want), "here: %s\n", UNKNOWN_CODE_TEXT);
        assert_string_equal(capture_pm_error("here", 42), want);

        (void) snprintf(want, sizeof(want), "pmapi: %s\n", pm_strerror(NULL, PM_ENODAEMON));
        assert_string_equal(capture_pm_error(NULL, PM_ENODAEMON), want);
}

static void test_daemon_errnos_reach_the_right_pm_codes(void **state) {
        static const struct {
                int error;
                int pm_code;
        } table[] = {
                { -ESRCH,   PM_ENOTHREAD },
                { -EEXIST,  PM_EEXIST },
                { -ENODATA, PM_ENOCONTEXT },
                { -ENOLINK, PM_ENOGROUP },
                { -EBUSY,   PM_EEXIST },
                { -EDQUOT,  PM_ELIMIT },
                { -ENFILE,  PM_ELIMIT },
                { -EPERM,   PM_EPERM },
                { -EACCES,  PM_EKERNELMODE },
                { -ENODEV,  PM_EOPEN },
                { -ENOMEM,  PM_ENOMEM },
        };

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
                const char *name = bus_error_name_from_errno(table[i].error);

                assert_non_null(name);
                if (error_map_lookup(name) != table[i].pm_code)
                        fail_msg("errno %d -> '%s' -> %d, expected %d", -table[i].error, name,
                                 error_map_lookup(name), table[i].pm_code);

                /* The handler's path gives the same name, a message, and a negative return. */
                assert_true(bus_error_thread(&e, table[i].error, 4242, 4243) < 0);
                assert_string_equal(e.name, name);
                assert_non_null(e.message);
                assert_non_null(strstr(e.message, "4243"));
                assert_int_equal(error_map_from_bus(&e, -EIO), table[i].pm_code);
        }
}

/* Each refusal of the access rule reaches the library as its own code, with its reason. */
static void test_access_refusals_reach_their_own_pm_codes(void **state) {
        static const struct {
                AccessVerdict verdict;
                int pm_code;
        } table[] = {
                { ACCESS_DENIED_OTHER_USER,   PM_ENOTOWNER },
                { ACCESS_DENIED_OTHER_GROUP,  PM_ENOTOWNER },
                { ACCESS_DENIED_SET_ID,       PM_ESETID },
                { ACCESS_DENIED_NOT_DUMPABLE, PM_ENOTDUMPABLE },
                { ACCESS_DENIED_YAMA,         PM_EPTRACESCOPE },
                { ACCESS_DENIED_DAEMON,       PM_EDAEMONTHREAD },
        };

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;

                assert_true(bus_error_target(&e, -EPERM, table[i].verdict, 4242, 4243) < 0);
                assert_non_null(strstr(e.message, access_verdict_reason(table[i].verdict)));
                assert_non_null(strstr(e.message, "4243"));
                assert_int_equal(error_map_from_bus(&e, -EIO), table[i].pm_code);
        }
        /* -EPERM without a refusal is perf refused by perf_event_paranoid, as before. */
        {
                _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
                assert_true(bus_error_target(&e, -EPERM, ACCESS_SELF, 4242, 4243) < 0);
                assert_int_equal(error_map_from_bus(&e, -EIO), PM_EPERM);
        }
}

static void test_unmapped_errno_reaches_the_library_as_daemon_error(void **state) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;

        assert_string_equal(bus_error_name_from_errno(-EIO), SD_BUS_ERROR_FAILED);
        assert_int_equal(error_map_lookup(SD_BUS_ERROR_FAILED), 0);
        assert_true(bus_error_thread(&e, -EIO, 1, 2) < 0);
        assert_true(sd_bus_error_is_set(&e));
        assert_int_equal(error_map_from_bus(&e, -EIO), PM_EDAEMON);
}

static void test_program_errors_reach_the_right_pm_codes(void **state) {
        static const struct {
                ProgramError error;
                int pm_code;
        } table[] = {
                { PROGRAM_UNKNOWN_EVENT, PM_EEVENT },
                { PROGRAM_INVALID_MODE,  PM_EMODE },
                { PROGRAM_CONFLICTING_MODE, PM_EMODE },
                { PROGRAM_THRESHOLD,     PM_ETHRESH },
                { PROGRAM_HYPERVISOR,    PM_EHYPERVISOR },
                { PROGRAM_FOREIGN_LAYOUT, PM_EMODELAYOUT },
                { PROGRAM_UNKNOWN_GROUP, PM_EGROUPS },
                { PROGRAM_NO_EVENTS,     PM_ENOEVENTS },
                { PROGRAM_BAD_SLICE,     PM_EMXSLICE },
                { PROGRAM_BAD_SETS,      PM_EMXSETS },
                { PROGRAM_SET_MODES_DISAGREE, PM_EMXMODE },
        };

        /* One row per ProgramError other than PROGRAM_OK. */
        assert_int_equal(ELEMENTSOF(table), _PROGRAM_ERROR_MAX - 1);
        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;

                assert_true(bus_error_program(&e, table[i].error, 3) < 0);
                assert_true(sd_bus_error_is_set(&e));
                assert_non_null(e.message);
                if (error_map_lookup(e.name) != table[i].pm_code)
                        fail_msg("ProgramError %d -> '%s' -> %d, expected %d", (int) table[i].error, e.name,
                                 error_map_lookup(e.name), table[i].pm_code);
                assert_int_equal(error_map_from_bus(&e, -EIO), table[i].pm_code);
        }
}

static void test_unknown_event_message_names_the_counter(void **state) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;

        assert_true(bus_error_program(&e, PROGRAM_UNKNOWN_EVENT, 5) < 0);
        assert_string_equal(e.name, PMAPI_ERROR_UNKNOWN_EVENT);
        assert_non_null(strstr(e.message, "Counter 5 "));
}

static void test_program_ok_is_not_a_named_error(void **state) {
        _cleanup_(sd_bus_error_free) sd_bus_error a = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error b = SD_BUS_ERROR_NULL;

        assert_true(bus_error_program(&a, PROGRAM_OK, 0) < 0);
        assert_string_equal(a.name, SD_BUS_ERROR_FAILED);
        assert_int_equal(error_map_from_bus(&a, -EIO), PM_EDAEMON);
        assert_true(bus_error_program(&b, _PROGRAM_ERROR_MAX, 0) < 0);
        assert_string_equal(b.name, SD_BUS_ERROR_FAILED);
}

static void test_unset_error_maps_from_errno(void **state) {
        sd_bus_error unset = SD_BUS_ERROR_NULL;

        assert_int_equal(error_map_from_bus(&unset, -ENOENT), PM_ENODAEMON);
        assert_int_equal(error_map_from_bus(&unset, -ECONNREFUSED), PM_ENODAEMON);
        assert_int_equal(error_map_from_bus(&unset, -ETIMEDOUT), PM_ENODAEMON);
        assert_int_equal(error_map_from_bus(&unset, -ENOMEM), PM_ENOMEM);
        assert_int_equal(error_map_from_bus(NULL, -ENOENT), PM_ENODAEMON);
        assert_int_equal(error_map_from_errno(-ENOMEM), PM_ENOMEM);
        assert_int_equal(error_map_from_errno(-ENOENT), PM_ENODAEMON);
}

static void test_set_error_maps_by_name(void **state) {
        static const struct {
                const char *name;
                int pm_code;
        } table[] = {
                { "org.example.Unknown",                PM_EDAEMON },
                { PMAPI_ERROR_PREFIX "NotARealError",   PM_EDAEMON },
                { SD_BUS_ERROR_FAILED,                  PM_EDAEMON },
                { PMAPI_ERROR_CONTEXT_EXISTS,           PM_EEXIST },
                { SD_BUS_ERROR_SERVICE_UNKNOWN,         PM_ENODAEMON },
                { SD_BUS_ERROR_NAME_HAS_NO_OWNER,       PM_ENODAEMON },
                { SD_BUS_ERROR_NO_REPLY,                PM_ENODAEMON },
                { SD_BUS_ERROR_ACCESS_DENIED,           PM_EPERM },
        };

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;

                assert_true(sd_bus_error_set(&e, table[i].name, "message") < 0);
                /* The errno sd-bus returned must not matter once a name is set. */
                if (error_map_from_bus(&e, -ENOENT) != table[i].pm_code)
                        fail_msg("'%s' -> %d, expected %d", table[i].name, error_map_from_bus(&e, -ENOENT),
                                 table[i].pm_code);
                assert_int_equal(error_map_from_bus(&e, -ENOMEM), table[i].pm_code);
        }
}

/* "Context exists" is 59 unless the process asks for AIX 5's 13 (PMAPI_EEXIST=13, for old PAPI);
 * any other value of the variable leaves 59, and no other code changes. */
static void test_context_exists_is_59_or_13_on_request(void **state) {
        static const struct { const char *env; int code; } table[] = {
                { NULL, PM_EEXIST }, { "13", PM_EEXIST_AIX5 }, { "59", PM_EEXIST }, { "", PM_EEXIST },
                { "13 ", PM_EEXIST }, { "yes", PM_EEXIST },
        };
        _cleanup_(sd_bus_error_free) sd_bus_error exists = SD_BUS_ERROR_NULL, other = SD_BUS_ERROR_NULL;

        assert_true(sd_bus_error_set(&exists, PMAPI_ERROR_CONTEXT_EXISTS, "m") < 0);
        assert_true(sd_bus_error_set(&other, PMAPI_ERROR_NO_CONTEXT, "m") < 0);
        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                if (table[i].env)
                        assert_int_equal(setenv("PMAPI_EEXIST", table[i].env, 1), 0);
                else
                        assert_int_equal(unsetenv("PMAPI_EEXIST"), 0);
                assert_int_equal(error_map_from_bus(&exists, -EEXIST), table[i].code);
                assert_int_equal(error_map_from_bus(&other, -ENOENT), PM_ENOCONTEXT);
        }
        assert_int_equal(unsetenv("PMAPI_EEXIST"), 0);
        assert_int_equal(PM_EEXIST_AIX5, 13);
        assert_string_not_equal(pm_strerror(NULL, 13), UNKNOWN_CODE_TEXT);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_context_exists_is_59_or_13_on_request),
                cmocka_unit_test(test_header_error_names_are_all_parsed),
                cmocka_unit_test(test_every_bus_error_name_maps_to_a_pm_code),
                cmocka_unit_test(test_distinct_bus_error_names_map_to_distinct_codes),
                cmocka_unit_test(test_unlisted_name_has_no_code),
                cmocka_unit_test(test_every_pm_code_in_header_is_known),
                cmocka_unit_test(test_every_pm_code_has_its_own_message),
                cmocka_unit_test(test_unknown_codes_say_unknown),
                cmocka_unit_test(test_pm_error_prints_where_and_message),
                cmocka_unit_test(test_daemon_errnos_reach_the_right_pm_codes),
                cmocka_unit_test(test_access_refusals_reach_their_own_pm_codes),
                cmocka_unit_test(test_unmapped_errno_reaches_the_library_as_daemon_error),
                cmocka_unit_test(test_program_errors_reach_the_right_pm_codes),
                cmocka_unit_test(test_unknown_event_message_names_the_counter),
                cmocka_unit_test(test_program_ok_is_not_a_named_error),
                cmocka_unit_test(test_unset_error_maps_from_errno),
                cmocka_unit_test(test_set_error_maps_by_name),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
