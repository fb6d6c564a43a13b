/* counter-fake.c: an in-memory counter backend for unit tests of the core. Values move only when a
 * test says the thread did work while its group was enabled. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "counter.h"
#include "pmapi.h"

struct CounterGroup {
        uint64_t values[MAX_COUNTERS];
        size_t n;
        bool enabled;
};

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

static int fake_read(CounterGroup *g, uint64_t *values, size_t n) {
        if (n != g->n)
                return -EINVAL;
        memcpy(values, g->values, n * sizeof(uint64_t));
        return 0;
}

static void fake_close(CounterGroup *g) {
        if (!g)
                return;
        if (last_opened == g)
                last_opened = NULL;
        n_open--;
        free(g);
}

const CounterBackend counter_backend_fake = {
        .name = "fake",
        .open = fake_open,
        .enable = fake_enable,
        .disable = fake_disable,
        .reset = fake_reset,
        .read = fake_read,
        .close = fake_close,
};
