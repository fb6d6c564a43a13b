/* local-page.h: what pmapid shares with a thread that reads its own counters in process (a local
 * read: pm_get_data_mythread without a bus round trip). pmapid hands the thread, over the bus, one
 * perf fd of its context's counter group (a sibling: the group's leader is a dummy event only pmapid
 * holds, so the fd cannot be used to add events to the group) and a memfd holding this page, which
 * the thread maps read-only (the memfd is sealed against writes; pmapid keeps its own writable
 * mapping). A read of the sibling with PERF_FORMAT_GROUP returns the whole group: nr, time enabled,
 * time running, then n_values values, the dummy's first.
 *
 * The page says whether the handle is still the context's: pmapid clears `valid` when the context
 * is deleted, replaced or released, inside a seqlock (seq odd while it writes). A reader checks seq
 * and valid before and after its read() and falls back to the bus when either moved. Shared by
 * pmapid (daemon/) and libpmapi (pmapi/); never installed. */
#pragma once

#include <stdint.h>

#define LOCAL_PAGE_MAGIC 0x706d4c50u   /* "PLmp" */
#define LOCAL_PAGE_VERSION 3
#define LOCAL_PAGE_MAX_VALUES 9         /* the dummy leader and MAX_COUNTERS events */

typedef struct LocalPage {
        uint32_t magic;
        uint32_t version;
        uint32_t seq;                   /* even: stable; odd: pmapid is writing */
        uint32_t valid;                 /* 1 while the handle reads the context's counters */
        uint32_t n_values;              /* values a read returns: 1 + the program's events */
        int32_t slot[LOCAL_PAGE_MAX_VALUES];    /* pm_data_t.accu index of each value; -1: none */
        /* 1 when the program is one event that may sit on a PMU counter (hardware, cache, raw):
         * then the thread maps the fd's own user page and reads it with rdpmc where the kernel lets
         * it (pmapi/self-read.h), else it read()s. */
        uint32_t pmu_counter;
        /* The group's times at the context's last reset as pmapid knows it (the kernel does not zero
         * them), with the count of the thread's own resets (LocalState.resets) pmapid had taken in
         * then: while the thread's count is the same, this is the base of the counted time; once the
         * thread reset again, its own LocalState base is newer. Written inside the seqlock. */
        uint64_t base_enabled_ns;
        uint64_t base_running_ns;
        uint32_t resets_seen;
        uint32_t reserved;
        /* What the context counted before the counters the handle reads were opened (a thread born
         * counting in the kernel: its sums there up to its first read in process), value by value
         * in the read's order, and its times beyond the base: a read adds them while the thread's
         * own resets are resets_seen (one it made since drops them with the rest). Written inside
         * the seqlock; 0 for a context whose counters counted it from the start. */
        uint64_t carried_enabled_ns;
        uint64_t carried_running_ns;
        uint64_t carried[LOCAL_PAGE_MAX_VALUES];
} LocalPage;

/* The second page, which the thread writes and pmapid reads: the changes of the context's own
 * counting state that the thread made itself with an ioctl on the fd (pm_start_mythread,
 * pm_stop_mythread), so that pmapid knows the state (GetProgram, the Counting property) and what a
 * thread created at time T inherits. The thread appends a change at ring[n % LOCAL_STATE_RING],
 * then stores n + 1 (release); pmapid reads up to n (acquire), and takes what it finds only as the
 * thread's word about its own context. A local read whose group did not run all the time it was
 * enabled (the PMU time-shared it) goes to the bus instead, which scales it. */
#define LOCAL_STATE_MAGIC 0x706d4c53u  /* "SLmp" */
#define LOCAL_STATE_RING 8

typedef struct LocalStateChange {
        uint64_t time_ns;               /* CLOCK_MONOTONIC, right after the ioctl */
        uint32_t counting;              /* the state from then on */
        uint32_t reserved;
} LocalStateChange;

typedef struct LocalState {
        uint32_t magic;
        uint32_t version;
        uint32_t n;                     /* changes written so far */
        uint32_t reserved;
        LocalStateChange ring[LOCAL_STATE_RING];
        /* Resets the thread made itself: after each, the group's times as read() gave them right
         * after the ioctl (the kernel does not zero them). A seqlock: resets is odd while the
         * thread writes them, even (two more than the last) once they are whole. */
        uint64_t reset_enabled_ns;
        uint64_t reset_running_ns;
        uint32_t resets;
        uint32_t reserved2;
} LocalState;
