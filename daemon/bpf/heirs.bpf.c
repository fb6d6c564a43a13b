/* heirs.bpf.c: inheritance inside the kernel (DESIGN.md §9). Three programs on scheduler
 * tracepoints, all before or outside the new task's own code:
 * - task_newtask runs in the creator, inside clone(), before the new task can run: a creator with a
 *   control that inherits gives the new task a copy of it, and zeroed counts;
 * - sched_switch reads the CPU's counters of the events a tracked task counts when the task comes
 *   onto the CPU and again when it leaves: the difference is the task's own slice, added to its
 *   counts while its control says counting;
 * - a task's last switch away (its state TASK_DEAD) ends its last slice: its counts are final,
 *   everything up to the end of its exit included (as getrusage counts it; perf's own task counters
 *   stop a little earlier, at perf_event_exit_task(), for kernel-mode events only).
 * The counters themselves are pmapid's per-CPU perf events (the sources map); no task has one of its
 * own. Nothing here runs for a task without a control beyond two hash lookups per switch. */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "heirs-abi.h"

/* Only the fields read, located in the running kernel's BTF when loaded (CO-RE). */
struct task_struct {
        int pid;
        int tgid;
} __attribute__((preserve_access_index));

/* The task's state: __state since Linux 5.14, state before (CO-RE picks the one the kernel has). */
struct task_struct___new {
        unsigned int __state;
} __attribute__((preserve_access_index));

struct task_struct___old {
        long state;
} __attribute__((preserve_access_index));

#define TASK_DEAD 0x80

static __always_inline int task_dead(struct task_struct *t) {
        if (bpf_core_field_exists(((struct task_struct___new *) t)->__state))
                return BPF_CORE_READ((struct task_struct___new *) t, __state) == TASK_DEAD;
        return BPF_CORE_READ((struct task_struct___old *) t, state) == TASK_DEAD;
}

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

struct {
        __uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
        __uint(key_size, sizeof(__u32));
        __uint(value_size, sizeof(__u32));
        __uint(max_entries, HEIRS_MAX_SOURCES); /* times the CPUs, set before loading */
} sources SEC(".maps");

/* Per CPU: each source's value when the task now on that CPU came onto it. */
struct {
        __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
        __uint(max_entries, HEIRS_MAX_SOURCES);
        __type(key, __u32);
        __type(value, struct bpf_perf_event_value);
} starts SEC(".maps");

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

SEC("tp_btf/task_newtask")
int BPF_PROG(heirs_newtask, struct task_struct *task, unsigned long clone_flags) {
        __u32 creator = (__u32) bpf_get_current_pid_tgid();
        struct heirs_control *parent = bpf_map_lookup_elem(&controls, &creator);
        struct heirs_control child;
        struct heirs_counts zero = {};
        __u32 tid;

        if (!parent || !(parent->flags & HEIRS_INHERITS))
                return 0;
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
                stat_add(HEIRS_STAT_BIRTH_FAILED);
                return 0;
        }
        if (bpf_map_update_elem(&controls, &tid, &child, BPF_ANY) < 0) {
                bpf_map_delete_elem(&counts, &tid);
                stat_add(HEIRS_STAT_BIRTH_FAILED);
                return 0;
        }
        stat_add(HEIRS_STAT_BORN);
        return 0;
}

static __always_inline __u32 n_cpus(void) {
        __u32 zero = 0;
        struct heirs_config *c = bpf_map_lookup_elem(&config, &zero);

        return c ? c->n_cpus : 0;
}

/* The slice of the task whose counts are n ends now on cpu: the sources' values now less those at
 * its start are added while its control says counting. */
static __always_inline void slice_add(struct heirs_control *c, struct heirs_counts *n, __u32 cpu, __u32 ncpu) {
        __u32 i;

        n->state &= ~HEIRS_ON_CPU;
        if (!(c->flags & HEIRS_COUNTING))
                return;
        for (i = 0; i < HEIRS_MAX_EVENTS; i++) {
                struct bpf_perf_event_value now, *start;
                __u32 src;

                if (i >= c->n_events)
                        break;
                src = c->sources[i];
                if (src >= HEIRS_MAX_SOURCES)
                        continue;
                start = bpf_map_lookup_elem(&starts, &src);
                if (!start)
                        continue;
                if (bpf_perf_event_read_value(&sources, src * ncpu + cpu, &now, sizeof(now)) < 0) {
                        n->read_errors++;
                        continue;
                }
                n->counts[i] += now.counter - start->counter;
                if (i == 0) {
                        n->enabled_ns += now.enabled - start->enabled;
                        n->running_ns += now.running - start->running;
                }
        }
        stat_add(HEIRS_STAT_SLICES);
}

/* The control and counts of tid, where it is counted here. */
static __always_inline struct heirs_counts *tracked(__u32 tid, struct heirs_control **ret) {
        struct heirs_control *c = bpf_map_lookup_elem(&controls, &tid);

        if (!c || !(c->flags & HEIRS_ACCOUNT))
                return 0;
        *ret = c;
        return bpf_map_lookup_elem(&counts, &tid);
}

/* next comes onto the CPU: the sources' values now start its slice. */
static __always_inline void slice_start(struct heirs_control *c, struct heirs_counts *n, __u32 cpu, __u32 ncpu) {
        __u32 i;

        if (n->state & HEIRS_FINAL)
                return;                 /* in its exit: counted up to its exit record, as perf does */
        for (i = 0; i < HEIRS_MAX_EVENTS; i++) {
                struct bpf_perf_event_value *start;
                __u32 src;

                if (i >= c->n_events)
                        break;
                src = c->sources[i];
                if (src >= HEIRS_MAX_SOURCES)
                        continue;
                start = bpf_map_lookup_elem(&starts, &src);
                if (!start)
                        continue;
                if (bpf_perf_event_read_value(&sources, src * ncpu + cpu, start, sizeof(*start)) < 0)
                        __builtin_memset(start, 0, sizeof(*start));
        }
        n->state |= HEIRS_ON_CPU;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(heirs_switch, _Bool preempt, struct task_struct *prev, struct task_struct *next) {
        __u32 cpu = bpf_get_smp_processor_id();
        __u32 ncpu = n_cpus();
        struct heirs_control *c;
        struct heirs_counts *n;

        if (cpu >= ncpu)
                return 0;
        n = tracked((__u32) prev->pid, &c);
        if (n && (n->state & HEIRS_ON_CPU))
                slice_add(c, n, cpu, ncpu);
        if (n && task_dead(prev))
                n->state |= HEIRS_FINAL;
        n = tracked((__u32) next->pid, &c);
        if (n)
                slice_start(c, n, cpu, ncpu);
        return 0;
}
