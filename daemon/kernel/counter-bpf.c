/* counter-bpf.c: the counter backend of a thread born in the kernel (heirs.h): its counts are the
 * slices the kernel summed for it since its first instruction, read from a map, so it has no fd of
 * its own. It opens only what heirs.bpf.c made: open() adopts a born thread (-ENOENT for another),
 * and the group is counting as it was born (the creator's state); the context switches it from
 * there. A reset keeps a base with the thread's control: the kernel's sums only grow. Closing a group
 * leaves the thread's maps alone: a context's end drops them (heirs_drop), a handover keeps them.
 * A born thread that reads itself in process (OpenLocal) gets perf counters of its own: from then on
 * they count it, the kernel's sums stay as they were (carried), and a read is the two together. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "counter.h"
#include "heirs.h"
#include "log.h"
#include "macro.h"

struct CounterGroup {
        pid_t tid;
        uint64_t born_ns;
        size_t n;
        HeirsReading last;              /* the last reading: what a reused tid's group still reads */
        CounterGroup *local;            /* counter_backend_perf's, once it reads in process; or NULL */
};

static Heirs *engine;

void counter_bpf_set_engine(Heirs *h) {
        engine = h;
}

Heirs *counter_bpf_engine(void) {
        return engine;
}

/* counter_bpf_reads_begin()'s, which nest (a page of groups, each group's members): the outermost
 * folds, the first that asks for a copy takes it and its end drops it. */
static unsigned reads_depth;
static unsigned copy_depth;             /* the depth that holds the copy, 0: none */

/* A fold that fails leaves counts as of the thread's last switch: said once, in the debug log. */
static void fold_failed(int r) {
        static bool said;

        if (r < 0 && !said) {
                said = true;
                log_debug("The kernel did not run the fold (%s): a running born thread is read as of its "
                          "last switch.", strerror(-r));
        }
}

/* A running born thread's counts up to now: its slice so far is ended on its CPU (heirs.bpf.c, the
 * fold). A thread's own call blocks it on the bus, but pmapid may take the call before the thread
 * has left its CPU: without the fold, its stop dropped the 400 pages it had just touched (the arm64
 * guest), and a read of a thread that keeps its CPU showed nothing of its work for seconds. */
static void fold(void) {
        fold_failed(heirs_fold_running(engine));       /* every busy CPU: see heirs.h */
}

void counter_bpf_reads_begin(bool copy) {
        if (!engine)
                return;
        if (reads_depth++ == 0)
                fold();
        if (copy && copy_depth == 0) {
                copy_depth = reads_depth;
                heirs_batch_begin(engine);
        }
}

void counter_bpf_reads_end(void) {
        if (!engine || reads_depth == 0)
                return;
        if (copy_depth == reads_depth) {
                copy_depth = 0;
                heirs_batch_end(engine);
        }
        reads_depth--;
}

/* The last switch away of a dying thread follows its exit record by microseconds; 100 ms covers a
 * dying thread that waits for a busy CPU (20 ms did not, with two spinners on two CPUs). */
#define SETTLE_TIMEOUT_NS (100 * 1000 * 1000ull)

void counter_bpf_settle(CounterGroup *g) {
        HeirsReading rd;
        int r;

        if (!engine || heirs_wait_final(engine, g->tid, g->born_ns, SETTLE_TIMEOUT_NS))
                return;
        r = heirs_read(engine, g->tid, g->born_ns, &rd);
        if (r < 0)
                log_debug("Thread %d: its counts are no longer in the kernel's maps (%s).", (int) g->tid, strerror(-r));
        else
                log_debug("Thread %d: its last slice did not come within %llu ms, its counts may miss it.",
                          (int) g->tid, SETTLE_TIMEOUT_NS / 1000000);
}

static int bpf_open(const CounterTarget *target, const struct perf_event_attr *attrs, size_t n, CounterGroup **ret) {
        CounterGroup *g;
        HeirsBirth birth;

        if (!engine || target->cpu != -1 || target->inherit || n > 8)
                return -EOPNOTSUPP;
        if (!heirs_born(engine, target->tid, &birth))
                return -ENOENT;
        g = calloc(1, sizeof(*g));
        if (!g)
                return -ENOMEM;
        g->tid = target->tid;
        g->born_ns = birth.born_ns;
        g->n = n;
        g->last.born_ns = birth.born_ns;
        *ret = g;
        return 0;
}

/* Its own state, which its creations are born with, and its own counters where it has them. */
static int bpf_switch(CounterGroup *g, bool on) {
        int r;

        fold();   /* its slice so far is counted or not as its state was */
        r = heirs_set_counting(engine, g->tid, on);

        if (r < 0 && r != -ENOENT)      /* gone with its thread: nothing left to switch in the maps */
                return r;
        if (!g->local)
                return 0;
        return on ? counter_backend_perf.enable(g->local) : counter_backend_perf.disable(g->local);
}

static int bpf_enable(CounterGroup *g) {
        return bpf_switch(g, true);
}

static int bpf_disable(CounterGroup *g) {
        return bpf_switch(g, false);
}

/* A dying thread's counts are read once they are final: its last slice comes at its last switch. */
static void bpf_refresh(CounterGroup *g) {
        HeirsReading now;
        int r = heirs_read(engine, g->tid, g->born_ns, &now);

        if (r < 0) {
                log_debug("Thread %d: its counts are not in the kernel's maps (%s): the last read stands.",
                          (int) g->tid, strerror(-r));
                return;
        }
        if (now.exiting && !now.final && !heirs_wait_final(engine, g->tid, g->born_ns, SETTLE_TIMEOUT_NS))
                log_debug("Thread %d: its last slice did not come within %llu ms of its exit.", (int) g->tid,
                          SETTLE_TIMEOUT_NS / 1000000);
        (void) heirs_read(engine, g->tid, g->born_ns, &now);
        if (now.read_errors > g->last.read_errors)
                log_debug("Thread %d: %u of its slices could not be read.", (int) g->tid, now.read_errors);
        g->last = now;
}

/* The kernel's sums read 0 from now on. */
static int drop_sums(CounterGroup *g) {
        int r;

        fold();
        r = heirs_reset(engine, g->tid, g->born_ns);

        if (r < 0 && r != -ENOENT && r != -ESTALE)
                return r;
        if (r >= 0)
                memset(g->last.counts, 0, sizeof(g->last.counts));
        return 0;
}

static int bpf_reset(CounterGroup *g) {
        int r = drop_sums(g);

        if (r < 0 || !g->local)
                return r;
        return counter_backend_perf.reset(g->local);
}

static void bpf_carried(CounterGroup *g, uint64_t *values, size_t n, CounterTimes *times) {
        bpf_refresh(g);
        for (size_t i = 0; i < n; i++)
                values[i] = i < g->n ? g->last.counts[i] : 0;
        if (times)
                *times = (CounterTimes) { g->last.enabled_ns, g->last.running_ns };
}

static int bpf_read(CounterGroup *g, uint64_t *values, size_t n, CounterTimes *times) {
        uint64_t own[8] = {};
        CounterTimes t = {};
        int r;

        if (reads_depth == 0 && !g->local)
                fold();
        bpf_carried(g, values, n, times);
        if (!g->local)
                return 0;
        r = counter_backend_perf.read(g->local, own, n < g->n ? n : g->n, &t);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n && i < g->n; i++)
                values[i] += own[i];
        if (times) {
                times->enabled_ns += t.enabled_ns;
                times->running_ns += t.running_ns;
        }
        return 0;
}

static void bpf_close(CounterGroup *g) {
        if (g->local)
                counter_backend_perf.close(g->local);
        free(g);
}

static size_t bpf_fds(CounterGroup *g, int *ret, size_t max) {
        return g->local ? counter_backend_perf.fds(g->local, ret, max) : 0;
}

/* Its thread's id is not in the fds: counter_bpf_adopt_born() adopts a born thread's group. */
static int bpf_adopt(const int *fds, size_t n, const struct perf_event_attr *attrs, size_t n_events,
                     CounterGroup **ret) {
        return -EBADF;
}

static int bpf_sibling_fd(CounterGroup *g) {
        return g->local ? counter_backend_perf.sibling_fd(g->local) : -1;
}

/* The thread's context switches so far (voluntary and not: each ends one of its slices), or -1. */
static long long thread_switches(pid_t tid) {
        char path[64], line[128];
        long long n = 0, v;
        int found = 0;
        FILE *f;

        (void) snprintf(path, sizeof(path), "/proc/%d/status", (int) tid);
        f = fopen(path, "re");
        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "voluntary_ctxt_switches: %lld", &v) == 1 ||
                    sscanf(line, "nonvoluntary_ctxt_switches: %lld", &v) == 1) {
                        n += v;
                        found++;
                }
        fclose(f);
        return found == 2 ? n : -1;
}

/* Whether the thread is blocked, so that its last slice is in the maps and it will not run before
 * it is woken: no CPU's last switch seen brought it in, and its state in /proc is neither R nor
 * dead. A thread that is only preempted (R) runs again at any moment. */
static bool blocked(pid_t tid) {
        char path[64], buf[512], *p;
        FILE *f;
        bool off = false;

        if (heirs_maybe_on_cpu(engine, tid))
                return false;
        (void) snprintf(path, sizeof(path), "/proc/%d/stat", (int) tid);
        f = fopen(path, "re");
        if (!f)
                return false;
        if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) && p[1] == ' ')
                off = strchr("SDtT", p[2]) != NULL;
        fclose(f);
        return off;
}

/* A handover waits for the thread to block: 4 looks, 50 us apart. */
#define OFF_CPU_TRIES 4
#define OFF_CPU_WAIT_NS (50 * 1000)

/* Hands the thread's counting from the kernel's slices to its own counters local (open, disabled),
 * while it is blocked: its counter starts and its slices stop with nothing run in between, which
 * an unchanged switch count and a thread still blocked after both prove. Otherwise (it woke and ran
 * meanwhile: a sibling that asks for a thread that naps) the kernel's slices, which went to its
 * local counts meanwhile, count again, and -EBUSY (the caller closes local). */
static int hand_over_while_blocked(CounterGroup *g, CounterGroup *local, bool enabled) {
        uint64_t at[8];
        long long before = -1;
        int tries = 0, r;

        for (;; tries++) {
                before = thread_switches(g->tid);
                if (before >= 0 && blocked(g->tid))
                        break;
                if (tries == OFF_CPU_TRIES)
                        return -EBUSY;
                (void) nanosleep(&(struct timespec) { 0, OFF_CPU_WAIT_NS }, NULL);
        }
        r = enabled ? counter_backend_perf.enable(local) : 0;
        if (r >= 0)
                r = heirs_set_local(engine, g->tid, g->born_ns, at);
        if (r < 0)
                return r;
        if (blocked(g->tid) && thread_switches(g->tid) == before)
                return heirs_local_settled(engine, g->tid, g->born_ns);
        /* Its slices since went to its local counts, which its reads take again: nothing lost. */
        r = heirs_unset_local(engine, g->tid, g->born_ns, at);
        return r < 0 ? r : -EBUSY;
}

int counter_bpf_open_local(CounterGroup *g, const struct perf_event_attr *attrs, size_t n, bool enabled,
                           bool user_read) {
        CounterGroup *local = NULL;
        int r;

        if (!engine)
                return -EOPNOTSUPP;
        if (g->local)
                return -EALREADY;
        if (n != g->n)
                return -EINVAL;
        if (heirs_sealed(engine, g->tid))
                return -EPERM;          /* the kernel stopped counting it: so must its own counters */
        r = counter_backend_perf.open(&(CounterTarget) { .tid = g->tid, .cpu = -1, .private_leader = true,
                                                         .user_read = user_read, .cgroup_fd = -1 },
                                      attrs, n, &local);
        /* From here its slices are its counters': the kernel's sums so far are carried. */
        if (r >= 0)
                r = hand_over_while_blocked(g, local, enabled);
        if (r < 0) {
                if (local)
                        counter_backend_perf.close(local);
                return r;
        }
        g->local = local;
        return 0;
}

int counter_bpf_adopt_born(pid_t tid, const struct perf_event_attr *attrs, size_t n, const int *fds, size_t n_fds,
                           CounterGroup **ret) {
        CounterGroup *g = NULL;
        int r = bpf_open(&(CounterTarget) { .tid = tid, .cpu = -1, .cgroup_fd = -1 }, attrs, n, &g);

        if (r < 0)
                return r;
        if (n_fds > 0) {
                if (n_fds != n + 1)
                        r = -EINVAL;    /* a local part always has its private leader */
                else
                        r = counter_backend_perf.adopt(fds, n_fds, attrs, n, &g->local);
                if (r < 0) {
                        free(g);
                        return r;
                }
        }
        *ret = g;
        return 0;
}

const CounterBackend counter_backend_bpf = {
        .name = "bpf",
        .open = bpf_open,
        .enable = bpf_enable,
        .disable = bpf_disable,
        .reset = bpf_reset,
        .read = bpf_read,
        .close = bpf_close,
        .fds = bpf_fds,
        .adopt = bpf_adopt,
        .sibling_fd = bpf_sibling_fd,
        .carried = bpf_carried,
        .drop_carried = drop_sums,
};
