/* heirs-abi.h: what heirs.bpf.c (in the kernel) and heirs.c (in pmapid) share. Fixed-size types
 * only: the same header is compiled for the BPF target and for the host. */
#pragma once

#include <linux/types.h>

#define HEIRS_MAX_EVENTS 8              /* MAX_COUNTERS */
#define HEIRS_MAX_SOURCES 16            /* distinct (event, modes) counted at once, machine-wide */
#define HEIRS_NO_SOURCE 0xff

/* heirs_control.flags, written by pmapid (and copied by the kernel to a new thread) */
#define HEIRS_ACCOUNT   0x1u            /* its counts live in the counts map (a thread born in the kernel) */
#define HEIRS_COUNTING  0x2u            /* add its slices now (its own state AND its group's) */
#define HEIRS_INHERITS  0x4u            /* a thread it creates is born with this control */
#define HEIRS_CREATOR_COUNTING 0x8u     /* a carrier's state (own AND group's) as pmapid knows it; a
                                         * born thread's creator's at its birth. A born thread itself
                                         * counts from birth: pmapid drops what it should not have. */
#define HEIRS_LOCAL     0x10u           /* a born thread that reads itself in process: its own perf
                                         * counters count it from then on, and the kernel adds no more
                                         * slices to its counts (they stay what they were); never
                                         * passed on */
#define HEIRS_HANDING   0x20u           /* with HEIRS_LOCAL, while pmapid hands the thread over: the
                                         * kernel adds its slices to local_counts, which pmapid reads
                                         * where it takes the handover back (the thread ran meanwhile);
                                         * never passed on */

/* One per tracked thread, keyed by tid: what to count and whether. The kernel only reads it, except
 * when it writes a new thread's at its birth. */
struct heirs_control {
        __u32 flags;
        __u32 n_events;
        __u8 sources[HEIRS_MAX_EVENTS]; /* source index of each event, HEIRS_NO_SOURCE for none */
        __u32 creator;                  /* tid that created it (0: registered by pmapid) */
        __u32 tgid;
        __u32 group;                    /* pmapid's group id of the carrier (0: none), passed on */
        __u32 owner;                    /* the uid whose limit its births count against (0: root, none) */
        __u64 born_ns;                  /* CLOCK_MONOTONIC of its birth; tells a reused tid apart */
        __u64 base[HEIRS_MAX_EVENTS];   /* its counts at its last reset (pmapid's; 0 at birth) */
};

/* heirs_counts.state, written by the kernel */
#define HEIRS_FINAL     0x2u            /* switched away dead: counts are final */
#define HEIRS_EXITING   0x4u            /* in its exit (sched_process_exit): final soon */

/* One per thread with HEIRS_ACCOUNT, keyed by tid: only the kernel writes it after the birth. */
struct heirs_counts {
        __u64 counts[HEIRS_MAX_EVENTS];
        __u64 enabled_ns;               /* time it ran counting (its first event's source) */
        __u64 running_ns;               /* of which its first source was on the PMU */
        __u64 born_ns;
        __u32 state;
        __u32 read_errors;              /* source reads that failed (an event not on this CPU) */
        __u32 slices;                   /* slices added */
        __u32 pad;
        char comm[16];                  /* its name at its last switch away (final) */
        __u64 runtime_ns;               /* the scheduler's runtime of it at its last slice (0 at birth) */
        __u64 min_flt;                  /* its own minor and major fault counts at its last slice */
        __u64 maj_flt;
        __u64 local_counts[HEIRS_MAX_EVENTS];   /* its slices while HEIRS_LOCAL */
        __u64 local_enabled_ns;
        __u64 local_running_ns;
};

/* The one element of the config map, written by pmapid. */
struct heirs_config {
        __u32 n_cpus;                   /* the sources map holds source * n_cpus + cpu */
        __u32 n_sources;                /* sources 0 .. n_sources - 1 may be open; 0: nothing to do */
        __u32 idle_blind;               /* bit s: source s counts nothing while a CPU idles */
        __u32 clocks;                   /* bit s: source s is a clock (task-clock, cpu-clock): the
                                         * kernel's own clock is read for it, not the perf event */
        __u32 faults_min;               /* bit s: source s counts minor page faults, user mode included */
        __u32 faults_maj;               /* bit s: source s counts major page faults, user mode included */
        __u32 faults_user;              /* bit s: of those, source s leaves kernel mode out */
        __u32 self_tgid;                /* pmapid's process */
        __u32 max_births;               /* born threads one owner but root may have in the maps at once
                                         * (MaxContextsPerUser): the births map less the releases map */
};

/* The one element of the per-CPU last_next map, written by the kernel at each switch it shows: the
 * task it brought in, and that task's fault counts then. A slice that ends at a switch of another
 * task went unseen in between. pmapid reads tid; a test writes it. */
struct heirs_last_seen {
        __u32 tid;
        __u32 tgid;
        __u64 task;                     /* its task_struct (0: none noted) */
        __u64 min_flt;
        __u64 maj_flt;
        __u32 busy;                     /* the exec program is ending a slice here: a fold waits */
        __u32 by_runtime;               /* the task's clock is taken from its runtime until its next
                                         * switch: a fold or an exec ended a slice of it by that */
};

/* What a source counts: the perf_event_attr fields that name an event and its modes (in_use 0: free). */
struct heirs_source {
        __u64 config;
        __u64 config1;
        __u64 config2;
        __u32 type;
        __u32 excludes;                 /* bit 0 user, 1 kernel, 2 hv, 3 idle, 4 host, 5 guest */
        __u32 in_use;
        __u32 pad;
};

/* The stats map's elements (per CPU, counts of what happened) */
enum {
        HEIRS_STAT_BORN,                /* threads born with a control */
        HEIRS_STAT_BIRTH_FAILED,        /* a map was full: the thread got none (pmapid attaches late) */
        HEIRS_STAT_BIRTH_LIMITED,       /* its owner had max_births: the thread got none (pmapid refuses it) */
        HEIRS_STAT_SLICES,              /* slices added */
        HEIRS_STAT_UNSEEN_SWITCH,       /* a switch the tracepoint did not show (prev was not the last
                                         * next on its CPU): the slice since the last one seen went to prev */
        HEIRS_STAT_AMBIGUOUS,           /* such a slice of a counted task: some of it may be another's */
        HEIRS_STAT_SEALED,              /* tasks sealed by an exec that left them non-dumpable */
        HEIRS_STAT_FOLDS,               /* slices of running tasks ended by pmapid's fold */
        HEIRS_N_STATS,
};
