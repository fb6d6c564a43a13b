/* counter-perf.c: counter groups as real perf_event groups. The leader's ioctls switch and reset the
 * whole group, and one read() of the leader (PERF_FORMAT_GROUP) returns every value at once, except
 * after the kernel broke a CPU's group up when the CPU went offline. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "counter.h"
#include "macro.h"
#include "perf-syscall.h"
#include "pmapi.h"

struct CounterGroup {
        int fds[MAX_COUNTERS];
        size_t n;
};

static void perf_close(CounterGroup *g) {
        if (!g)
                return;
        for (size_t i = g->n; i > 0; i--)       /* members before the leader */
                close(g->fds[i - 1]);
        free(g);
}
DEFINE_FREEP(CounterGroup, perf_close);

static int perf_open(const CounterTarget *t, const struct perf_event_attr *attrs, size_t n,
                     CounterGroup **ret) {
        _cleanup_(perf_closep) CounterGroup *g = NULL;

        if (n == 0 || n > MAX_COUNTERS)
                return -EINVAL;
        g = calloc(1, sizeof(*g));
        if (!g)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                struct perf_event_attr a = attrs[i];
                int fd;

                a.inherit = t->inherit;
                fd = sys_perf_event_open(&a, t->tid, t->cpu, i == 0 ? -1 : g->fds[0], PERF_FLAG_FD_CLOEXEC);
                if (fd < 0)
                        return -errno;
                g->fds[g->n++] = fd;
        }
        *ret = TAKE_PTR(g);
        return 0;
}

static int perf_ioctl(CounterGroup *g, unsigned long request) {
        return ioctl(g->fds[0], request, PERF_IOC_FLAG_GROUP) < 0 ? -errno : 0;
}

static int perf_enable(CounterGroup *g) {
        return perf_ioctl(g, PERF_EVENT_IOC_ENABLE);
}

static int perf_disable(CounterGroup *g) {
        return perf_ioctl(g, PERF_EVENT_IOC_DISABLE);
}

static int perf_reset(CounterGroup *g) {
        return perf_ioctl(g, PERF_EVENT_IOC_RESET);
}

/* One read() of fd with PERF_FORMAT_GROUP into buf: nr, time_enabled, time_running, values. */
static int read_group(int fd, uint64_t buf[3 + MAX_COUNTERS], size_t min_values) {
        ssize_t l = read(fd, buf, sizeof(uint64_t) * (3 + MAX_COUNTERS));

        if (l < 0)
                return -errno;
        if ((size_t) l < sizeof(uint64_t) * (3 + min_values) || buf[0] < min_values || buf[0] > MAX_COUNTERS)
                return -EIO;
        return 0;
}

static int perf_read(CounterGroup *g, uint64_t *values, size_t n) {
        uint64_t buf[3 + MAX_COUNTERS];
        int r;

        if (n != g->n)
                return -EINVAL;
        r = read_group(g->fds[0], buf, 1);
        if (r < 0)
                return r;
        if (buf[0] == n) {
                for (size_t i = 0; i < n; i++)
                        values[i] = buf[3 + i];
                return 0;
        }
        /* The kernel broke the group up (its CPU went offline: each event is alone now, with its
         * last count): each one reads its own value. */
        values[0] = buf[3];
        for (size_t i = 1; i < n; i++) {
                r = read_group(g->fds[i], buf, 1);
                if (r < 0)
                        return r;
                values[i] = buf[3];
        }
        return 0;
}

static size_t perf_fds(CounterGroup *g, int *ret, size_t max) {
        for (size_t i = 0; i < g->n && i < max; i++)
                ret[i] = g->fds[i];
        return g->n;
}

/* A perf fd is an anonymous inode named "[perf_event]": anything else handed over is refused. */
static bool is_perf_fd(int fd) {
        char path[64], target[64];
        ssize_t l;

        (void) snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        l = readlink(path, target, sizeof(target) - 1);
        if (l < 0)
                return false;
        target[l] = '\0';
        return strcmp(target, "anon_inode:[perf_event]") == 0;
}

static int perf_adopt(const int *fds, size_t n, size_t n_events, CounterGroup **ret) {
        CounterGroup *g;

        if (n == 0 || n > MAX_COUNTERS || n != n_events)
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (!is_perf_fd(fds[i]))
                        return -EBADF;
        g = calloc(1, sizeof(*g));
        if (!g)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                g->fds[i] = fds[i];
        g->n = n;
        *ret = g;
        return 0;
}

const CounterBackend counter_backend_perf = {
        .name = "perf",
        .open = perf_open,
        .enable = perf_enable,
        .disable = perf_disable,
        .reset = perf_reset,
        .read = perf_read,
        .close = perf_close,
        .fds = perf_fds,
        .adopt = perf_adopt,
};
