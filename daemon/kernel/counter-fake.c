/* counter-fake.c: an in-memory counter backend for unit tests of the core. Values move only when a
 * test says the thread did work while its group was enabled. A group handed over (fds()) is named by
 * a memfd; adopt() finds the group by that fd's inode and makes a copy of it, leaving the fd and
 * the original to their owner, so a test can hand one manager's state to another in one process. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "counter.h"
#include "pmapi.h"

struct CounterGroup {
        uint64_t values[MAX_COUNTERS];
        CounterTimes times;
        size_t n;
        bool enabled;
        int token;                      /* -1 until handed over */
        CounterGroup *next_exported;
};

static CounterGroup *exported;          /* groups with a token, for adopt() */

static CounterGroup *last_opened;
static int fail_next_open;
static size_t n_open;
static CounterTarget last_target;

CounterGroup *counter_fake_last_opened(void) {
        return last_opened;
}

void counter_fake_count(CounterGroup *g, size_t i, uint64_t delta) {
        if (g->enabled && i < g->n)
                g->values[i] += delta;
}

void counter_fake_advance(CounterGroup *g, uint64_t enabled_ns, uint64_t running_ns) {
        if (g->enabled) {
                g->times.enabled_ns += enabled_ns;
                g->times.running_ns += running_ns;
        }
}

void counter_fake_fail_next_open(int error) {
        fail_next_open = error;
}

size_t counter_fake_n_open(void) {
        return n_open;
}

CounterTarget counter_fake_last_target(void) {
        return last_target;
}

static int fake_open(const CounterTarget *t, const struct perf_event_attr *attrs, size_t n,
                     CounterGroup **ret) {
        CounterGroup *g;

        (void) attrs;
        if (fail_next_open) {
                int r = fail_next_open;
                fail_next_open = 0;
                return r;
        }
        if (n == 0 || n > MAX_COUNTERS)
                return -EINVAL;
        g = calloc(1, sizeof(*g));
        if (!g)
                return -ENOMEM;
        g->n = n;
        g->token = -1;
        last_opened = g;
        last_target = *t;
        n_open++;
        *ret = g;
        return 0;
}

static int fake_enable(CounterGroup *g) {
        g->enabled = true;
        return 0;
}

static int fake_disable(CounterGroup *g) {
        g->enabled = false;
        return 0;
}

static int fake_reset(CounterGroup *g) {
        memset(g->values, 0, sizeof(g->values));
        return 0;
}

static int fake_read(CounterGroup *g, uint64_t *values, size_t n, CounterTimes *times) {
        if (n != g->n)
                return -EINVAL;
        memcpy(values, g->values, n * sizeof(uint64_t));
        if (times)
                *times = g->times;
        return 0;
}

static void fake_close(CounterGroup *g) {
        if (!g)
                return;
        for (CounterGroup **p = &exported; *p; p = &(*p)->next_exported)
                if (*p == g) {
                        *p = g->next_exported;
                        break;
                }
        if (g->token >= 0)
                close(g->token);
        if (last_opened == g)
                last_opened = NULL;
        n_open--;
        free(g);
}

static size_t fake_fds(CounterGroup *g, int *ret, size_t max) {
        if (g->token < 0) {
                g->token = memfd_create("fake-counter", MFD_CLOEXEC);     /* an inode of its own */
                if (g->token < 0)
                        return 0;
                g->next_exported = exported;
                exported = g;
        }
        if (max > 0)
                ret[0] = g->token;
        return 1;
}

static int fake_adopt(const int *fds, size_t n, const struct perf_event_attr *attrs, size_t n_events,
                      CounterGroup **ret) {
        struct stat want, st;

        if (n != 1 || fstat(fds[0], &want) < 0)
                return -EBADF;
        for (CounterGroup *e = exported; e; e = e->next_exported) {
                CounterGroup *g;

                if (fstat(e->token, &st) < 0 || st.st_ino != want.st_ino)
                        continue;
                if (e->n != n_events)
                        return -EINVAL;
                g = malloc(sizeof(*g));
                if (!g)
                        return -ENOMEM;
                *g = (CounterGroup) { .n = e->n, .enabled = e->enabled, .token = -1 };
                memcpy(g->values, e->values, sizeof(g->values));
                g->times = e->times;
                n_open++;
                *ret = g;
                return 0;
        }
        return -EBADF;
}

static int fake_sibling_fd(CounterGroup *g) {
        (void) g;
        return -1;                      /* no fd to hand: no local reads over the fake backend */
}

const CounterBackend counter_backend_fake = {
        .name = "fake",
        .open = fake_open,
        .enable = fake_enable,
        .disable = fake_disable,
        .reset = fake_reset,
        .read = fake_read,
        .close = fake_close,
        .fds = fake_fds,
        .adopt = fake_adopt,
        .sibling_fd = fake_sibling_fd,
};
