/* tool-run.c: see tool-run.h. */
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "tool-run.h"
#include "workload.h"

void tool_run_start(ToolRun *r, uid_t uid, int stdin_fd, const char *const *argv) {
        *r = (ToolRun) { .status = -1 };
        r->out_fd = memfd_create("tool-out", MFD_CLOEXEC);
        r->err_fd = memfd_create("tool-err", MFD_CLOEXEC);
        assert_true(r->out_fd >= 0 && r->err_fd >= 0);
        r->pid = fork();
        assert_true(r->pid >= 0);
        if (r->pid == 0) {
                int in = stdin_fd >= 0 ? stdin_fd : open("/dev/null", O_RDONLY);

                if (in < 0 || dup2(in, STDIN_FILENO) < 0 || dup2(r->out_fd, STDOUT_FILENO) < 0 ||
                    dup2(r->err_fd, STDERR_FILENO) < 0)
                        _exit(99);
                /* The tools follow the locale: one that knows UTF-8, as users have. */
                if (setenv("LC_ALL", "C.UTF-8", 1) < 0)
                        _exit(99);
                if (uid != 0 && (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 ||
                                 setresuid(uid, uid, uid) < 0))
                        _exit(98);
                execv(argv[0], (char **) argv);
                _exit(97);
        }
}

static char *read_all(int fd) {
        struct stat st;
        char *buf;
        ssize_t n;

        assert_int_equal(fstat(fd, &st), 0);
        buf = calloc(1, (size_t) st.st_size + 1);
        assert_non_null(buf);
        n = pread(fd, buf, (size_t) st.st_size, 0);
        assert_int_equal(n, st.st_size);
        close(fd);
        return buf;
}

void tool_run_wait(ToolRun *r) {
        int status;

        assert_int_equal(waitpid(r->pid, &status, 0), r->pid);
        r->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        r->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        r->out = read_all(r->out_fd);
        r->err = read_all(r->err_fd);
}

void tool_run_done(ToolRun *r) {
        free(r->out);
        free(r->err);
        free(r->command);
        *r = (ToolRun) {};
}

void tool_run(ToolRun *r, uid_t uid, const char *const *argv) {
        tool_run_start(r, uid, -1, argv);
        tool_run_wait(r);
}

__attribute__((format(printf, 5, 0)))
static void tool_runv_start(ToolRun *r, uid_t uid, const char *env, const char *program, const char *format,
                            va_list ap) {
        char line[512], words[512], *word, *next;
        const char *argv[40], *name;
        int argc = 0;

        assert_non_null(program);
        vsnprintf(line, sizeof(line), format, ap);
        if (env) {
                argv[argc++] = "/usr/bin/env";
                argv[argc++] = env;
        }
        argv[argc++] = program;
        memcpy(words, line, sizeof(words));             /* strsep cuts words; line stays whole */
        for (next = words; (word = strsep(&next, " ")) && argc + 1 < (int) G_N_ELEMENTS(argv); )
                if (*word)
                        argv[argc++] = word;
        argv[argc] = NULL;
        tool_run_done(r);
        tool_run_start(r, uid, -1, argv);
        name = strrchr(program, '/') ? strrchr(program, '/') + 1 : program;
        assert_true(asprintf(&r->command, "%s %s", name, line) >= 0);
}

void tool_runf_start(ToolRun *r, uid_t uid, const char *env, const char *program, const char *format, ...) {
        va_list ap;

        va_start(ap, format);
        tool_runv_start(r, uid, env, program, format, ap);
        va_end(ap);
}

int tool_runf_wait(ToolRun *r) {
        tool_run_wait(r);
        if (r->status != 0)
                printf("# %s -> %d\n# stderr: %s", r->command, r->status, r->err);
        return r->status;
}

void tool_runf(ToolRun *r, uid_t uid, const char *env, const char *program, const char *format, ...) {
        va_list ap;

        va_start(ap, format);
        tool_runv_start(r, uid, env, program, format, ap);
        va_end(ap);
        (void) tool_runf_wait(r);
}

int tool_fixture_start(BusFixture *f, const char *program_env, int filter, pm_info_t *ret_info) {
        const char *const shared[] = { program_env, NULL };
        int r;

        r = bus_fixture_start(f, NULL);
        if (r == 0)
                r = bus_fixture_share_programs(f, shared);
        return r == 0 ? pm_init(filter, ret_info) : r;
}

/* ---- what the tools print ---- */

JsonNode *parse_json(const char *text) {
        g_autoptr(JsonParser) parser = json_parser_new();
        g_autoptr(GError) error = NULL;

        if (!json_parser_load_from_data(parser, text, -1, &error))
                fail_msg("the tool printed no valid JSON (%s): %s", error->message, text);
        return json_node_copy(json_parser_get_root(parser));
}

JsonObject *counter_at(JsonObject *doc, guint i) {
        JsonArray *counters = json_object_get_array_member(doc, "counters");
        assert_true(i < json_array_get_length(counters));
        return json_array_get_object_element(counters, i);
}

JsonObject *list_entry(JsonArray *list, pid_t tid) {
        for (guint i = 0; i < json_array_get_length(list); i++) {
                JsonObject *e = json_array_get_object_element(list, i);
                if (json_object_get_int_member(e, "tid") == tid)
                        return e;
        }
        return NULL;
}

char *squeeze_spaces(char *s) {
        char *o = s;

        for (const char *p = s; *p; p++)
                if (*p != ' ' || (o > s && o[-1] != ' ' && o[-1] != '\n'))
                        *o++ = *p;
        *o = '\0';
        return s;
}

size_t count_lines(const char *s) {
        size_t n = 0;

        for (; *s; s++)
                n += *s == '\n';
        return n;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *at) {
        (void) st, (void) type, (void) at;
        return remove(path) < 0 ? -1 : 0;
}

void tool_scratch_remove(const char *dir) {
        (void) nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
