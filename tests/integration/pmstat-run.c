/* pmstat-run.c: see pmstat-run.h. */
#include <grp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "pmstat-run.h"

void pmstat_start(uid_t uid, const char *const *args, PmstatProc *p) {
        const char *pmstat = getenv("PMAPI_PMSTAT");
        const char *argv[64];
        size_t n = 0;

        assert_non_null(pmstat);
        argv[n++] = pmstat;
        for (; *args && n < 63; args++)
                argv[n++] = *args;
        argv[n] = NULL;
        p->out = memfd_create("pmstat-out", MFD_CLOEXEC);
        p->err = memfd_create("pmstat-err", MFD_CLOEXEC);
        assert_true(p->out >= 0 && p->err >= 0);
        p->pid = fork();
        assert_true(p->pid >= 0);
        if (p->pid == 0) {
                if (dup2(p->out, STDOUT_FILENO) < 0 || dup2(p->err, STDERR_FILENO) < 0)
                        _exit(120);
                if (uid != 0 && (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 ||
                                 setresuid(uid, uid, uid) < 0))
                        _exit(121);
                execv(pmstat, (char **) argv);
                _exit(122);
        }
}

static void read_back(int fd, char *buf, size_t size) {
        ssize_t n = pread(fd, buf, size - 1, 0);
        buf[n > 0 ? n : 0] = '\0';
        close(fd);
}

void pmstat_finish(PmstatProc *p, PmstatRun *run) {
        int status;

        assert_int_equal(waitpid(p->pid, &status, 0), p->pid);
        run->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        read_back(p->out, run->out, sizeof(run->out));
        read_back(p->err, run->err, sizeof(run->err));
        if (run->status != 0)
                printf("# pmstat -> %d\n# stderr: %s", run->status, run->err);
}

void pmstat_run(uid_t uid, PmstatRun *run, const char *const *args) {
        PmstatProc p;

        pmstat_start(uid, args, &p);
        pmstat_finish(&p, run);
}

void pmstat_wait_for_output(int fd) {
        struct stat st;

        for (int i = 0; i < 5000; i++) {
                assert_int_equal(fstat(fd, &st), 0);
                if (st.st_size > 0)
                        return;
                (void) nanosleep(&(struct timespec) { .tv_nsec = 1000 * 1000 }, NULL);
        }
        fail_msg("pmstat wrote nothing within 5 s");
}

JsonNode *pmstat_parse_json(const char *text) {
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
        g_autoptr(JsonArray) intervals = json_array_new();
        g_autoptr(JsonNode) header = NULL, run = NULL, error_line = NULL;
        JsonNode *doc;
        JsonObject *o;
        size_t n = 0;

        for (char **l = lines; *l; l++) {
                g_autoptr(JsonParser) parser = json_parser_new();
                g_autoptr(GError) error = NULL;
                JsonObject *line;

                if (**l == '\0')
                        continue;
                if (!json_parser_load_from_data(parser, *l, -1, &error))
                        fail_msg("pmstat printed a line that is no JSON document (%s): %s", error->message, *l);
                line = json_node_get_object(json_parser_get_root(parser));
                assert_non_null(line);
                if (n++ == 0)
                        header = json_node_copy(json_parser_get_root(parser));
                else if (json_object_has_member(line, "interval"))
                        json_array_add_element(intervals, json_node_copy(json_object_get_member(line, "interval")));
                else if (json_object_has_member(line, "run"))
                        run = json_node_copy(json_object_get_member(line, "run"));
                else if (json_object_has_member(line, "error"))
                        error_line = json_node_copy(json_object_get_member(line, "error"));
                else
                        fail_msg("pmstat printed an unexpected JSON line: %s", *l);
        }
        if (!header)
                fail_msg("pmstat printed no JSON: %s", text);
        doc = json_node_copy(header);
        o = json_node_get_object(doc);
        json_object_set_array_member(o, "intervals", json_array_ref(intervals));
        if (run)
                json_object_set_member(o, "run", g_steal_pointer(&run));
        if (error_line)
                json_object_set_member(o, "error", g_steal_pointer(&error_line));
        return doc;
}

long long pmstat_counted_fully(JsonObject *o) {
        long long enabled = json_object_get_int_member(o, "enabled_ns");

        assert_int_equal(json_object_get_int_member(o, "running_ns"), enabled);
        assert_true(json_object_get_double_member(o, "percent_running") == 100.0);
        assert_true(json_object_get_boolean_member(o, "counted"));
        return enabled;
}

void pmstat_check_intervals(JsonArray *intervals, const char *event, int cpu, long long *ret_cpu,
                            long long *ret_others) {
        long long on_cpu = 0, others = 0, last_time = 0;

        for (guint i = 0; i < json_array_get_length(intervals); i++) {
                JsonObject *iv = json_array_get_object_element(intervals, i);
                JsonArray *cpus = json_object_get_array_member(iv, "cpus");
                long long sum = 0, enabled = 0, time = json_object_get_int_member(iv, "time_ns");

                assert_int_equal(json_object_get_int_member(iv, "index"), i + 1);
                assert_true(time > last_time);
                assert_int_equal(json_object_get_int_member(iv, "duration_ns"), time - last_time);
                last_time = time;
                assert_true(json_array_get_length(cpus) >= 1);
                for (guint k = 0; k < json_array_get_length(cpus); k++) {
                        JsonObject *row = json_array_get_object_element(cpus, k);
                        long long n = json_object_get_int_member(json_object_get_object_member(row, "counts"), event);
                        int id = (int) json_object_get_int_member(row, "cpu");

                        assert_in_range(id, 0, sysconf(_SC_NPROCESSORS_CONF) - 1);
                        assert_true(json_object_get_boolean_member(row, "online"));
                        assert_true(n >= 0);
                        enabled += pmstat_counted_fully(row);
                        sum += n;
                        if (id == cpu)
                                on_cpu += n;
                        else
                                others += n;
                }
                assert_int_equal(json_object_get_int_member(json_object_get_object_member(iv, "total"), event), sum);
                assert_int_equal(pmstat_counted_fully(json_object_get_object_member(iv, "total_times")),
                                 enabled);
        }
        *ret_cpu = on_cpu;
        *ret_others = others;
}
