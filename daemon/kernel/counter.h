/* counter.h: the counter backend, as an ops table. counter-perf.c opens real perf_event groups;
 * counter-fake.c keeps numbers in memory for the unit tests of the core. A CounterGroup is one
 * group of counters on one thread, switched and reset as a whole. */
#pragma once

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct CounterGroup CounterGroup;

/* How long a group was switched on (enabled) and, of that, how long it was on the PMU (running),
 * in ns, as perf's PERF_FORMAT_TOTAL_TIME_ENABLED/RUNNING give them: for a thread's group only while
 * the thread runs, for a CPU's group the whole time. A group the PMU time-shares with others runs
 * less than it is enabled; software events always run. A reset does not zero them. */
typedef struct CounterTimes {
        uint64_t enabled_ns;
        uint64_t running_ns;
} CounterTimes;

/* Where a group counts: perf_event_open's (pid, cpu) pair. A thread context is (tid, -1); a CPU of a
 * system context is (-1, n), (cgroup, n) for a cgroup's, or (tid, n) with inherit for a process tree, whose threads and child
 * processes created later get counters of their own that the parent's read includes. */
typedef struct CounterTarget {
        pid_t tid;
        int cpu;
        bool inherit;
        /* The group's leader is a dummy event that only pmapid holds, and every counter a sibling:
         * a sibling may be handed to the thread for local reads (local-page.h), and cannot be used
         * to add events to the group. */
        bool private_leader;
        /* arm64: ask the PMU to let the thread read its counters from user space (with
         * kernel.perf_user_access=1). While such a thread runs, the kernel lets it read every
         * counter in use on its CPU, other users' CPU-wide ones too: only for a thread context
         * where anyone may count CPU-wide anyway (perf_event_paranoid <= 0). Ignored elsewhere. */
        bool user_read;
        /* A cgroup v2 directory fd (perf's PERF_FLAG_PID_CGROUP): counts the tasks of that cgroup and of
         * its descendants on cpu (tid is ignored); -1 otherwise. Only a target with a cpu may have one. */
        int cgroup_fd;
} CounterTarget;

typedef struct CounterBackend {
        const char *name;
        /* Opens n counters on target, disabled, as one group. */
        int (*open)(const CounterTarget *target, const struct perf_event_attr *attrs, size_t n,
                    CounterGroup **ret);
        int (*enable)(CounterGroup *g);
        int (*disable)(CounterGroup *g);
        int (*reset)(CounterGroup *g);
        /* One consistent snapshot of all n values, and the group's times (times may be NULL). */
        int (*read)(CounterGroup *g, uint64_t *values, size_t n, CounterTimes *times);
        void (*close)(CounterGroup *g);
        /* The fds behind the group, leader first, for a handover to pmapid's next image (handover.h):
         * at most max of them in ret, their number returned. They stay the group's. */
        size_t (*fds)(CounterGroup *g, int *ret, size_t max);
        /* A group of the n_events counters of attrs from the fds another image of pmapid opened
         * (fds() order): takes them on success. -EBADF if one is not a counter of this backend,
         * -EINVAL if they do not make n_events counters. */
        int (*adopt)(const int *fds, size_t n, const struct perf_event_attr *attrs, size_t n_events,
                     CounterGroup **ret);
        /* The fd to hand a thread for local reads: the first counter of a group with a private
         * leader; -1 otherwise. Stays the group's. */
        int (*sibling_fd)(CounterGroup *g);
        /* Optional (NULL: nothing carried). What the group counted before the counters
         * sibling_fd() reads were opened (a born thread's sums in the kernel up to its first read in
         * process): the counts since the last reset, and the times (never reset, as perf's). read()
         * includes them; a local read adds them until the thread resets its counters itself, which
         * drop_carried() then takes in (the counts read 0 from there). */
        void (*carried)(CounterGroup *g, uint64_t *values, size_t n, CounterTimes *times);
        int (*drop_carried)(CounterGroup *g);
} CounterBackend;

extern const CounterBackend counter_backend_perf;
extern const CounterBackend counter_backend_fake;
/* A thread born in the kernel to a carried creator (heirs.h): no fds, counts from a map. */
extern const CounterBackend counter_backend_bpf;

typedef struct Heirs Heirs;
/* The engine counter_backend_bpf reads (NULL: none, and it opens nothing). */
void counter_bpf_set_engine(Heirs *h);
Heirs *counter_bpf_engine(void);
/* A born thread asks to read itself in process: its group gains perf counters of its own on the
 * thread (a private leader, started if enabled), and the kernel stops adding its slices, so that
 * what it counted so far is carried (CounterBackend.carried). Only while the thread is off its CPU
 * (it waits in the call that asked), so that no slice is counted twice or lost: -EBUSY otherwise,
 * -EPERM for a thread sealed by a set-id exec, -EALREADY where it has its counters. */
int counter_bpf_open_local(CounterGroup *g, const struct perf_event_attr *attrs, size_t n, bool enabled,
                           bool user_read);
/* A born thread's group from another image of pmapid: its counts from the maps and, where it read
 * itself in process, its perf counters' fds (n_fds: 0, or n + 1 with the private leader first). */
int counter_bpf_adopt_born(pid_t tid, const struct perf_event_attr *attrs, size_t n, const int *fds, size_t n_fds,
                           CounterGroup **ret);
/* A group of counter_backend_bpf whose thread exited: waits (briefly) until its counts are final. */
void counter_bpf_settle(CounterGroup *g);
/* Reads of many groups at once (a group's members, a page of contexts): every CPU running a born
 * thread is folded here, once, not again at each read; with copy (many of them), born threads'
 * counts come from one copy of the kernel's maps, taken at the first such read. Until
 * counter_bpf_reads_end(). */
void counter_bpf_reads_begin(bool copy);
void counter_bpf_reads_end(void);

/* Fake backend controls for tests: the most recently opened group, and counting "work". */
CounterGroup *counter_fake_last_opened(void);
/* Adds delta to counter i if the group is enabled. */
void counter_fake_count(CounterGroup *g, size_t i, uint64_t delta);
/* Time passes for the group: if it is enabled, enabled_ns and running_ns are added to its times. */
void counter_fake_advance(CounterGroup *g, uint64_t enabled_ns, uint64_t running_ns);
/* Makes the next open fail with error (negative errno); 0 clears it. */
void counter_fake_fail_next_open(int error);
size_t counter_fake_n_open(void);
/* Where the most recently opened group counts. */
CounterTarget counter_fake_last_target(void);
