/* pmctl.h: what pmctl's command line (pmctl.c) hands to the commands that print (pmctl-show.c). */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "pmapi.h"

#define EXIT_PM_ERROR 1                 /* pmapid or libpmapi refused or failed */
#define EXIT_USAGE    2                 /* the command line is wrong */

typedef struct Options {
        const char *verb;               /* as typed: it names the command in error messages */
        bool json;
        bool group;                     /* the target thread's counting group, not its own context */
        const char *events;             /* set: -e */
        const char *mode;               /* set: -m */
        int mode_bits;                  /* set: the mode word -m gives */
        pid_t pid;
        tid_t tid;
} Options;

/* Says on stderr (and with --json also on stdout) why the command failed; returns EXIT_PM_ERROR. */
int pmctl_fail(const Options *o, int pm_code);
/* The same for a failed write of the output, r a negative errno. */
int pmctl_fail_output(const Options *o, int r);

int pmctl_show_list(const Options *o);
int pmctl_show_program(const Options *o, const pm_info_t *info);
int pmctl_show_data(const Options *o, const pm_info_t *info);
