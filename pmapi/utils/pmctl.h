/* pmctl.h: what pmctl's command line (pmctl.c) hands to the commands that print: list, program and
 * one read of data (pmctl-show.c), members (pmctl-members.c) and data -I (pmctl-watch.c). */
#pragma once

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "json-writer.h"
#include "pmapi.h"

typedef struct Options {
        const char *verb;               /* as typed: it names the command in error messages */
        bool json;
        bool group;                     /* the target thread's counting group, not its own context */
        const char *events;             /* set: -e */
        const char *mode;               /* set: -m */
        int mode_bits;                  /* set: the mode word -m gives */
        unsigned interval_ms;           /* data: -I, or 0 for one read */
        unsigned count;                 /* data -I: -c, or 0 for no end */
        const char *output;             /* -o FILE, or NULL */
        FILE *out;                      /* where the output goes: stdout or FILE */
        pid_t pid;
        tid_t tid;
        const pm_groups_info_t *groups; /* pm_init's event groups, which name a group program's events */
} Options;

/* Says on stderr (and with --json also in the output) why the command failed; returns
 * TOOL_EXIT_FAILED. */
int pmctl_fail(const Options *o, int pm_code);
/* The same for a failed write of the output, r a negative errno. */
int pmctl_fail_output(const Options *o, int r);

/* "thread 4242/4243" or "group of thread 4242/4243": what the command acted on. */
void pmctl_print_target(const Options *o);
/* pid, tid and group members of a JSON object. */
void pmctl_json_target(JsonWriter *w, const Options *o);
/* The program of the thread's context, or of its group; 0 or a PM_E* code. A program of an event
 * group (mode.b.is_group, pmcount -g) comes back with the group's event on each counter, so that
 * every command names the counters as for any other program. */
int pmctl_get_program(const Options *o, pm_prog_t *prog);
/* One read of the thread's or the group's counts, with its CLOCK_MONOTONIC time in ns. */
int pmctl_read(const Options *o, pm_data_t *data, unsigned long long *ret_ns);
/* Whether a group read is partial (threads ran uncounted): the status is then TOOL_EXIT_INCOMPLETE. */
bool pmctl_partial(const Options *o, const pm_data_t *data);

int pmctl_show_list(const Options *o);
int pmctl_show_program(const Options *o, const pm_info_t *info);
int pmctl_show_data(const Options *o, const pm_info_t *info);
int pmctl_show_members(const Options *o, const pm_info_t *info);
int pmctl_watch_data(const Options *o, const pm_info_t *info);
