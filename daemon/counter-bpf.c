/* counter-bpf.c: the counter backend of a thread born in the kernel (heirs.h): its counts are the
 * slices the kernel summed for it since its first instruction, read from a map, so it has no fd of
 * its own. It opens only what heirs.bpf.c made: open() adopts a born thread (-ENOENT for another),
 * and the group is counting as it was born (the creator's state); the context switches it from
 * there. A reset keeps a base with the thread's control: the kernel's sums only grow. Closing a group
 * leaves the thread's maps alone: a context's end drops them (heirs_drop), a handover keeps them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "counter.h"
#include "heirs.h"
#include "log.h"
#include "macro.h"

struct CounterGroup {
        pid_t tid;
        uint64_t born_ns;
        size_t n;
        HeirsReading last;              /* the last reading: what a reused tid's group still reads */
};

static Heirs *engine;

void counter_bpf_set_engine(Heirs *h) {
        engine = h;
}

Heirs *counter_bpf_engine(void) {
        return engine;
}

void counter_bpf_batch_begin(void) {
        if (engine)
                heirs_batch_begin(engine);
}

void counter_bpf_batch_end(void) {
        if (engine)
                heirs_batch_end(engine);
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

static int bpf_enable(CounterGroup *g) {
        int r = heirs_set_counting(engine, g->tid, true);
        return r == -ENOENT ? 0 : r;    /* gone with its thread: nothing left to switch */
}

static int bpf_disable(CounterGroup *g) {
        int r = heirs_set_counting(engine, g->tid, false);
        return r == -ENOENT ? 0 : r;
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

static int bpf_reset(CounterGroup *g) {
        int r = heirs_reset(engine, g->tid, g->born_ns);

        if (r < 0 && r != -ENOENT && r != -ESTALE)
                return r;
        if (r >= 0)
                memset(g->last.counts, 0, sizeof(g->last.counts));
        return 0;
}

static int bpf_read(CounterGroup *g, uint64_t *values, size_t n, CounterTimes *times) {
        bpf_refresh(g);
        for (size_t i = 0; i < n && i < g->n; i++)
                values[i] = g->last.counts[i];
        if (times)
                *times = (CounterTimes) { g->last.enabled_ns, g->last.running_ns };
        return 0;
}

static void bpf_close(CounterGroup *g) {
        free(g);
}

static size_t bpf_fds(CounterGroup *g, int *ret, size_t max) {
        return 0;
}

static int bpf_adopt(const int *fds, size_t n, size_t n_events, CounterGroup **ret) {
        return -EBADF;
}

static int bpf_sibling_fd(CounterGroup *g) {
        return -1;
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
};
