/* fork-watch-ring.h: fork-watch.c's state, shared with fork-watch-ring.c, which reads the rings: the
 * records as the kernel lays them out, and as a drain hands them on. Internal to the fork watch. */
#pragma once

#include <glib.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "fork-watch.h"

#define TURNS_KEPT 16
#define OVERLAP_KEPT 256

/* PERF_RECORD_FORK as laid out with sample_id_all=1 and sample_type=PERF_SAMPLE_TIME
 * (include/uapi/linux/perf_event.h: the record body, then struct sample_id holding only the time). */
typedef struct ForkRecord {
        struct perf_event_header header;
        uint32_t pid, ppid, tid, ptid;
        uint64_t time;
        uint64_t sample_time;
} ForkRecord;

typedef struct LostRecord {
        struct perf_event_header header;
        uint64_t id, lost;
} LostRecord;

/* PERF_RECORD_COMM: pid, tid, then the name NUL-terminated and padded to 8 bytes, then the
 * sample_id (the time). The kernel copies at most TASK_COMM_LEN (16) bytes of name. */
typedef struct CommRecordHead {
        struct perf_event_header header;
        uint32_t pid, tid;
} CommRecordHead;

/* One record of either kind as a drain hands it on, so that one sort puts both in kernel order. */
typedef struct WatchRecord {
        uint64_t time;
        uint32_t type;                          /* PERF_RECORD_FORK, _EXIT or _COMM */
        uint32_t pid, ppid, tid, ptid;          /* COMM: pid and tid only */
        char comm[FORK_WATCH_COMM_MAX];
} WatchRecord;

typedef struct ForkWatchCpu {
        unsigned cpu;
        int fd;
        struct perf_event_mmap_page *meta;      /* MAP_FAILED until mapped */
        const uint8_t *data;
        uint64_t data_size;
        uint64_t head;                          /* data_head as read at the start of a drain */
        sd_event_source *source;                /* NULL for a lazy ring */
        /* The lazy watch's twin of the CPU's ring: the same records, and a wakeup only when half
         * full. The other's watermark of one record made the kernel raise an interrupt at every
         * fork and exit on the machine (irq_work, a self-IPI: a VM exit here) whether anyone
         * polled or not: pthread_create + join 2x dearer with any context alive (native_write_msr,
         * 22 % of the creator's CPU). One of the two runs at a time. */
        bool lazy_ring;
} ForkWatchCpu;

struct ForkWatch {
        ForkWatchHandler handler;
        void *userdata;
        ForkWatchCommHandler comm_handler;      /* NULL: COMM records are dropped */
        void *comm_userdata;
        ForkWatchExitHandler exit_handler;      /* NULL: EXIT records are dropped */
        ForkWatchLostHandler lost_handler;
        void *exit_userdata;
        uint64_t lost_unreported;               /* lost records not yet told to lost_handler */
        ForkWatchCpu *cpus;
        size_t n_cpus;
        GArray *batch;                          /* WatchRecord, reused from one drain to the next;
                                                 * fork records a comm-only drain left for later */
        sd_event_source *later;                 /* dispatches what a comm-only drain left */
        /* The kernel writes its LOST record only with the next record on that CPU: after a burst that
         * filled a ring, a quiet machine would keep the loss (and threads born in it) unseen. A drain
         * that found a ring nearly full arms this timer; when nothing has come for a while, the loss
         * is assumed and reported (n_lost 0: unknown). */
        sd_event_source *suspect;
        bool overflow_suspected;
        bool drained_some;                      /* the last drain read a record */
        bool suspect_armed;
        /* Lazy: the rings are not polled, and a timer drains them every FORK_WATCH_LAZY_USEC.
         * Polled, every fork, exec and exit on the machine woke pmapid: 14 % longer for an uncounted
         * shell loop here (a cross-CPU wakeup in a VM is dear). */
        sd_event_source *tick;
        bool lazy;
        uint64_t n_lost;
        bool enabled, dispatching;
        /* The last turns between the rings (CLOCK_MONOTONIC, as the records) and the records
         * written during them (drop_copies). */
        struct { uint64_t from, to; } turns[TURNS_KEPT];
        unsigned next_turn;
        WatchRecord overlap[OVERLAP_KEPT];
        unsigned next_overlap;
};

/* Reads every CPU's new records into the batch, in kernel order with what is already there, and
 * drops the second copy of a record both of a CPU's rings took while the watch turned. */
void fork_watch_drain(ForkWatch *w);
