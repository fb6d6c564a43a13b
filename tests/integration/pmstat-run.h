/* pmstat-run.h: running the pmstat binary in the tests (test-pmstat.c, test-tool-groups.c) and
 * reading back its JSON Lines: the document gathered whole, and the checks every interval of every
 * run must pass (its total is the sum of its CPU rows, its times too). */
#pragma once

#include <sys/types.h>
#include <json-glib/json-glib.h>

/* One pmstat process: started by pmstat_start, waited for by pmstat_finish. */
typedef struct PmstatProc {
        pid_t pid;
        int out, err;                   /* memfds: its stdout and stderr */
} PmstatProc;

typedef struct PmstatRun {
        int status;                     /* exit status; -1 if it did not exit */
        char out[1 << 17];
        char err[8192];
} PmstatRun;

/* Runs $PMAPI_PMSTAT as uid with the arguments args (NULL-terminated), its output in memfds. */
void pmstat_start(uid_t uid, const char *const *args, PmstatProc *p);
/* Waits for it and reads back what it wrote; logs its stderr when it failed. */
void pmstat_finish(PmstatProc *p, PmstatRun *run);
/* Start and finish. */
void pmstat_run(uid_t uid, PmstatRun *run, const char *const *args);
/* Waits until pmstat has written something on fd: the report's beginning, once it counts. */
void pmstat_wait_for_output(int fd);

/* pmstat's JSON Lines, each line a document of its own (checked one by one), gathered into the
 * shape the checks read: the header's members, "intervals" (each line's "interval" object, in
 * order), "run" and "error". Fails the test on a line that is no JSON document. */
JsonNode *pmstat_parse_json(const char *text);
/* A row (a CPU's, or a block's total_times) that ran all of its enabled time; returns it. */
long long pmstat_counted_fully(JsonObject *o);
/* Every interval's total is the sum of its CPU rows, its times too; returns the sums over the
 * intervals of the event's count on CPU cpu and on the other CPUs. */
void pmstat_check_intervals(JsonArray *intervals, const char *event, int cpu, long long *ret_cpu,
                            long long *ret_others);
