/* tool-run.h: what the tests of the command-line tools share. Running a tool (or any program) as
 * they need it: as a given user, with the C.UTF-8 locale, its stdout and stderr captured whole,
 * started in the background when the test must act while it runs (-p, ^C). Reading what it
 * printed: JSON with json-glib, text tables. What pmlist must list is pmlist-expect.h, the process
 * pmctl acts on pmctl-target.h; what each tool prints and does is its own test's. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/types.h>
#include <json-glib/json-glib.h>

#include "bus-fixture.h"
#include "pmapi.h"

typedef struct ToolRun {
        pid_t pid;
        int out_fd, err_fd;             /* memfds, read back by tool_run_wait() */
        int status;                     /* exit status; -1 if it did not exit */
        int signal;                     /* the signal that killed it, or 0 */
        char *out, *err;                /* whole, NUL-terminated */
        char *command;                  /* tool_runf's words, for the log when it fails */
} ToolRun;

/* Starts argv (NULL-terminated, argv[0] a path) as uid (0: as we are), stdin from stdin_fd (-1:
 * /dev/null). Fails the running test if it cannot. */
void tool_run_start(ToolRun *r, uid_t uid, int stdin_fd, const char *const *argv);
/* Waits for it and reads back what it wrote. */
void tool_run_wait(ToolRun *r);
void tool_run_done(ToolRun *r);
/* Start and wait. */
void tool_run(ToolRun *r, uid_t uid, const char *const *argv);

/* Starts program (a path; NULL, as from an unset variable, fails the test) as uid with the words
 * of format's result, split at spaces, as its arguments, and env ("NAME=value" or NULL) added to
 * its environment by env(1). r is zeroed or holds an earlier run, which is freed. */
void tool_runf_start(ToolRun *r, uid_t uid, const char *env, const char *program, const char *format, ...)
        __attribute__((format(printf, 5, 6)));
/* Waits for it; if it failed, logs its words, status and stderr. Returns its status. */
int tool_runf_wait(ToolRun *r);
/* Start and wait. */
void tool_runf(ToolRun *r, uid_t uid, const char *env, const char *program, const char *format, ...)
        __attribute__((format(printf, 5, 6)));
/* Runs program as we are and expects it to succeed with nothing on stderr. A macro, so that a
 * failure names the test's line. */
#define tool_runf_ok(r, program, ...)                                   \
        do {                                                            \
                tool_runf(r, 0, NULL, program, __VA_ARGS__);            \
                assert_int_equal((r)->status, 0);                       \
                assert_string_equal((r)->err, "");                      \
        } while (0)

/* A group setup's work: starts the bus and pmapid, shares the program that $program_env names
 * with other users, and reads the catalog pm_init(filter) gives. 0, or nonzero on failure. */
int tool_fixture_start(BusFixture *f, const char *program_env, int filter, pm_info_t *ret_info);

/* Removes folder dir and all below it (a test's scratch folder, made by mkdtemp), following no link. */
void tool_scratch_remove(const char *dir);

/* ---- what the tools print ---- */

/* The JSON document a tool printed; fails the test if it does not parse. */
JsonNode *parse_json(const char *text);
/* Counter i of a pmctl document's "counters". */
JsonObject *counter_at(JsonObject *doc, guint i);
/* The entry of a pmctl --json list for thread tid, or NULL. */
JsonObject *list_entry(JsonArray *list, pid_t tid);
/* s with each run of spaces made one, and none at the start of a line: table cells, one space apart. */
char *squeeze_spaces(char *s);
size_t count_lines(const char *s);
