/* context.c: a thread context's state machine over a counter backend. The counters are the truth:
 * reset is a kernel reset, never a software offset, so a direct read of the counters would agree
 * with what the daemon reports. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include "accounting.h"
#include "caller.h"
#include "clock.h"
#include "context.h"
#include "group.h"
#include "heirs.h"
#include "local-page.h"
#include "local-share.h"
#include "program-share.h"
#include "macro.h"
#include "perf-syscall.h"

size_t context_n_sets(const Context *c) {
        return program_n_sets(c->program);
}

CounterGroup *context_set_counters(const Context *c, size_t set) {
        return set == 0 ? c->counters : c->more_sets[set - 1].counters;
}

static const ProgramEncoding *set_encoding(Context *c, size_t set) {
        return set == 0 ? c->encoding : &c->more_sets[set - 1].encoding;
}

static CounterTimes *set_time_base(Context *c, size_t set) {
        return set == 0 ? &c->time_base : &c->more_sets[set - 1].time_base;
}

size_t context_n_events(const Context *c) {
        size_t n = c->encoding->n_events;

        for (size_t k = 1; k < context_n_sets(c); k++)
                n += c->more_sets[k - 1].encoding.n_events;
        return n;
}

static int alloc_more_sets(Context *c, const EventTable *events) {
        size_t n = context_n_sets(c);

        if (n == 1)
                return 0;
        c->more_sets = calloc(n - 1, sizeof(ContextSet));
        if (!c->more_sets)
                return -ENOMEM;
        for (size_t k = 1; k < n; k++) {
                Program one = program_set(c->program, k);
                program_encode(&one, events, &c->more_sets[k - 1].encoding);
        }
        return 0;
}

/* The groups of sets 1.. on the thread: never with a private leader (local reads are set 0's only
 * and a multi-set context has none). */
static int open_more_sets(Context *c, const EventTable *events) {
        int r = alloc_more_sets(c, events);

        for (size_t k = 1; r >= 0 && k < context_n_sets(c); k++) {
                ContextSet *set = &c->more_sets[k - 1];
                r = c->backend->open(&(CounterTarget) { .tid = c->tid, .cpu = -1, .cgroup_fd = -1 },
                                     set->encoding.attrs, set->encoding.n_events, &set->counters);
        }
        return r;
}

/* counter.h's user_read: only arm64 has it, and only where anyone may count CPU-wide anyway. Read at
 * context creation, so only on arm64: elsewhere it would cost every new thread a /proc read. */
static bool pmu_user_read_allowed(void) {
#if defined(__aarch64__)
        return perf_event_paranoid() <= 0;
#else
        return false;
#endif
}

int context_new(const CounterBackend *backend, const EventTable *events, pid_t pid, pid_t tid,
                uid_t owner_uid, const Program *program, int pidfd, Context **ret) {
        return context_new_with(backend, events, pid, tid, owner_uid, program, pidfd, false, ret);
}

/* A context with its shared program and nothing opened. */
static Context *context_alloc(const CounterBackend *backend, const EventTable *events, pid_t pid, pid_t tid,
                              uid_t owner_uid, const Program *program) {
        Context *c = calloc(1, sizeof(*c));

        if (!c)
                return NULL;
        *c = (Context) { .pid = pid, .tid = tid, .owner_uid = owner_uid, .backend = backend, .pidfd = -1 };
        c->program = program_share(program, events);
        if (!c->program) {
                free(c);
                return NULL;
        }
        c->encoding = program_share_encoding(c->program);
        return c;
}

int context_new_with(const CounterBackend *backend, const EventTable *events, pid_t pid, pid_t tid,
                     uid_t owner_uid, const Program *program, int pidfd, unsigned flags, Context **ret) {
        bool private_leader = flags & CONTEXT_PRIVATE_LEADER;
        Context *c;
        int r;

        c = context_alloc(backend, events, pid, tid, owner_uid, program);
        if (!c)
                return -ENOMEM;
        c->private_leader = private_leader;

        r = backend->open(&(CounterTarget) { .tid = tid, .cpu = -1, .private_leader = private_leader,
                                             .user_read = private_leader && pmu_user_read_allowed(),
                                             .cgroup_fd = -1 },
                          c->encoding->attrs, c->encoding->n_events, &c->counters);
        if (r < 0)
                goto fail;
        r = open_more_sets(c, events);
        if (r < 0)
                goto fail;
        if (program_counts_on_start(program) && !(flags & CONTEXT_STOPPED)) {
                r = context_start(c);
                if (r < 0)
                        goto fail;
        }
        c->pidfd = pidfd;
        *ret = c;
        return 0;
fail:
        context_free(c);
        return r;
}

int context_open_own_counters(Context *c) {
        int r;

        if (c->private_leader)
                return 0;
        if (c->backend != &counter_backend_bpf || context_n_sets(c) != 1)
                return -EOPNOTSUPP;
        r = counter_bpf_open_local(c->counters, c->encoding->attrs, c->encoding->n_events, c->enabled,
                                   pmu_user_read_allowed());
        if (r < 0)
                return r;
        c->private_leader = true;
        return 0;
}

int context_adopt(const CounterBackend *backend, const EventTable *events, pid_t pid, pid_t tid, uid_t owner_uid,
                  const Program *program, CounterGroup **counters, int pidfd, Context **ret) {
        Context *c = context_alloc(backend, events, pid, tid, owner_uid, program);

        if (!c)
                return -ENOMEM;
        if (alloc_more_sets(c, events) < 0) {
                context_free(c);
                return -ENOMEM;
        }
        c->counters = counters[0];
        for (size_t k = 1; k < context_n_sets(c); k++)
                c->more_sets[k - 1].counters = counters[k];
        c->pidfd = pidfd;
        *ret = c;
        return 0;
}

const char *context_origin_to_string(ContextOrigin o) {
        static const char *const names[_CONTEXT_ORIGIN_MAX] = {
                [CONTEXT_SET_PROGRAM] = "SetProgram",
                [CONTEXT_SET_GROUP_PROGRAM] = "SetGroupProgram",
                [CONTEXT_INHERIT] = "Inherit",
                [CONTEXT_FORK_RECORD] = "fork-record",
        };
        return o >= 0 && o < _CONTEXT_ORIGIN_MAX ? names[o] : "unknown";
}

Context *context_free(Context *c) {
        if (!c)
                return NULL;
        context_sync_local(c);          /* the thread's last switches stand */
        local_share_close(c);           /* the thread's handle says so before the counters go */
        sd_event_source_disable_unref(c->exit_source);
        if (c->counters)
                c->backend->close(c->counters);
        for (size_t k = 1; c->more_sets && k < context_n_sets(c); k++)
                if (c->more_sets[k - 1].counters)
                        c->backend->close(c->more_sets[k - 1].counters);
        free(c->more_sets);
        if (c->pidfd >= 0)
                close(c->pidfd);
        program_unshare(c->program);
        free(c);
        return NULL;
}

int context_apply_state(Context *c) {
        bool want = acct_effective(c->counting, c->group ? group_counting(c->group) : true);
        int r;

        if (want == c->enabled)
                return 0;
        /* Every set, as close together as one loop makes it: their times then agree. One that
         * fails switches those before it back, so that the sets never part. */
        for (size_t k = 0; k < context_n_sets(c); k++) {
                CounterGroup *g = context_set_counters(c, k);
                r = want ? c->backend->enable(g) : c->backend->disable(g);
                if (r < 0) {
                        while (k-- > 0) {
                                g = context_set_counters(c, k);
                                (void) (want ? c->backend->disable(g) : c->backend->enable(g));
                        }
                        return r;
                }
        }
        c->enabled = want;
        /* What its creations are born with, where the kernel carries its state (heirs.h). */
        if (c->backend != &counter_backend_bpf && counter_bpf_engine())
                (void) heirs_set_counting(counter_bpf_engine(), c->tid, want);
        return 0;
}

void context_record_counting(Context *c, bool old_counting) {
        if (old_counting == c->counting)
                return;
        c->history[c->next_history] = (StateChange) { now_monotonic_ns(), c->counting };
        c->next_history = (c->next_history + 1) % CONTEXT_STATE_HISTORY;
        if (c->n_history < CONTEXT_STATE_HISTORY)
                c->n_history++;
}

/* The times the thread read right after its last reset in process (pm_reset_data_mythread): the
 * new base, when they are believable. A seqlock on resets (odd while the thread writes): what is
 * read between two equal even counts is one reset's. The thread's word is taken only within what
 * the kernel says now: between the old base and the times now, and with no less time off the PMU
 * than before (a hostile thread could otherwise make pmapid scale its counts without bound). */
static void sync_local_resets(Context *c, const LocalState *st) {
        for (int tries = 0; tries < 4; tries++) {
                uint32_t n = __atomic_load_n(&st->resets, __ATOMIC_ACQUIRE);
                CounterTimes t = { __atomic_load_n(&st->reset_enabled_ns, __ATOMIC_RELAXED),
                                   __atomic_load_n(&st->reset_running_ns, __ATOMIC_RELAXED) }, now;
                uint64_t values[MAX_COUNTERS];

                if (n == c->local_resets)
                        return;
                __atomic_thread_fence(__ATOMIC_ACQUIRE);
                if ((n & 1) || __atomic_load_n(&st->resets, __ATOMIC_RELAXED) != n)
                        continue;
                c->local_resets = n;
                /* The thread's times are its own counters'; the group's add what was carried. */
                if (c->backend->carried) {
                        CounterTimes before;

                        c->backend->carried(c->counters, values, c->encoding->n_events, &before);
                        t.enabled_ns += before.enabled_ns;
                        t.running_ns += before.running_ns;
                }
                if (c->backend->read(c->counters, values, c->encoding->n_events, &now) < 0 ||
                    t.enabled_ns < c->time_base.enabled_ns || t.running_ns < c->time_base.running_ns ||
                    t.enabled_ns > now.enabled_ns || t.running_ns > now.running_ns || t.running_ns > t.enabled_ns ||
                    t.enabled_ns - t.running_ns < c->time_base.enabled_ns - c->time_base.running_ns ||
                    now.enabled_ns - now.running_ns < t.enabled_ns - t.running_ns)
                        return;         /* not a reset of these counters: the old base stands */
                /* What was carried went with the thread's reset (its reads drop it already). */
                if (c->backend->drop_carried && c->backend->drop_carried(c->counters) < 0)
                        return;
                c->time_base = t;
                local_share_publish_base(c);
                return;
        }
}

void context_sync_local(Context *c) {
        const LocalState *st = c->local_state;
        uint32_t n, first;

        if (!st)
                return;
        sync_local_resets(c, st);
        n = __atomic_load_n(&st->n, __ATOMIC_ACQUIRE);
        first = n - c->local_merged > LOCAL_STATE_RING ? n - LOCAL_STATE_RING : c->local_merged;
        for (uint32_t i = first; i != n; i++) {
                LocalStateChange ch = st->ring[i % LOCAL_STATE_RING];
                const StateChange *newest = c->n_history > 0 ?
                        &c->history[(c->next_history + CONTEXT_STATE_HISTORY - 1) % CONTEXT_STATE_HISTORY] : NULL;
                bool on = ch.counting != 0;

                /* Older than a change pmapid made since (a third party's): that one stands. */
                if (newest && ch.time_ns < newest->time_ns)
                        continue;
                if (on != c->counting) {
                        c->history[c->next_history] = (StateChange) { ch.time_ns, on };
                        c->next_history = (c->next_history + 1) % CONTEXT_STATE_HISTORY;
                        if (c->n_history < CONTEXT_STATE_HISTORY)
                                c->n_history++;
                }
                c->counting = on;
                c->enabled = acct_effective(on, c->group ? group_counting(c->group) : true);
        }
        c->local_merged = n;
}

bool context_counting_at(const Context *c, uint64_t t) {
        const StateChange *oldest = NULL;

        for (size_t k = 1; k <= c->n_history; k++) {
                const StateChange *h = &c->history[(c->next_history + CONTEXT_STATE_HISTORY - k) %
                                                   CONTEXT_STATE_HISTORY];
                if (h->time_ns <= t)
                        return h->counting;
                oldest = h;
        }
        /* Older than every recorded change: the state before the oldest (changes alternate). */
        return oldest ? !oldest->counting : c->counting;
}

static int context_set_counting(Context *c, bool on) {
        bool old;
        int r;

        context_sync_local(c);          /* what the thread switched itself comes first */
        old = c->counting;
        c->counting = on;
        r = context_apply_state(c);
        if (r < 0)
                c->counting = old;
        else
                context_record_counting(c, old);
        return r;
}

int context_start(Context *c) {
        return context_set_counting(c, true);
}

int context_stop(Context *c) {
        return context_set_counting(c, false);
}

int context_reset(Context *c) {
        uint64_t values[MAX_COUNTERS];
        int r;

        context_sync_local(c);          /* the thread's own resets before this one */
        for (size_t k = 0; k < context_n_sets(c); k++) {
                r = c->backend->reset(context_set_counters(c, k));
                if (r < 0)
                        return r;
                /* The kernel zeroes the counts, not the times: they count from now on. */
                r = c->backend->read(context_set_counters(c, k), values, set_encoding(c, k)->n_events,
                                     set_time_base(c, k));
                if (r < 0)
                        return r;
        }
        local_share_publish_base(c);
        return 0;
}

int context_read_set(Context *c, size_t set, AcctVector accu) {
        uint64_t values[MAX_COUNTERS];
        int64_t counts[MAX_COUNTERS];
        const CounterTimes *base;
        CounterTimes t;
        int r;

        if (set >= context_n_sets(c))
                return -EINVAL;
        context_sync_local(c);          /* a reset the thread made itself moves the time base */
        r = c->backend->read(context_set_counters(c, set), values, set_encoding(c, set)->n_events, &t);
        if (r < 0)
                return r;
        program_spread_values(set_encoding(c, set), values, counts);
        base = set_time_base(c, set);
        if (program_multi_set(c->program))
                acct_raw_from_counts(accu, counts, t.enabled_ns, t.running_ns, base->enabled_ns, base->running_ns);
        else
                acct_from_counts(accu, counts, t.enabled_ns, t.running_ns, base->enabled_ns, base->running_ns);
        return 0;
}

int context_read(Context *c, AcctVector accu) {
        return context_read_set(c, 0, accu);
}

Program context_get_program(Context *c) {
        context_sync_local(c);
        return program_with_count(c->program, c->counting);
}

bool context_thread_alive(const Context *c) {
        _cleanup_close_ int fd = -1;

        if (c->pidfd >= 0)
                return thread_pin_alive(c->pidfd);
        if (c->thread_ino == 0)
                return true;
        fd = thread_pin_open(c->tid);
        if (fd < 0)
                return errno != ESRCH;  /* out of fds or memory says nothing about the thread */
        return thread_pin_id(fd) == c->thread_ino && thread_pin_alive(fd);
}

void context_set_comm(Context *c, const char *comm) {
        (void) snprintf(c->comm, sizeof(c->comm), "%s", comm);
}

int context_read_comm(Context *c) {
        char path[64], buf[CONTEXT_COMM_MAX + 1];
        _cleanup_close_ int fd = -1;
        ssize_t n;

        (void) snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int) c->pid, (int) c->tid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        n = read(fd, buf, sizeof(buf) - 1);
        if (n < 0)
                return -errno;
        while (n > 0 && buf[n - 1] == '\n')
                n--;
        buf[n] = '\0';
        context_set_comm(c, buf);
        return 0;
}
