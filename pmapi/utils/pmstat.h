/* pmstat.h: what the parts of pmstat share: its command line and run (pmstat.c), one read of every
 * CPU's counters (pmstat-sample.c), the cgroup scope of --cgroup (pmstat-cgroup.c) and the report in
 * text, CSV or JSON Lines (pmstat-report.c). Exit statuses: tool-usage.h. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "cgroup-target.h"
#include "count-time.h"
#include "metrics.h"
#include "pmapi.h"

typedef enum Format {
        FORMAT_TEXT,
        FORMAT_CSV,
        FORMAT_JSON,
} Format;

typedef struct Options {
        const char *events;             /* -e as typed; NULL: the default set */
        int group_id;                   /* -g: a predefined event group's id; -1 without */
        const pm_groups_t *group;       /* -g: the group, once found */
        int mode;                       /* PM_USER, PM_KERNEL or both */
        unsigned interval_ms;           /* -I */
        unsigned count;                 /* intervals; 0: until SIGINT or SIGTERM */
        bool proctree;
        char **command;                 /* --proctree: COMMAND and its arguments, NULL-terminated */
        const char *cgroup;             /* --cgroup PATH as typed; NULL without */
        const CgroupTarget *target;     /* --cgroup: the cgroup PATH names, once found */
        Format format;
        const char *separator;          /* CSV: "," or -x SEP */
        const char *output;             /* -o; NULL: stdout, or stderr with --proctree */
        bool metrics;                   /* -m */
        const MetricList *metric_list;  /* -m: pmapid's metrics, once fetched */
} Options;

/* One event of the program: its counter and its entry in pm_init's list. */
typedef struct Event {
        int counter;
        const pm_events_t *desc;
} Event;

/* One read of the counters of every CPU pmapid counts on. */
typedef struct Sample {
        unsigned long long time_ns;     /* since counting began */
        int n_cpus;                     /* sysconf(_SC_NPROCESSORS_CONF): Linux CPUs 0 .. n_cpus-1 */
        bool *counted;                  /* [n_cpus]: online at some time since pm_set_program */
        bool *online;                   /* [n_cpus]: online now as /sys tells (true if it cannot) */
        long long (*counts)[MAX_COUNTERS];      /* [n_cpus]: since pm_set_program */
        CountTime *time;                /* [n_cpus]: how long those were enabled and ran */
} Sample;

int sample_new(int n_cpus, Sample **ret);
Sample *sample_free(Sample *s);
static inline void sample_freep(Sample **s) {
        sample_free(*s);
}
/* Reads every CPU with pm_get_Tdata_lcpu(), or with pm_get_Tdata_lcpu_wp() for cgroup cid (0: the
 * system scope), skipping those that answer PM_ECPU; returns 0 or the first other PM_E* code. */
int sample_read(Sample *s, cid_t cid, unsigned long long time_ns);

/* --cgroup (pmstat-cgroup.c): each prints why it failed on stderr and returns the PM_E* code.
 * Finds PATH's cgroup into target. */
int cgroup_scope_find(const char *path, CgroupTarget *target);
/* pm_set_program_wp() on it, with a hint after a refusal. */
int cgroup_scope_set_program(const CgroupTarget *target, pm_prog_t *prog);
/* Whether it was removed since the program was set. */
int cgroup_scope_removed(const CgroupTarget *target, bool *ret);

/* How COMMAND ended, for the report of a --proctree run. */
typedef struct CommandEnd {
        pid_t pid;
        int exit_status;                /* -1 when a signal killed it */
        int signal;                     /* 0 unless a signal killed it */
} CommandEnd;

typedef struct Report Report;

/* A report on f (not owned) of the events given (copied). */
int report_new(const Options *o, FILE *f, const Event *events, size_t n_events, Report **ret);
Report *report_free(Report *r);
static inline void report_freep(Report **r) {
        report_free(*r);
}
/* What is counted: the text's opening line, the JSON's header members, the CSV's header row.
 * command_pid: --proctree's COMMAND, 0 otherwise. */
void report_begin(Report *r, pid_t command_pid);
/* Interval number index (from 1): what each CPU counted between the reads before and now. */
void report_interval(Report *r, unsigned index, const Sample *before, const Sample *now);
/* --proctree: what each CPU counted over the whole run, and how COMMAND ended. */
void report_run(Report *r, const Sample *now, const CommandEnd *end);
/* --cgroup: the cgroup was removed by the read of now, whose interval was the last. */
void report_cgroup_removed(Report *r, const Sample *now);
/* Ends the document (with error as its last word when not NULL) and flushes; returns 0 or -errno
 * if anything failed to write. */
int report_finish(Report *r, const char *error);
