/* pmcount.h: what pmcount's run of a command (pmcount.c) hands to its report (pmcount-report.c), and
 * the member rows it asks pmapid for (pmcount-members.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "pmapi.h"

/* Like env(1) and timeout(1): pmcount's own failures are told apart from the command's status. */
#define EXIT_PMCOUNT_FAILED 125         /* pmcount itself: usage, pmapid, the report */
#define EXIT_CANNOT_INVOKE  126         /* the command was found but could not be executed */
#define EXIT_NOT_FOUND      127         /* the command was not found */

typedef enum ReportFormat {
        REPORT_TEXT,
        REPORT_CSV,
        REPORT_JSON,
} ReportFormat;

typedef struct Options {
        const char *events;             /* -e, or NULL for the default set */
        bool kernel;                    /* -k: kernel mode too */
        bool per_thread;
        bool preload;                   /* false with --no-preload */
        const char *output;             /* -o, or NULL for stderr */
        ReportFormat format;
        char **command;                 /* NULL-terminated */
} Options;

/* One member of the command's counting group. */
typedef struct MemberRow {
        int32_t pid, tid;
        char comm[16];
        bool alive;
        int64_t counts[MAX_COUNTERS];
} MemberRow;

typedef struct MemberRows {
        MemberRow *rows;
        size_t n_rows, n_allocated;
        uint32_t n_dropped;             /* exited members pmapid kept no row for */
        uint32_t n_missed;              /* threads that could not join: they ran uncounted */
} MemberRows;

/* Asks pmapid (GetGroupMembersPage, page after page) for every member of the group of thread tid of process pid, and
 * leaves out that thread's own row; sorted by pid, then tid. Returns 0 or a positive PM_E* code. */
int member_rows_fetch(pid_t pid, pid_t tid, MemberRows *ret);
void member_rows_done(MemberRows *m);

typedef struct Report {
        const Options *options;
        const pm_info_t *info;
        pm_prog_t prog;
        pid_t pid;                      /* the command's process */
        int wait_status;                /* as wait4() gave it */
        struct rusage rusage;           /* the command and the descendants it waited for */
        uint64_t elapsed_ns;            /* from before fork() until wait4() returned */
        pm_data_t total;                /* the group's data: every member's counts */
        bool have_rows;                 /* --per-thread */
        MemberRows rows;
} Report;

/* The exit status pmcount passes on: the command's, or 128 + the signal that killed it. */
int report_exit_code(const Report *r);
/* Writes the report in the chosen format; 0 or -errno. */
int report_write(const Report *r, FILE *f);
