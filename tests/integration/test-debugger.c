/* test-debugger.c: scenario S2 of the AIX programming guide with a real debugger: gdb in batch
 * mode, as an unprivileged user, runs the S1 sample to its breakpoint at point (1) and from there,
 * with `shell pmctl ...`, reads the target's program and data, deletes the context, sets a new
 * program with another event in counter 0 and continues; the sample's own later calls work on the
 * new context and it prints what that counted. Variant: the target never called pm_* (it is not
 * even linked with libpmapi): reads fail with "no context", the set succeeds, and the target then
 * counts only the new program. The counts are checked against the pages the programs touch. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <json-glib/json-glib.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "pmapi.h"

#define NOBODY 65534
#define S1_PAGES 4000                   /* half before the breakpoint, half after */
#define S1_SLEEPS 50

static BusFixture fixture;
static char dir[300];                   /* gdb's scripts and pmctl's outputs, writable by nobody */

static void write_file(const char *name, const char *text) {
        char path[400];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        f = fopen(path, "we");
        assert_non_null(f);
        fputs(text, f);
        assert_int_equal(fclose(f), 0);
        assert_int_equal(chmod(path, 0644), 0);
}

static char *read_file(const char *name) {
        char path[400];
        gchar *text = NULL;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        if (!g_file_get_contents(path, &text, NULL, NULL))
                fail_msg("%s was not written", path);
        return text;
}

/* Runs `gdb -batch -x script --args argv...` as nobody, its output (and the target's) into out. */
static int run_gdb_as_nobody(const char *script, const char *const *argv, char **out) {
        char script_path[400], out_path[400];
        const char *args[16] = { "/usr/bin/gdb", "-batch", "-nx", "-x", script_path, "--args" };
        int status, fd;
        size_t n = 6;
        pid_t pid;

        snprintf(script_path, sizeof(script_path), "%s/%s", dir, script);
        snprintf(out_path, sizeof(out_path), "%s/%s.out", dir, script);
        for (; *argv && n < 15; argv++)
                args[n++] = *argv;
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
                        _exit(126);
                if (setgroups(0, NULL) < 0 || setresgid(NOBODY, NOBODY, NOBODY) < 0 ||
                    setresuid(NOBODY, NOBODY, NOBODY) < 0)
                        _exit(126);
                setenv("HOME", dir, 1);
                setenv("SHELL", "/bin/sh", 1);
                execv(args[0], (char **) args);
                _exit(127);
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        snprintf(script_path, sizeof(script_path), "%s.out", script);
        *out = read_file(script_path);
        fprintf(stderr, "%s", *out);            /* into the test log */
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static JsonObject *parse_object(const char *name, JsonParser **ret_parser) {
        g_autofree char *text = read_file(name);
        JsonParser *p = json_parser_new();
        JsonNode *root;

        if (!json_parser_load_from_data(p, text, -1, NULL))
                fail_msg("%s does not parse as JSON: %s", name, text);
        root = json_parser_get_root(p);
        assert_true(JSON_NODE_HOLDS_OBJECT(root));
        *ret_parser = p;
        return json_node_get_object(root);
}

/* The programmed counter `counter` of a pmctl program/data document. */
static JsonObject *counter_of(JsonObject *doc, int counter) {
        JsonArray *a = json_object_get_array_member(doc, "counters");

        for (guint i = 0; i < json_array_get_length(a); i++) {
                JsonObject *c = json_array_get_object_element(a, i);
                if (json_object_get_int_member(c, "counter") == counter)
                        return c;
        }
        fail_msg("counter %d is not programmed", counter);
        return NULL;
}

/* The sample's line "<ctr> <event> <counted>" for a counter, after "changed from outside". */
static long long s1_counted(const char *out, int counter, const char *event) {
        const char *p = strstr(out, "changed from outside");
        char want[64], line[256];

        assert_non_null(p);
        snprintf(want, sizeof(want), "%d %s", counter, event);
        for (; (p = strchr(p, '\n')); p++) {
                long long v;
                int ctr;
                char name[64];

                snprintf(line, sizeof(line), "%.*s", (int) strcspn(p + 1, "\n"), p + 1);
                if (sscanf(line, "%d %63s %lld", &ctr, name, &v) == 3 && ctr == counter &&
                    strcmp(name, event) == 0)
                        return v;
        }
        fail_msg("S1 printed no row '%s'", want);
        return -1;
}

#define S2_SCRIPT                                                                                  \
        "set pagination off\n"                                                                     \
        "set confirm off\n"                                                                        \
        "set startup-with-shell off\n"                                                             \
        "break s1_breakpoint\n"                                                                    \
        "run\n"                                                                                    \
        "python\n"                                                                                 \
        "pid = gdb.selected_inferior().pid\n"                                                      \
        "tid = gdb.selected_thread().ptid[1]\n"                                                    \
        "def pmctl(args, out=None):\n"                                                             \
        "    gdb.execute('shell %%s %%s %%d %%d%%s' %% ('%s', args[0], pid, tid, args[1]))\n"      \
        "pmctl(('program', ''))\n"                                                                 \
        "pmctl(('--json program', ' > %s/program.json'))\n"                                        \
        "pmctl(('data', ''))\n"                                                                    \
        "pmctl(('--json data', ' > %s/before.json'))\n"                                            \
        "pmctl(('delete', ''))\n"                                                                  \
        "pmctl(('set', ' -e PM_MINOR_FLT,PM_MINOR_FLT,PM_CTX_SW,PM_TASK_CLOCK -m user,kernel,count'))\n" \
        "pmctl(('--json data', ' > %s/after-set.json'))\n"                                         \
        "end\n"                                                                                    \
        "continue\n"

static void test_s2_debugger_reprograms_s1_at_its_breakpoint(void **state) {
        const char *pmctl = getenv("PMAPI_PMCTL"), *s1 = getenv("PMAPI_S1");
        char script[4096], pages[16], sleeps[16];
        g_autoptr(JsonParser) p1 = NULL, p2 = NULL, p3 = NULL;
        g_autofree char *out = NULL;
        JsonObject *program, *before, *after;

        (void) state;
        assert_non_null(pmctl);
        assert_non_null(s1);
        snprintf(script, sizeof(script), S2_SCRIPT, pmctl, dir, dir, dir);
        write_file("s2.gdb", script);
        snprintf(pages, sizeof(pages), "%d", S1_PAGES);
        snprintf(sleeps, sizeof(sleeps), "%d", S1_SLEEPS);
        const char *argv[] = { s1, "--pages", pages, "--sleeps", sleeps, NULL };
        assert_int_equal(run_gdb_as_nobody("s2.gdb", argv, &out), 0);

        /* At the breakpoint: S1's own program, counting, and half of its work counted. */
        program = parse_object("program.json", &p1);
        assert_true(json_object_get_boolean_member(program, "counting"));
        assert_string_equal(json_object_get_string_member(counter_of(program, 0), "name"), "PM_PAGE_FLT");
        assert_string_equal(json_object_get_string_member(counter_of(program, 1), "name"), "PM_MINOR_FLT");
        assert_string_equal(json_object_get_string_member(counter_of(program, 2), "name"), "PM_CTX_SW");
        assert_string_equal(json_object_get_string_member(counter_of(program, 3), "name"), "PM_TASK_CLOCK");
        before = parse_object("before.json", &p2);
        assert_in_range(json_object_get_int_member(counter_of(before, 0), "value"), S1_PAGES / 2,
                        S1_PAGES / 2 + 10);
        /* The new context starts at zero while the target is stopped. */
        after = parse_object("after-set.json", &p3);
        assert_string_equal(json_object_get_string_member(counter_of(after, 0), "name"), "PM_MINOR_FLT");
        assert_int_equal(json_object_get_int_member(counter_of(after, 0), "value"), 0);
        assert_int_equal(json_object_get_int_member(counter_of(after, 3), "value"), 0);

        /* After continue, S1's own stop/read/delete worked on the new context: counter 0 counted
         * the second half in minor faults, the same as counter 1. */
        assert_in_range(s1_counted(out, 0, "PM_MINOR_FLT"), S1_PAGES / 2, S1_PAGES / 2 + 10);
        assert_in_range(s1_counted(out, 1, "PM_MINOR_FLT"), S1_PAGES / 2, S1_PAGES / 2 + 10);
        assert_true(s1_counted(out, 2, "PM_CTX_SW") >= S1_SLEEPS);
        assert_true(s1_counted(out, 3, "PM_TASK_CLOCK") > 0);
        assert_null(strstr(out, "pm_delete_program_mythread"));  /* no pm_error from S1 */
        assert_non_null(strstr(out, "exited normally"));
}

#define PLAIN_SCRIPT                                                                               \
        "set pagination off\n"                                                                     \
        "set confirm off\n"                                                                        \
        "set startup-with-shell off\n"                                                             \
        "break plain_breakpoint\n"                                                                 \
        "run\n"                                                                                    \
        "python\n"                                                                                 \
        "pid = gdb.selected_inferior().pid\n"                                                      \
        "gdb.execute('shell %s data %%d > %s/nodata.txt 2>&1; echo $? > %s/nodata.rc' %% pid)\n"     \
        "gdb.execute('shell %s --json program %%d > %s/noprogram.json; echo $? > %s/noprogram.rc' %% pid)\n" \
        "gdb.execute('shell %s set %%d -e PM_PAGE_FLT -m user,count' %% pid)\n"                      \
        "end\n"                                                                                    \
        "continue\n"                                                                               \
        "python\n"                                                                                 \
        "pid = gdb.selected_inferior().pid\n"                                                      \
        "gdb.execute('shell %s data %%d' %% pid)\n"                                                 \
        "gdb.execute('shell %s --json data %%d > %s/counted.json' %% pid)\n"                         \
        "gdb.execute('shell %s delete %%d' %% pid)\n"                                               \
        "end\n"                                                                                    \
        "continue\n"

static void test_s2_variant_target_never_called_pmapi(void **state) {
        const char *pmctl = getenv("PMAPI_PMCTL"), *plain = getenv("PMAPI_PLAIN_TARGET");
        char script[4096];
        g_autoptr(JsonParser) p1 = NULL, p2 = NULL;
        g_autofree char *out = NULL, *nodata = NULL, *nodata_rc = NULL, *noprogram_rc = NULL;
        JsonObject *noprogram, *counted;

        (void) state;
        assert_non_null(plain);
        snprintf(script, sizeof(script), PLAIN_SCRIPT, pmctl, dir, dir, pmctl, dir, dir, pmctl, pmctl, pmctl, dir,
                 pmctl);
        write_file("plain.gdb", script);
        const char *argv[] = { plain, "1000", "3000", NULL };
        assert_int_equal(run_gdb_as_nobody("plain.gdb", argv, &out), 0);

        nodata = read_file("nodata.txt");
        nodata_rc = read_file("nodata.rc");
        noprogram_rc = read_file("noprogram.rc");
        assert_int_equal(atoi(nodata_rc), 1);
        assert_non_null(strstr(nodata, pm_strerror(NULL, PM_ENOCONTEXT)));
        assert_int_equal(atoi(noprogram_rc), 1);
        noprogram = parse_object("noprogram.json", &p1);
        assert_false(json_object_get_boolean_member(noprogram, "ok"));
        assert_int_equal(json_object_get_int_member(noprogram, "error"), PM_ENOCONTEXT);

        /* Only what ran after the set, only in counter 0. */
        counted = parse_object("counted.json", &p2);
        assert_int_equal(json_array_get_length(json_object_get_array_member(counted, "counters")), 1);
        assert_string_equal(json_object_get_string_member(counter_of(counted, 0), "name"), "PM_PAGE_FLT");
        assert_in_range(json_object_get_int_member(counter_of(counted, 0), "value"), 3000, 3002);
        assert_non_null(strstr(out, "exited normally"));
}

static int setup(void **state) {
        (void) state;
        if (access("/usr/bin/gdb", X_OK) < 0) {
                fprintf(stderr, "# gdb is not installed (scripts/install-deps.sh installs it)\n");
                return -1;
        }
        static const char *const shared[] = { "PMAPI_PMCTL", "PMAPI_S1", "PMAPI_PLAIN_TARGET", NULL };

        if (bus_fixture_start(&fixture, NULL) != 0 || bus_fixture_share_programs(&fixture, shared) != 0)
                return -1;
        snprintf(dir, sizeof(dir), "%s/gdb", fixture.dir);
        if (mkdir(dir, 0777) < 0 || chmod(dir, 0777) < 0)
                return -1;
        return 0;
}

static int teardown(void **state) {
        char cmd[400];

        (void) state;
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        if (system(cmd) != 0)
                fprintf(stderr, "# could not remove %s\n", dir);
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_s2_debugger_reprograms_s1_at_its_breakpoint),
                cmocka_unit_test(test_s2_variant_target_never_called_pmapi),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
