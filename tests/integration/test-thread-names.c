/* test-thread-names.c: thread names that are not valid UTF-8 (a character the kernel cut at 15
 * bytes, a lone 0xff, a noncharacter sd-bus refuses) reach the bus escaped as "\xNN", and names that
 * are valid UTF-8 (control characters included) exactly as set, so that GetGroupMembers and
 * GetGroupMembersPage answer instead of failing their whole reply; for live members and for the
 * records of exited ones, as root and as uid 65534. The other surfaces that show a context (the
 * Thread object's properties, ListContexts) answer too, and pmapid's log stays valid UTF-8 with no
 * line a name started. */
#include <glib.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <systemd/sd-bus.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "bus-names.h"
#include "check.h"
#include "macro.h"
#include "pmapi.h"
#include "workload.h"

#define PAGE_ROWS 3                     /* GetGroupMembersPage's max: the rows come in several pages */

static BusFixture fixture;

typedef struct Name {
        const char *set;                /* what the thread gives prctl(PR_SET_NAME) */
        const char *expected;           /* what pmapid calls it on the bus */
} Name;

static const Name names[] = {
        { "éééééééé", "ééééééé\\xc3" },                   /* 16 bytes: the kernel keeps 15 */
        { "\x1b[31mred", "\x1b[31mred" },
        { "tab\there", "tab\there" },
        { "new\nline", "new\nline" },
        { "quote\"comma,", "quote\"comma," },
        { "\xff", "\\xff" },
        { "\xef\xbf\xbf", "\\xef\\xbf\\xbf" },          /* U+FFFF: UTF-8, but sd-bus refuses it */
};
#define N_NAMES ELEMENTSOF(names)

typedef struct Named {
        pthread_barrier_t named, release;
        pid_t tids[N_NAMES];
        int rc[N_NAMES];
} Named;

typedef struct Slot {
        Named *w;
        size_t i;
} Slot;

static void *named_main(void *p) {
        Slot *s = p;
        pm_data_t d;

        /* Its context exists before it renames itself, so that pmapid applies the new name. */
        s->w->rc[s->i] = pm_get_data_mythread(&d);
        s->w->tids[s->i] = gettid();
        if (prctl(PR_SET_NAME, names[s->i].set) < 0)
                s->w->rc[s->i] = -1;
        pthread_barrier_wait(&s->w->named);
        pthread_barrier_wait(&s->w->release);
        return NULL;
}

/* The kernel keeps the names as the table says, cut to 15 bytes: the test's own premise. */
static int check_kernel_names(const Named *w) {
        for (size_t i = 0; i < N_NAMES; i++) {
                size_t len = strlen(names[i].set) < 15 ? strlen(names[i].set) : 15;
                char path[64], comm[32] = "";
                FILE *f;

                snprintf(path, sizeof(path), "/proc/self/task/%d/comm", (int) w->tids[i]);
                CHECK((f = fopen(path, "re")));
                CHECK(fread(comm, 1, sizeof(comm) - 1, f) == len + 1);
                fclose(f);
                CHECK(memcmp(comm, names[i].set, len) == 0 && comm[len] == '\n');
        }
        return 0;
}

/* Reads one page of rows (or all of them) and marks the named threads' rows in found, checking
 * their names and state. Returns 0 or 1; ret_total: the rows in all (paged), ret_n: rows read. */
static int read_rows(sd_bus *bus, bool paged, uint32_t first, const Named *w, bool alive, unsigned *found,
                     uint32_t *ret_total, uint32_t *ret_n) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        uint32_t dropped, total = 0, missed, n = 0;
        int r;

        if (paged)
                r = sd_bus_call_method(bus, PMAPI_SERVICE, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE,
                                       "GetGroupMembersPage", &error, &reply, "iiuu", (int32_t) getpid(),
                                       (int32_t) gettid(), first, (uint32_t) PAGE_ROWS);
        else
                r = sd_bus_call_method(bus, PMAPI_SERVICE, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE,
                                       "GetGroupMembers", &error, &reply, "ii", (int32_t) getpid(),
                                       (int32_t) gettid());
        if (r < 0) {
                fprintf(stderr, "%s: %s: %s\n", paged ? "GetGroupMembersPage" : "GetGroupMembers", error.name,
                        error.message);
                return 1;
        }
        CHECK(sd_bus_message_enter_container(reply, 'a', "(iisbax)") > 0);
        while ((r = sd_bus_message_enter_container(reply, 'r', "iisbax")) > 0) {
                const char *comm;
                int32_t pid, tid;
                int row_alive;

                CHECK(sd_bus_message_read(reply, "iisb", &pid, &tid, &comm, &row_alive) >= 0);
                CHECK(sd_bus_message_skip(reply, "ax") >= 0);
                CHECK(sd_bus_message_exit_container(reply) >= 0);
                CHECK(g_utf8_validate(comm, -1, NULL));
                CHECK(pid == getpid());
                for (size_t i = 0; i < N_NAMES; i++)
                        if (tid == w->tids[i]) {
                                if (strcmp(comm, names[i].expected) != 0 || !row_alive != !alive) {
                                        fprintf(stderr, "thread %d: '%s' %s, expected '%s' %s\n", tid, comm,
                                                row_alive ? "alive" : "exited", names[i].expected,
                                                alive ? "alive" : "exited");
                                        return 1;
                                }
                                found[i]++;
                        }
                n++;
        }
        CHECK(r == 0);
        CHECK(sd_bus_message_exit_container(reply) >= 0);
        if (paged)
                CHECK(sd_bus_message_read(reply, "uuu", &dropped, &total, &missed) >= 0);
        else
                CHECK(sd_bus_message_read(reply, "u", &dropped) >= 0);
        CHECK(dropped == 0);
        *ret_total = total;
        *ret_n = n;
        return 0;
}

/* The group's rows, whole and page by page: each named thread once, under its expected name. */
static int check_members(sd_bus *bus, const Named *w, bool alive) {
        unsigned found[N_NAMES] = { 0 }, found_paged[N_NAMES] = { 0 };
        uint32_t total, n, all, first = 0;

        CHECK(read_rows(bus, false, 0, w, alive, found, &total, &all) == 0);
        CHECK(all == N_NAMES + 1);              /* and the main thread */
        do {
                CHECK(read_rows(bus, true, first, w, alive, found_paged, &total, &n) == 0);
                CHECK(n <= PAGE_ROWS && total == all);
                first += n;
        } while (n > 0 && first < total);
        CHECK(first == all);
        for (size_t i = 0; i < N_NAMES; i++)
                CHECK(found[i] == 1 && found_paged[i] == 1);
        return 0;
}

/* The other surfaces that show a context answer while its thread has such a name. */
static int check_other_surfaces(sd_bus *bus, const Named *w) {
        for (size_t i = 0; i < N_NAMES; i++) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
                char path[64];

                snprintf(path, sizeof(path), PMAPI_THREAD_PREFIX "/%d", (int) w->tids[i]);
                if (sd_bus_call_method(bus, PMAPI_SERVICE, path, "org.freedesktop.DBus.Properties", "GetAll",
                                       &error, &reply, "s", PMAPI_THREAD_INTERFACE) < 0) {
                        fprintf(stderr, "GetAll %s: %s: %s\n", path, error.name, error.message);
                        return 1;
                }
        }
        CHECK(sd_bus_call_method(bus, PMAPI_SERVICE, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE,
                                 "ListContexts", NULL, NULL, "") >= 0);
        return 0;
}

/* A counting group, its threads named as the table says: their rows while they live, and the
 * records they leave once they have exited. */
static int names_body(void *arg) {
        pthread_t t[N_NAMES];
        Slot slots[N_NAMES];
        sd_bus *bus = NULL;
        pm_prog_t prog;
        Named w = { 0 };

        (void) arg;
        CHECK(page_fault_program(&prog, PM_USER | PM_COUNT) == 0);
        CHECK_RC(pm_set_program_mygroup(&prog), 0);
        CHECK(pthread_barrier_init(&w.named, NULL, N_NAMES + 1) == 0);
        CHECK(pthread_barrier_init(&w.release, NULL, N_NAMES + 1) == 0);
        for (size_t i = 0; i < N_NAMES; i++) {
                slots[i] = (Slot) { &w, i };
                CHECK(pthread_create(&t[i], NULL, named_main, &slots[i]) == 0);
        }
        pthread_barrier_wait(&w.named);
        for (size_t i = 0; i < N_NAMES; i++)
                CHECK_RC(w.rc[i], 0);
        CHECK(check_kernel_names(&w) == 0);
        CHECK(sd_bus_open_system(&bus) >= 0);
        CHECK(check_members(bus, &w, /* alive= */ true) == 0);
        CHECK(check_other_surfaces(bus, &w) == 0);

        pthread_barrier_wait(&w.release);
        for (size_t i = 0; i < N_NAMES; i++)
                pthread_join(t[i], NULL);
        /* Their contexts are gone: what is left of them are their groups' records. */
        CHECK(wait_for_context_count(1, 5000) == 0);
        CHECK(check_members(bus, &w, /* alive= */ false) == 0);
        sd_bus_flush_close_unref(bus);
        CHECK_RC(pm_delete_program_mygroup(), 0);
        return 0;
}

/* In a child of its own, as the next test's is: a failure leaves no group behind for it. */
static void test_names_reach_the_bus_escaped_as_root(void **state) {
        (void) state;
        assert_int_equal(run_as(0, 0, names_body, NULL), 0);
}

static void test_names_reach_the_bus_escaped_as_nobody(void **state) {
        (void) state;
        assert_int_equal(run_as_nobody(names_body, NULL), 0);
}

/* pmapid's debug line for each rename: valid UTF-8, and a newline in a name starts no line. */
static void test_log_lines_escape_names(void **state) {
        g_autofree char *log = NULL;
        gsize size;

        (void) state;
        assert_true(g_file_get_contents(fixture.log_path, &log, &size, NULL));
        assert_true(g_utf8_validate(log, (gssize) size, NULL));
        assert_true(bus_fixture_log_has(&fixture, "is now called 'new\\x0aline'", NULL));
        assert_true(bus_fixture_log_has(&fixture, "is now called 'ééééééé\\xc3'", NULL));
        assert_true(bus_fixture_log_has(&fixture, "is now called '\\x1b[31mred'", NULL));
        assert_null(strstr(log, "\nline'"));
}

static int setup(void **state) {
        static const char *const args[] = { "--verbose", NULL };

        (void) state;
        if (bus_fixture_start_bus(&fixture) != 0)
                return -1;
        fixture.capture_log = true;
        return bus_fixture_start_daemon(&fixture, args);
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_names_reach_the_bus_escaped_as_root),
                cmocka_unit_test(test_names_reach_the_bus_escaped_as_nobody),
                cmocka_unit_test(test_log_lines_escape_names),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
