/* heirs.bpf.c: inheritance inside the kernel (docs/design.md, "Inheritance inside the kernel").
 * Four programs on scheduler tracepoints, all before or outside the new task's own code, and a fifth
 * that pmapid runs on a CPU itself:
 * - task_newtask runs in the creator, inside clone(), before the new task can run: a creator with a
 *   control that inherits gives the new task a copy of it, and zeroed counts;
 * - sched_switch reads the CPU's counters (pmapid's per-CPU perf events, the sources) at every
 *   switch while any source is open: what they counted since the last switch on that CPU is the
 *   slice of the task leaving it, added to its counts while its control says counting. A slice is
 *   measured from the last switch the tracepoint showed on the CPU, not from the task's own arrival.
 *   The tracepoint misses some switches (on the VM this was built on, every switch away from its
 *   PID 1's threads): such a slice then takes the task's own clock since its last slice (the
 *   scheduler's runtime, what CLOCK_THREAD_CPUTIME_ID reads), not what the CPU counted since the
 *   last switch seen, which may hold the unseen task's; its page faults, the CPU's count less those
 *   of the task that switch brought in (unseen_faults); of its other events only those the idle
 *   task cannot count (user-mode events);
 * - an exec that makes the task non-dumpable (a set-id or file-capability program, an unreadable
 *   one) seals it, by the kernel's own rule for perf's counters (begin_new_exec() calls
 *   perf_event_exit_task() when get_dumpable() is not SUID_DUMP_USER): its slice so far is added,
 *   and from there it counts nothing and passes nothing on;
 * - a born task that reads itself in process (HEIRS_LOCAL) is counted by its own perf counters from
 *   then on: its slices are no longer added, and its counts here stay what it had counted before;
 * - a task's last switch away (its state TASK_DEAD) makes its counts final, its whole exit
 *   included (as getrusage counts it; perf's own task counters stop a little earlier, at
 *   perf_event_exit_task(), for kernel-mode events only); sched_process_exit marks it exiting
 *   before, so that a reader knows to wait for that switch;
 * - the fold (heirs_fold) ends the slice of the task running on a CPU as a switch would, without
 *   one: pmapid runs it there before it reads, stops, starts or resets a running thread, so that a
 *   read holds what the thread did up to the call, not up to its last switch.
 * No task has a counter of its own. Beyond the reads of the open sources, a switch costs two hash
 * lookups. */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "heirs-abi.h"

/* Only the fields read, located in the running kernel's BTF when loaded (CO-RE). */
struct mm_struct;

struct sched_entity {
        __u64 sum_exec_runtime;
} __attribute__((preserve_access_index));

struct task_struct {
        int pid;
        int tgid;
        char comm[16];
        struct mm_struct *mm;
        struct sched_entity se;
        unsigned long min_flt;
        unsigned long maj_flt;
} __attribute__((preserve_access_index));

/* mm->flags, whose first word holds the dumpable bits: a bitmap since Linux 6.18, a word before. */
typedef struct {
        unsigned long __mm_flags[1];
} mm_flags_t;

struct mm_struct___bitmap {
        mm_flags_t flags;
} __attribute__((preserve_access_index));

struct mm_struct___word {
        unsigned long flags;
} __attribute__((preserve_access_index));

#define MMF_DUMPABLE_MASK 3
#define SUID_DUMP_USER 1

/* The task's state: __state since Linux 5.14, state before (CO-RE picks the one the kernel has). */
struct task_struct___new {
        unsigned int __state;
} __attribute__((preserve_access_index));

struct task_struct___old {
        long state;
} __attribute__((preserve_access_index));

#define TASK_DEAD 0x80

char LICENSE[] SEC("license") = "GPL";

struct {
        __uint(type, BPF_MAP_TYPE_HASH);
        __uint(max_entries, 16384);             /* pmapid sets its MaxContexts before loading */
        __type(key, __u32);
        __type(value, struct heirs_control);
} controls SEC(".maps");

struct {
        __uint(type, BPF_MAP_TYPE_HASH);
        __uint(max_entries, 16384);
        __type(key, __u32);
        __type(value, struct heirs_counts);
} counts SEC(".maps");

/* Tasks sealed by a set-id exec, keyed by tid: the born_ns of their control then. Only the kernel
 * writes it; pmapid deletes an entry with the control. */
struct {
        __uint(type, BPF_MAP_TYPE_HASH);
        __uint(max_entries, 16384);
        __type(key, __u32);
        __type(value, __u64);
} sealed SEC(".maps");

/* Per owner but root, keyed by uid: threads born (the kernel adds) and dropped (pmapid adds, as it
 * deletes their controls). Their difference is bounded by config.max_births, so that one user's fork
 * bomb cannot fill the maps that every user's births need. */
struct {
        __uint(type, BPF_MAP_TYPE_HASH);
        __uint(max_entries, 4096);
        __type(key, __u32);
        __type(value, __u64);
} births SEC(".maps");

struct {
        __uint(type, BPF_MAP_TYPE_HASH);
        __uint(max_entries, 4096);
        __type(key, __u32);
        __type(value, __u64);
} releases SEC(".maps");

struct {
        __uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
        __uint(key_size, sizeof(__u32));
        __uint(value_size, sizeof(__u32));
        __uint(max_entries, HEIRS_MAX_SOURCES); /* times the CPUs, set before loading */
} sources SEC(".maps");

/* Per CPU: each source's value at the last switch seen on that CPU. */
struct {
        __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
        __uint(max_entries, HEIRS_MAX_SOURCES);
        __type(key, __u32);
        __type(value, struct bpf_perf_event_value);
} starts SEC(".maps");

/* Per CPU: the task the last switch seen on that CPU brought in (struct heirs_last_seen). */

struct {
        __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
        __uint(max_entries, 1);
        __type(key, __u32);
        __type(value, struct heirs_last_seen);
} last_next SEC(".maps");

struct {
        __uint(type, BPF_MAP_TYPE_ARRAY);
        __uint(max_entries, 1);
        __type(key, __u32);
        __type(value, struct heirs_config);
} config SEC(".maps");

/* pmapid's own note of each source's event (never read here): it outlives pmapid's image. */
struct {
        __uint(type, BPF_MAP_TYPE_ARRAY);
        __uint(max_entries, HEIRS_MAX_SOURCES);
        __type(key, __u32);
        __type(value, struct heirs_source);
} source_events SEC(".maps");

struct {
        __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
        __uint(max_entries, HEIRS_N_STATS);
        __type(key, __u32);
        __type(value, __u64);
} stats SEC(".maps");

static __always_inline void stat_add(__u32 which) {
        __u64 *v = bpf_map_lookup_elem(&stats, &which);

        if (v)
                *v += 1;
}

static __always_inline int task_dead(struct task_struct *t) {
        if (bpf_core_field_exists(((struct task_struct___new *) t)->__state))
                return BPF_CORE_READ((struct task_struct___new *) t, __state) == TASK_DEAD;
        return BPF_CORE_READ((struct task_struct___old *) t, state) == TASK_DEAD;
}

/* Whether tid, whose control is c, was sealed by a set-id exec. */
static __always_inline int is_sealed(__u32 tid, const struct heirs_control *c) {
        __u64 *at = bpf_map_lookup_elem(&sealed, &tid);

        return at && *at == c->born_ns;
}

/* Whether the task's memory may be dumped by its user: what perf keeps counting across an exec. */
static __always_inline int dumpable_by_user(struct task_struct *t) {
        struct mm_struct *mm = BPF_CORE_READ(t, mm);
        unsigned long flags;

        if (!mm)
                return 0;
        if (bpf_core_field_exists(((struct mm_struct___bitmap *) mm)->flags))
                flags = BPF_CORE_READ((struct mm_struct___bitmap *) mm, flags.__mm_flags[0]);
        else
                flags = BPF_CORE_READ((struct mm_struct___word *) mm, flags);
        return (flags & MMF_DUMPABLE_MASK) == SUID_DUMP_USER;
}

/* Takes one of owner's births (*ret: the count taken from, to give back; 0 for root, whose are not
 * counted), or -1 where its owner has none left: the kernel's side of MaxContextsPerUser (CPUs
 * racing may pass it by one each). */
static __always_inline int take_birth(__u32 owner, __u64 **ret) {
        __u32 zero = 0;
        struct heirs_config *cfg = bpf_map_lookup_elem(&config, &zero);
        __u64 *born, *released;

        *ret = 0;
        if (owner == 0)
                return 0;
        born = bpf_map_lookup_elem(&births, &owner);
        released = bpf_map_lookup_elem(&releases, &owner);
        if (!cfg || !born || *born - (released ? *released : 0) >= cfg->max_births)
                return -1;
        __sync_fetch_and_add(born, 1);
        *ret = born;
        return 0;
}

SEC("tp_btf/task_newtask")
int BPF_PROG(heirs_newtask, struct task_struct *task, unsigned long clone_flags) {
        __u32 creator = (__u32) bpf_get_current_pid_tgid();
        struct heirs_control *parent = bpf_map_lookup_elem(&controls, &creator);
        struct heirs_control child;
        struct heirs_counts zero = {};
        __u64 *born;
        __u32 tid;

        if (!parent || !(parent->flags & HEIRS_INHERITS) || is_sealed(creator, parent))
                return 0;
        if (take_birth(parent->owner, &born) < 0) {
                stat_add(HEIRS_STAT_BIRTH_LIMITED);
                return 0;
        }
        child = *parent;
        child.flags = (parent->flags & HEIRS_INHERITS) | HEIRS_ACCOUNT | HEIRS_COUNTING |
                      (parent->flags & HEIRS_COUNTING ? HEIRS_CREATOR_COUNTING : 0);
        child.creator = creator;
        child.tgid = (__u32) task->tgid;
        child.born_ns = bpf_ktime_get_ns();
        __builtin_memset(child.base, 0, sizeof(child.base));
        zero.born_ns = child.born_ns;
        tid = (__u32) task->pid;
        /* counts first: a control with HEIRS_ACCOUNT always has its counts */
        if (bpf_map_update_elem(&counts, &tid, &zero, BPF_ANY) < 0) {
                if (born)
                        __sync_fetch_and_add(born, -1);
                stat_add(HEIRS_STAT_BIRTH_FAILED);
                return 0;
        }
        if (bpf_map_update_elem(&controls, &tid, &child, BPF_ANY) < 0) {
                bpf_map_delete_elem(&counts, &tid);
                if (born)
                        __sync_fetch_and_add(born, -1);
                stat_add(HEIRS_STAT_BIRTH_FAILED);
                return 0;
        }
        stat_add(HEIRS_STAT_BORN);
        return 0;
}

/* The control and counts of tid, where it is counted here. */
static __always_inline struct heirs_counts *tracked(__u32 tid, struct heirs_control **ret) {
        struct heirs_control *c = bpf_map_lookup_elem(&controls, &tid);

        if (!c || !(c->flags & HEIRS_ACCOUNT))
                return 0;
        *ret = c;
        return bpf_map_lookup_elem(&counts, &tid);
}

/* Source src's value now on this CPU. A clock is the kernel's monotonic clock (a slice's length is its
 * time on the CPU), which can be read from a tick; the perf event of a clock cannot (its time moves
 * back and forth there). */
static __always_inline long read_source(__u32 src, __u32 cpu, __u32 ncpu, __u32 clocks,
                                        struct bpf_perf_event_value *v) {
        if (clocks >> src & 1) {
                __u64 t = bpf_ktime_get_ns();

                v->counter = v->enabled = v->running = t;
                return 0;
        }
        return bpf_perf_event_read_value(&sources, src * ncpu + cpu, v, sizeof(*v));
}

/* What the task itself says it did since its last slice: the scheduler's runtime, and its minor
 * and major faults (getrusage's); and, for a slice that is not known, the faults of the task the
 * last switch seen brought in, since then (others: 0 where it cannot be read). */
struct own_since {
        __u64 ran;
        __u64 min_flt;
        __u64 maj_flt;
        _Bool others;
        __u64 others_min_flt;
        __u64 others_maj_flt;
};

/* Task c's own count since its last slice of source src, for a slice that is not known (a switch
 * went unseen): a clock takes its runtime, a page-fault source its faults; others nothing. */
static __always_inline __u64 own_count(struct heirs_config *cfg, __u32 src, const struct own_since *own) {
        __u64 v = 0;

        if (cfg->clocks >> src & 1)
                return own->ran;
        if (cfg->faults_min >> src & 1)
                v += own->min_flt;
        if (cfg->faults_maj >> src & 1)
                v += own->maj_flt;
        return v;
}

/* Where a slice of a task goes: its counts, or its local ones (HEIRS_LOCAL). */
struct sums {
        __u64 *counts;
        __u64 *enabled_ns;
        __u64 *running_ns;
        __u32 *read_errors;
};

/* The count of a page-fault source in a slice that is not known, of a task whose own count since its
 * last slice is a: the CPU's count d less what the task the last switch seen brought in faulted
 * since (its own count, o), kept within one of a. perf counts a fault as it starts
 * (PERF_COUNT_SW_PAGE_FAULTS), the task's min_flt and maj_flt as it ends, and a fault may sleep in
 * between (on mmap_lock, say): a alone misses one started in this slice and ended later, or takes
 * one again that an earlier slice counted as it started. d - o holds neither error; it errs where
 * the other task had a fault in flight, or an unseen third task faulted: one at most. */
static __always_inline __u64 unseen_faults(__u64 d, __u64 a, __u64 o) {
        __u64 v = d >= o ? d - o : 0;

        if (v + 1 < a)
                v = a - 1;
        if (v > a + 1)
                v = a + 1;
        return v <= d ? v : d;
}

/* The same for faults in user mode only, which d holds and a and o hold with kernel mode's: the
 * lesser of a and d, but a + 1 where d - o is more than a. That one is a fault in flight as the task
 * left, which perf counted as it started and a takes as it ends, in a slice that does not take it
 * (test-soak's born threads lost one so, 1 run in 30). It errs as unseen_faults() does. */
static __always_inline __u64 unseen_user_faults(__u64 d, __u64 a, __u64 o, _Bool others) {
        if (others && d >= o && d - o > a)
                return a + 1;
        return a < d ? a : d;
}

/* Event i of task c's slice: its source's value now less that at the last switch on this CPU. A
 * source opened since that switch has no value there yet: the slice adds nothing for it. A source
 * not in only (the slice is not known) adds the task's own count since its last slice, but for page
 * faults where the other task's can be read (unseen_faults); for faults in user mode only, the
 * lesser of the task's own (which holds its faults in kernel mode too) and the CPU's count (which
 * may hold another task's), or one more for a fault in flight (unseen_user_faults). */
static __always_inline void slice_add_event(struct heirs_config *cfg, struct heirs_control *c, struct sums *to,
                                            __u32 i, __u32 cpu, __u32 only, const struct own_since *own) {
        struct bpf_perf_event_value now, *last;
        __u32 src = c->sources[i & (HEIRS_MAX_EVENTS - 1)], ncpu = cfg->n_cpus, clocks = cfg->clocks;
        _Bool known = only >> src & 1;
        _Bool fault = (cfg->faults_min | cfg->faults_maj) >> src & 1;
        __u64 d;

        if (src >= HEIRS_MAX_SOURCES)
                return;
        if (!known && !(cfg->faults_user >> src & 1) && !(fault && own->others)) {
                to->counts[i & (HEIRS_MAX_EVENTS - 1)] += own_count(cfg, src, own);
                if (i == 0 && ((clocks | cfg->faults_min | cfg->faults_maj) >> src & 1)) {
                        *to->enabled_ns += own->ran;
                        *to->running_ns += own->ran;
                }
                return;
        }
        last = bpf_map_lookup_elem(&starts, &src);
        if (!last || last->enabled == 0)
                return;
        if (read_source(src, cpu, ncpu, clocks, &now) < 0) {
                (*to->read_errors)++;
                return;
        }
        d = now.counter >= last->counter ? now.counter - last->counter : 0;
        if (!known) {
                __u64 o = 0;

                if (cfg->faults_min >> src & 1)
                        o += own->others_min_flt;
                if (cfg->faults_maj >> src & 1)
                        o += own->others_maj_flt;
                if (cfg->faults_user >> src & 1)
                        d = unseen_user_faults(d, own_count(cfg, src, own), o, own->others);
                else
                        d = unseen_faults(d, own_count(cfg, src, own), o);
        }
        to->counts[i & (HEIRS_MAX_EVENTS - 1)] += d;
        if (i == 0 && now.enabled >= last->enabled && now.running >= last->running) {
                *to->enabled_ns += now.enabled - last->enabled;
                *to->running_ns += now.running - last->running;
        }
}

/* The sources a slice ending now on this CPU may take, where the task leaving is tid: all, unless
 * a switch went unseen since the last one seen (that one brought another task in). */
static __always_inline __u32 slice_sources(struct heirs_config *cfg, struct heirs_last_seen *last, __u32 tid) {
        struct heirs_control *carrier;
        __u32 only;

        if (last->tid == tid)
                return 0xffffffff;
        /* pmapid's own faults (a re-execution makes many) are never a counted task's; nor the
         * unseen task's: a slice of page faults takes the task's own */
        only = cfg->self_tgid && last->tgid == cfg->self_tgid ? 0 :
               cfg->idle_blind & ~(cfg->faults_min | cfg->faults_maj);
        /* nor a carrier's, which its own perf counters count already */
        carrier = bpf_map_lookup_elem(&controls, &last->tid);
        if (carrier && !(carrier->flags & HEIRS_ACCOUNT))
                only = 0;
        stat_add(HEIRS_STAT_UNSEEN_SWITCH);
        return only;
}

static __always_inline __u64 since(__u64 *last, __u64 now) {
        __u64 d = now >= *last ? now - *last : 0;

        *last = now;
        return d;
}

/* Task t's own counts since its last slice, which they become: the scheduler's runtime
 * (sum_exec_runtime: brought up to date before sched_switch; at an exec, as of the last tick) and
 * its faults. */
static __always_inline void own_since(struct heirs_counts *n, struct task_struct *t, struct own_since *own) {
        own->ran = since(&n->runtime_ns, BPF_CORE_READ(t, se.sum_exec_runtime));
        own->min_flt = since(&n->min_flt, BPF_CORE_READ(t, min_flt));
        own->maj_flt = since(&n->maj_flt, BPF_CORE_READ(t, maj_flt));
        own->others = 0;
        own->others_min_flt = own->others_maj_flt = 0;
}

/* For a slice that is not known (only is not all): the faults since of the task the last switch
 * seen brought in, read through the pointer noted then where it still names that task (a task that
 * exited since may have left it to another). */
static __always_inline void others_since(struct heirs_last_seen *last, __u32 only, struct own_since *own) {
        struct task_struct *t = (struct task_struct *) last->task;
        __u64 min_flt, maj_flt;

        if (only == 0xffffffff || !t || (__u32) BPF_CORE_READ(t, pid) != last->tid)
                return;
        min_flt = BPF_CORE_READ(t, min_flt);
        maj_flt = BPF_CORE_READ(t, maj_flt);
        if (min_flt < last->min_flt || maj_flt < last->maj_flt)
                return;
        own->others = 1;
        own->others_min_flt = min_flt - last->min_flt;
        own->others_maj_flt = maj_flt - last->maj_flt;
}

/* Notes t as the task the last switch seen on this CPU brought in. */
static __always_inline void note_next(struct heirs_last_seen *last, struct task_struct *t) {
        last->by_runtime = 0;
        last->task = (__u64) t;
        last->min_flt = BPF_CORE_READ(t, min_flt);
        last->maj_flt = BPF_CORE_READ(t, maj_flt);
        last->tgid = (__u32) BPF_CORE_READ(t, tgid);
        last->tid = (__u32) BPF_CORE_READ(t, pid);
}

/* The slice ending now on this CPU, of the sources in only, added to the counts n of task c, or to
 * its local counts while flags (c's, read once) say HEIRS_LOCAL (and HEIRS_HANDING: adds_slice);
 * own: the task's own counts since its last slice. */
static __always_inline void add_slice(struct heirs_config *cfg, struct heirs_control *c, __u32 flags,
                                      struct heirs_counts *n, __u32 cpu, __u32 only, const struct own_since *own) {
        struct sums to = { n->counts, &n->enabled_ns, &n->running_ns, &n->read_errors };
        __u32 i;

        if (flags & HEIRS_LOCAL)
                to = (struct sums) { n->local_counts, &n->local_enabled_ns, &n->local_running_ns, &n->read_errors };
        for (i = 0; i < HEIRS_MAX_EVENTS; i++) {
                if (i >= c->n_events)
                        break;
                slice_add_event(cfg, c, &to, i, cpu, only, own);
        }
        n->slices++;
        stat_add(HEIRS_STAT_SLICES);
}

/* c's flags, read once: pmapid may write them meanwhile. */
static __always_inline __u32 flags_of(struct heirs_control *c) {
        return *(volatile __u32 *) &c->flags;
}

/* Whether a task with these flags has its slices added: counting, and not reading itself in
 * process, but while pmapid hands it over (then to its local counts). */
static __always_inline _Bool adds_slice(__u32 flags) {
        return (flags & HEIRS_COUNTING) && (!(flags & HEIRS_LOCAL) || (flags & HEIRS_HANDING));
}

/* Every open source's value now starts the next slice on this CPU. */
static __always_inline void restart_slice(struct heirs_config *cfg, __u32 cpu) {
        __u32 i;

        for (i = 0; i < HEIRS_MAX_SOURCES; i++) {
                struct bpf_perf_event_value *last;
                __u32 src = i;

                if (i >= cfg->n_sources)
                        break;
                last = bpf_map_lookup_elem(&starts, &src);
                if (last && read_source(src, cpu, cfg->n_cpus, cfg->clocks, last) < 0)
                        __builtin_memset(last, 0, sizeof(*last));
        }
}

/* Ends the slice of task prev (tid) on this CPU now: adds it to prev's counts where it is counted
 * here, and makes them final where prev is dead (its last switch away). Returns whether prev's
 * clock came from its runtime: a slice whose start went unseen, or one after such a slice that a
 * fold or an exec ended (by_runtime). The runtime lags by up to a tick for a task still on its CPU;
 * a slice timed from here on would lose that lag for good, so the runtime times the task's clock
 * until its next switch seen, when the scheduler has brought it up to date and the lag is counted. */
static __always_inline _Bool end_slice(struct heirs_config *cfg, struct heirs_last_seen *last, struct task_struct *prev,
                                       __u32 tid, __u32 cpu, _Bool may_die) {
        _Bool by_runtime = last->tid == tid && last->by_runtime;
        __u32 only = by_runtime ? ~cfg->clocks : slice_sources(cfg, last, tid);
        struct heirs_control *c;
        struct heirs_counts *n = tracked(tid, &c);

        if (!n)
                return 0;
        if (only != 0xffffffff)
                stat_add(HEIRS_STAT_AMBIGUOUS);
        if (!(n->state & HEIRS_FINAL)) {
                struct own_since own;
                __u32 flags = flags_of(c);

                own_since(n, prev, &own);
                if (!by_runtime)
                        others_since(last, only, &own);
                if (adds_slice(flags) && !is_sealed(tid, c))
                        add_slice(cfg, c, flags, n, cpu, only, &own);
                if (may_die && task_dead(prev)) {
                        bpf_probe_read_kernel_str(n->comm, sizeof(n->comm), prev->comm);
                        n->state |= HEIRS_FINAL;
                }
        }
        return (cfg->clocks & ~only) != 0;
}

/* This CPU's config and last switch seen, where the sources are open (NULL: nothing to do). */
static __always_inline struct heirs_config *slice_state(__u32 cpu, struct heirs_last_seen **last) {
        __u32 zero = 0;
        struct heirs_config *cfg = bpf_map_lookup_elem(&config, &zero);

        *last = bpf_map_lookup_elem(&last_next, &zero);
        if (!cfg || !*last || cpu >= cfg->n_cpus || cfg->n_sources == 0)
                return 0;
        return cfg;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(heirs_switch, _Bool preempt, struct task_struct *prev, struct task_struct *next) {
        __u32 cpu = bpf_get_smp_processor_id();
        struct heirs_last_seen *last;
        struct heirs_config *cfg = slice_state(cpu, &last);

        if (!cfg)
                return 0;
        end_slice(cfg, last, prev, (__u32) prev->pid, cpu, 1);
        restart_slice(cfg, cpu);
        /* last: pmapid takes a task no CPU's note names for one whose last slice is added */
        note_next(last, next);
        return 0;
}

/* The fold: pmapid runs it on a CPU (BPF_PROG_TEST_RUN with BPF_F_TEST_RUN_ON_CPU, which interrupts
 * the CPU) before it reads, stops, starts or resets a thread running there, so that the thread's
 * counts hold what it did up to the call: its slice so far is ended as a switch would end it, and a
 * new one starts. Never attached. On an interrupted exec (heirs_exec is midway through the same
 * per-CPU state) it does nothing: that slice is ended by the exec. */
SEC("raw_tp")
int heirs_fold(void *ctx) {
        __u32 cpu = bpf_get_smp_processor_id();
        struct heirs_last_seen *last;
        struct heirs_config *cfg = slice_state(cpu, &last);
        struct task_struct *cur = (struct task_struct *) bpf_get_current_task();

        _Bool by_runtime;

        if (!cfg || last->busy)
                return 0;
        by_runtime = end_slice(cfg, last, cur, (__u32) BPF_CORE_READ(cur, pid), cpu, 0);
        restart_slice(cfg, cpu);
        note_next(last, cur);
        last->by_runtime = by_runtime;
        stat_add(HEIRS_STAT_FOLDS);
        return 0;
}

/* An exec that leaves the task non-dumpable by its user seals it: what it counted up to here stays,
 * it counts nothing more and passes nothing on (perf's counters stop there too). A multi-threaded
 * exec leaves the task with its leader's tid (old_pid was its own). */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(heirs_exec, struct task_struct *task, int old_pid) {
        __u32 cpu = bpf_get_smp_processor_id(), tid = (__u32) old_pid;
        struct heirs_control *c = bpf_map_lookup_elem(&controls, &tid);
        struct heirs_config *cfg;
        struct heirs_last_seen *last;
        __u64 born;

        if (!c || is_sealed(tid, c) || dumpable_by_user(task))
                return 0;
        born = c->born_ns;
        cfg = slice_state(cpu, &last);
        if (cfg) {
                _Bool by_runtime;

                last->busy = 1;
                by_runtime = end_slice(cfg, last, task, tid, cpu, 0);
                restart_slice(cfg, cpu);
                note_next(last, task);
                last->by_runtime = by_runtime;
                last->busy = 0;
        }
        bpf_map_update_elem(&sealed, &tid, &born, BPF_ANY);
        stat_add(HEIRS_STAT_SEALED);
        return 0;
}

/* A task in its exit: its counts are final at its last switch away, which a reader waits for. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(heirs_exit) {
        struct heirs_control *c;
        struct heirs_counts *n = tracked((__u32) bpf_get_current_pid_tgid(), &c);

        if (n)
                n->state |= HEIRS_EXITING;
        return 0;
}
