/* pmcount.h: what pmcount's parts share: the command line (pmcount.c), a run of a command in a
 * counting group of its own (pmcount-run.c), counting a running process or thread (-p/-t,
 * pmcount-attach.c), counting a cgroup while a command runs (--cgroup, pmcount-cgroup.c), and the
 * report (pmcount-report.c, with its forms in pmcount-report-text.c and pmcount-report-data.c; the
 * repeated runs' statistics and the interval lines, pmcount-series.c). Exit statuses: tool-usage.h. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "cgroup-target.h"
#include "count-time.h"
#include "csv-writer.h"
#include "group-members.h"
#include "json-writer.h"
#include "metrics.h"
#include "pmapi.h"

typedef enum ReportFormat {
        REPORT_TEXT,
        REPORT_CSV,
        REPORT_JSON,
} ReportFormat;

typedef struct Options {
        const char *events;             /* -e, or NULL for the default set */
        int group_id;                   /* -g: a predefined event group's id; -1 without */
        int mode;                       /* PM_USER and/or PM_KERNEL */
        bool per_thread;                /* --per-thread */
        bool preload;                   /* false with --no-preload */
        const char *output;             /* -o, or NULL for stderr */
        ReportFormat format;
        const char *separator;          /* CSV: "," or -x SEP */
        unsigned repeat;                /* -r: runs of COMMAND (1 without) */
        unsigned interval_ms;           /* -I, 0 without */
        pid_t attach_pid;               /* -p, or -t's process; 0: run COMMAND */
        pid_t attach_tid;               /* -t, or -p's main thread */
        bool attach_process;            /* -p: every thread of the process */
        char **command;                 /* NULL-terminated; NULL with -p/-t */
        const char *cgroup;             /* --cgroup PATH as typed, or NULL */
        bool metrics;                   /* -m: the derived metrics of the counted events */
} Options;

/* A count over repeated runs: Welford's running mean and sum of squared deviations. */
typedef struct RunStat {
        unsigned n;
        double mean, m2;
} RunStat;

void run_stat_add(RunStat *s, double value);
/* The sample standard deviation (0 for a single run). */
double run_stat_stddev(const RunStat *s);

typedef struct Report {
        const Options *options;
        const pm_info_t *info;
        FILE *f;                        /* where the report goes */
        pm_prog_t prog;                 /* as set: with -g, mode.b.is_group and the group's id */
        const pm_groups_t *group;       /* -g's group, or NULL */
        int group_events[MAX_COUNTERS]; /* -g: the group's event on each counter */
        pid_t pid;                      /* the command's process (the last run's), or -p/-t's */
        bool kernel_inherits;           /* the command's threads are born counting inside the kernel
                                         * (its events carried): it runs as it is, no preload */
        int wait_status;                /* as wait4() gave it */
        struct rusage rusage;           /* the command and the descendants it waited for */
        uint64_t elapsed_ns;            /* from before fork() until wait4() returned (the last run) */
        pm_data_t total;                /* the group's data: every member's counts (the last run) */
        CountTime total_time;           /* how long they were enabled and ran (the last run) */
        bool have_rows;                 /* --per-thread */
        MemberRows rows;
        bool partial;                   /* some run's group had threads that ran uncounted */
        uint32_t threads_missed;        /* the most of any run */
        /* -r: one sample per run */
        unsigned n_runs;
        RunStat counts[MAX_COUNTERS];
        RunStat elapsed;
        RunStat enabled, running;       /* total_time's */
        /* -p/-t */
        bool target_gone;               /* the target exited before the end: the last read counts */
        /* --cgroup */
        CgroupTarget cgroup;            /* the cgroup counted, found by its path */
        bool cgroup_removed;            /* it was removed before the count ended */
        /* -m */
        MetricList *metric_list;        /* pmapid's, fetched before counting; NULL without -m */
        /* -I */
        uint64_t interval_start_ns;
        uint64_t last_line_ns;          /* since interval_start_ns: the last line's time, or where the
                                         * run's counts began (an interval's length for -m) */
        int64_t last[MAX_COUNTERS];     /* the counts at the last interval line */
        CountTime last_time;            /* and their times */
        unsigned n_intervals;
        bool csv_header_written;
} Report;

/* The event of a counter, its name (or its id as text in buf) and its status's name: with -g, the
 * group's event on that counter. */
const pm_events_t *report_event(const Report *r, int counter);
const char *report_event_name(const Report *r, int counter, char buf[static 16]);
const char *report_event_status(const Report *r, int counter);
/* The id of the event a counter counts: prog's, or with -g its group's. */
static inline int report_event_id(const Report *r, int counter) {
        return r->group ? r->group_events[counter] : r->prog.events[counter];
}
static inline bool report_counter_used(const Report *r, int counter) {
        return report_event_id(r, counter) != COUNT_NOTHING;
}
/* How long the counts were counted: with -r the means of the runs, else the run's. The group's
 * counters are read together, so one time serves every event. */
CountTime report_time(const Report *r);
/* -m: pmapid's metrics whose events are among the counters', computed on counts (one per counter;
 * counted: false when they were never on the PMU) over elapsed_s seconds; returns how many are in
 * ret, at most METRICS_MAX. */
size_t report_metrics(const Report *r, const long long counts[MAX_COUNTERS], bool counted, double elapsed_s,
                      MetricValue ret[static METRICS_MAX]);
/* -m: the metrics of the report's totals, over the elapsed time (with -r the means of both). */
size_t report_total_metrics(const Report *r, MetricValue ret[static METRICS_MAX]);
/* CSV's first row: the columns, and time_ns with -I. */
void report_csv_header(Report *r);
/* A row of the report's CSV (write_csv's writer) that belongs to no thread: record, name, value. */
void report_csv_value(CsvWriter *w, const char *record, const char *name, const char *value);

/* The exit status pmcount passes on: the command's, or 128 + the signal that killed it. */
int report_exit_code(const Report *r);
/* Adds the finished run's data (r->total, r->total_time, r->elapsed_ns) to the statistics. */
void report_add_run(Report *r);
/* Writes the report in the chosen format; 0 or -errno (pmcount-output.c). */
int report_write(Report *r);
/* -I: the counts now and their times (pm_get_Tdata*); prints what each event counted since the last
 * line (the first: since counting began), and for how long. JSON: one document per line. */
int report_interval(Report *r, const pm_data_t *now, const pm_accu_time_t *now_time, uint64_t now_ns);

/* What runs the command (pmcount-run.c); returns 0 or pmcount's exit status when it could not. */
int run_command(const Options *o, Report *rep);
/* Waits for the command pid, started at start, into rep's wait_status and rusage; with -I, prints
 * every interval until it exits what read_counts reads (what: its name in a failure). A read or
 * a write that fails ends the lines, not the command: pmcount waits for it, then returns 125. */
typedef int (*ReadCounts)(Report *rep, pm_data_t *ret, pm_accu_time_t *ret_time);
int run_wait_command(Report *rep, pid_t pid, uint64_t start, ReadCounts read_counts, const char *what);
/* What counts a running process or thread until it ends or SIGINT/SIGTERM (pmcount-attach.c);
 * returns 0 or pmcount's exit status when it could not. */
int attach_and_count(const Options *o, Report *rep);
/* What counts cgroup --cgroup while the command runs (pmcount-cgroup.c); 0 or pmcount's exit
 * status when it could not. And the report's lines about the cgroup, in place of the group's. */
int cgroup_count_command(const Options *o, Report *rep);

uint64_t pmcount_now_ns(void);
/* "pmcount: what: pm_strerror(code)"; returns TOOL_EXIT_OWN. */
int pmcount_fail(const char *what, int pm_code);
