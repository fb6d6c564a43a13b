/* heirs.h: inheritance inside the kernel (bpf/heirs.bpf.c). A thread pmapid "carries" passes a
 * control to every thread or process it creates, inside clone(), before the new task runs: the new
 * task is born counting the carrier's events, its slices summed by the kernel from pmapid's per-CPU
 * counters (the sources), so nothing it does is uncounted, whichever way it was created (raw clone,
 * vfork, posix_spawn, a thread of Go's runtime). pmapid adopts a born thread as a context of its own
 * when it learns of it (fork records, Inherit) with counter-bpf.c. Needs BTF, CAP_BPF and
 * CAP_PERFMON (or root); without them heirs_new() fails and threads are attached after the fact. */
#pragma once

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmu-budget.h"

typedef struct Heirs Heirs;

/* What one born thread has counted since its last reset: counts of its events, the time it ran counting, whether its
 * last slice is in (it exited and left its CPU for the last time) and its birth (CLOCK_MONOTONIC ns). */
typedef struct HeirsReading {
        uint64_t counts[8];
        uint64_t enabled_ns;
        uint64_t running_ns;
        uint64_t born_ns;
        bool final;
        bool exiting;                   /* in its exit: final at its last switch away */
        uint32_t read_errors;           /* slices lost: a source did not read on a CPU */
        uint32_t slices;                /* slices added */
        char comm[16];                  /* its name when its counts became final ("" before) */
} HeirsReading;

/* Loads and attaches the programs; max_threads bounds the threads tracked at once (born ones are
 * refused past it and attached late instead). -EOPNOTSUPP where pmapid was built without BPF. */
int heirs_new(unsigned max_threads, unsigned max_births, Heirs **ret);
Heirs *heirs_free(Heirs *h);
/* Why heirs_new() failed, for the start-up log line. */
const char *heirs_unavailable_reason(int error);

/* Whether the kernel can carry event a: a software event, or a hardware one where carried
 * programs have a share of the PMU (pmu-budget.h). A hardware event's source holds one of the PMU's
 * counters on every CPU, pinned, while anything is counted: the thread that carries such a program
 * is counted through the same sources (heirs_register_carrier), not by a copy of its own, and a
 * program that the share or the open groups leave no room for is attached after the fact. */
static inline bool heirs_can_carry_event(const struct perf_event_attr *a) {
        return a->type == PERF_TYPE_SOFTWARE || (pmu_budget_is_hardware(a) && pmu_budget_share() > 0);
}

/* Thread tid's creations are born counting attrs[0..n-1], in pmapid's group group_id (0: none);
 * counting: tid's own state AND its group's, which a creation notes as its creator's at birth. A
 * second call replaces the first. Its creations count against owner's births (none for 0, root).
 * -E2BIG past the sources the machine-wide set can hold, or an errno of perf_event_open for an event
 * that cannot count per CPU: its creations are attached late. */
int heirs_carry(Heirs *h, pid_t tid, const struct perf_event_attr *attrs, size_t n, bool counting,
                unsigned group_id, uid_t owner);
/* The same for a thread that pmapid counts through the sources too, as if it were born now: its
 * counts start at 0, stopped (heirs_set_counting starts them), and it reads as a born thread
 * (heirs_born, heirs_read; creator 0). Its slice so far is folded away first. -ENOSPC where the
 * PMU's share has no room for its hardware events. */
int heirs_register_carrier(Heirs *h, pid_t tid, const struct perf_event_attr *attrs, size_t n, unsigned group_id,
                           uid_t owner);
/* Whether tid's own slices count (an adopted thread) and what its creations start with. */
int heirs_set_counting(Heirs *h, pid_t tid, bool counting);
/* Born tid (its birth at born_ns) is counted by its own perf counters from now on: the kernel adds
 * its slices to its local counts, not its counts, which stay readable (its first read in process,
 * OpenLocal). ret_local: its local counts at that moment, for heirs_unset_local(). -ESTALE for
 * another thread with that tid, -ENOENT where it is not tracked. */
int heirs_set_local(Heirs *h, pid_t tid, uint64_t born_ns, uint64_t ret_local[8]);
/* The handover of heirs_set_local() stands (the thread did not run meanwhile): the kernel stops
 * adding its slices anywhere, its own counters count it. */
int heirs_local_settled(Heirs *h, pid_t tid, uint64_t born_ns);
/* Takes heirs_set_local() back (the thread ran meanwhile): its reads take what the kernel added to
 * its local counts since, and its counts go on growing. */
int heirs_unset_local(Heirs *h, pid_t tid, uint64_t born_ns, const uint64_t local[8]);
/* tid's counts read 0 from now on (a base kept with its control, so that it survives a handover). */
int heirs_reset(Heirs *h, pid_t tid, uint64_t born_ns);
/* Forgets tid: it is no longer carried or counted here. */
void heirs_drop(Heirs *h, pid_t tid);

/* A born thread's birth certificate. */
typedef struct HeirsBirth {
        uint64_t born_ns;               /* CLOCK_MONOTONIC */
        pid_t creator;                  /* the creating thread */
        pid_t pid;                      /* its process */
        unsigned group_id;              /* its creator's group (0: none) */
        bool creator_counting;          /* its creator's state then, as pmapid had told the kernel */
        bool counting;                  /* whether its own slices count now */
} HeirsBirth;

/* Whether tid was born with a control and not yet dropped (ret may be NULL). */
bool heirs_born(Heirs *h, pid_t tid, HeirsBirth *ret);
/* Calls fn(tid, userdata) for every thread born with a control and not yet dropped (fn may drop it). */
void heirs_foreach_born(Heirs *h, void (*fn)(pid_t tid, void *userdata), void *userdata);

/* Whether tid passes a control on to what it creates (a carrier, or a born thread that inherits). */
bool heirs_carries(Heirs *h, pid_t tid);
/* Whether tid's owner has no births left (MaxContextsPerUser born threads in the maps): what tid
 * creates now is not born. */
bool heirs_births_spent(Heirs *h, pid_t tid);
/* Whether tid may be on a CPU now: the last task the scheduler's tracepoint showed coming onto one
 * (a switch it did not show may leave a task there that left; true where the map cannot be read). */
bool heirs_maybe_on_cpu(Heirs *h, pid_t tid);
/* Brings the counts of every born thread that is running up to now: runs the fold (heirs.bpf.c) on
 * every CPU that is not idle, which ends the slice of the task there as a switch would (a thread
 * that is not running has its counts up to date already). Every busy CPU, not only the one noted
 * with a thread: folding only that CPU and the one /proc named missed a running thread's slice in
 * about half the runs of test-live-reads on this VM, cause not found. 0, or a negative errno where
 * the fold could not run (counts are then as of each thread's last switch). */
int heirs_fold_running(Heirs *h);
/* Whether tid's control was sealed by a set-id exec: it counts nothing more and passes nothing on. */
bool heirs_sealed(Heirs *h, pid_t tid);

/* Many threads read at once (a wide group): from the first heirs_read() on, the reads come from a
 * copy of the maps taken in a few system calls, until heirs_batch_end(). */
void heirs_batch_begin(Heirs *h);
void heirs_batch_end(Heirs *h);

/* tid's counts now (n of them), or -ESTALE where tid is another thread than the one born at
 * born_ns (the tid was reused), -ENOENT where it is not tracked. */
int heirs_read(Heirs *h, pid_t tid, uint64_t born_ns, HeirsReading *ret);

/* Waits, at most timeout_ns, until an exited tid's counts are final (its last switch away, which
 * comes microseconds after its exit record or its reaping, later where its CPU is busy): true once
 * they are, false on timeout or where tid is not tracked. Sleeps between looks, so that a dying
 * task on pmapid's own CPU can finish. */
bool heirs_wait_final(Heirs *h, pid_t tid, uint64_t born_ns, uint64_t timeout_ns);

/* Slices of counted tasks that a switch the tracepoint did not show made ambiguous: each went whole
 * to the task leaving the CPU, though another may have run part of it (a group's total is exact; two
 * members' rows may trade a few counts). */
uint64_t heirs_ambiguous_slices(Heirs *h);
/* What the kernel side did (births, refusals, slices, unseen switches), in the debug log. */
void heirs_log_stats(Heirs *h);

/* A handover to pmapid's next image (handover.h): every fd the engine runs on (maps, attached
 * programs, sources), at most max of them, their number returned; they stay h's. heirs_adopt() runs
 * the engine again on them, as they are: the programs never stop, so no creation goes unseen. */
size_t heirs_fds(Heirs *h, int *ret, size_t max);
int heirs_adopt(const int *fds, size_t n, Heirs **ret);
