/* mx-read.h: what test-mx.c and test-mx-system.c share: a program of two sets that both count page
 * faults in counter 0, and the reads of the _mx calls copied out of the array the library allocates
 * (and freed there), with the exact relations the tests check between reads. */
#pragma once

#include "check.h"
#include "pmapi.h"

#define MX_SETS 2
#define MX_SLICE_MS 100

typedef struct MxEvents {
        int page_flt, minor_flt, task_clock;
} MxEvents;

/* pm_init(PM_VERIFIED) and the ids of the three events: 0 or -1. */
int mx_events_find(MxEvents *ret);
/* Set 0 counts page faults and minor faults, set 1 page faults and the task clock; slice
 * MX_SLICE_MS, one mode for both. prog->events_set points at sets. */
void mx_two_sets(pm_prog_mx_t *prog, pm_events_prog_t sets[MX_SETS], const MxEvents *e, int mode);

/* A read's sets, copied out of the library's array. */
typedef struct MxRead {
        pm_ginfo_t ginfo;
        int n_sets, rounds;
        pm_accu_mx_t sets[PM_MX_MAX_SETS];
} MxRead;

/* rc is the read's return code, d what it filled: ret gets the sets and d's array is freed (the
 * caller's duty, pm_get_data_mx(3)). 0, or -1 after saying why on stderr. */
int mx_take(int rc, pm_data_mx_t *d, MxRead *ret);

/* READ_MX(r, pm_get_data_thread_mx(pid, tid, &d_)): the call fills d_, r gets its sets; a failure
 * returns 1 from the caller (check.h). */
#define READ_MX(ret, call)                                                                         \
        do {                                                                                       \
                pm_data_mx_t d_ = {};                                                              \
                CHECK(mx_take((call), &d_, &(ret)) == 0);                                          \
        } while (0)

/* A time of the reads in ns. */
long long mx_ns(timebasestruct_t tb);
/* Counter c of every set of after is that of before plus n: 0, or 1 after saying where not. */
int mx_check_added(const MxRead *before, const MxRead *after, int c, long long n);
/* The page-fault counters of mx_two_sets() (counter 0 of every set, counter 1 of set 0) of a and b
 * are equal: for a thread that may still be running (the task clock of a thread that has just
 * answered moves on until it blocks). 0 or 1, as above. */
int mx_check_same_faults(const MxRead *a, const MxRead *b);
/* Every counter of every set of total is the sum of those of the n parts: 0 or 1, as above. */
int mx_check_sum(const MxRead *total, const MxRead *const parts[], int n);
/* mx_check_sum(&total, MX_PARTS(&a, &b)): the array of parts and its length. */
#define MX_PARTS(...)                                                                              \
        (const MxRead *const[]) { __VA_ARGS__ },                                                   \
        (int) (sizeof((const MxRead *[]) { __VA_ARGS__ }) / sizeof(MxRead *))
