/* counter-perf.c: counter groups as real perf_event groups. The leader's ioctls switch and reset the
 * whole group, and one read() of the leader (PERF_FORMAT_GROUP) returns every value at once, except
 * after the kernel broke a CPU's group up when the CPU went offline. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "clock.h"
#include "counter.h"
#include "pmu-budget.h"
#include "macro.h"
#include "perf-syscall.h"
#include "pmapi.h"

#define ARM64_PMU_USER_READ (1ull << 1)    /* the armv8 PMU's format: config1:1 is "rdpmc" */

struct CounterGroup {
        int leader;                     /* a private dummy leader (counter.h), or -1: fds[0] leads */
        int fds[MAX_COUNTERS];
        size_t n;
        bool inherit;                   /* counts a tree of tasks: reads keep to floor (perf_read) */
        unsigned hardware;              /* its PMU counters, in pmu-budget.h's count */
        uint64_t floor[MAX_COUNTERS];   /* the highest value read since open or reset */
};

static void perf_close(CounterGroup *g) {
        if (!g)
                return;
        pmu_budget_group_closed(g->hardware);
        for (size_t i = g->n; i > 0; i--)       /* members before the leader */
                close(g->fds[i - 1]);
        if (g->leader >= 0)
                close(g->leader);
        free(g);
}

static int leader_of(const CounterGroup *g) {
        return g->leader >= 0 ? g->leader : g->fds[0];
}

/* perf_event_open's pid and flags for target t. */
static pid_t target_pid(const CounterTarget *t) {
        return t->cgroup_fd >= 0 ? (pid_t) t->cgroup_fd : t->tid;
}

static unsigned long target_flags(const CounterTarget *t) {
        return PERF_FLAG_FD_CLOEXEC | (t->cgroup_fd >= 0 ? PERF_FLAG_PID_CGROUP : 0);
}

/* A software dummy: counts nothing, so the group reads it first as 0. */
static int open_private_leader(const CounterTarget *t, const struct perf_event_attr *first) {
        struct perf_event_attr a = {
                .size = sizeof(a),
                .type = PERF_TYPE_SOFTWARE,
                .config = PERF_COUNT_SW_DUMMY,
                .disabled = 1,
                .exclude_hv = 1,
                .read_format = first->read_format,
        };
        int fd = sys_perf_event_open(&a, target_pid(t), t->cpu, -1, target_flags(t));

        return fd < 0 ? -errno : fd;
}
DEFINE_FREEP(CounterGroup, perf_close);

/* One try at the group; *joined says whether its first event was open when it failed. */
static int perf_open_once(const CounterTarget *t, const struct perf_event_attr *attrs, size_t n,
                          CounterGroup **ret, bool *joined) {
        _cleanup_(perf_closep) CounterGroup *g = NULL;

        if (n == 0 || n > MAX_COUNTERS)
                return -EINVAL;
        g = calloc(1, sizeof(*g));
        if (!g)
                return -ENOMEM;
        g->leader = -1;
        g->inherit = t->inherit;
        g->hardware = pmu_budget_hardware_events(attrs, n);
        /* A group the pinned sources leave no room for would never count: refused (pmu-budget.h). */
        if (pmu_budget_group_opened(g->hardware) < 0) {
                free(TAKE_PTR(g));
                return -ENOSPC;
        }
        if (t->private_leader) {
                int fd = open_private_leader(t, &attrs[0]);
                if (fd < 0)
                        return fd;
                g->leader = fd;
        }
        for (size_t i = 0; i < n; i++) {
                struct perf_event_attr a = attrs[i];
                int fd;

                a.inherit = t->inherit;
#if defined(__aarch64__)
                /* arm64 lets a thread read its own PMU counter from user space only for an event
                 * that asks (the armv8 PMU's config1 bit 1, "rdpmc") and only while
                 * kernel.perf_user_access is 1: then libpmapi's in-process reads need no system
                 * call (x86 needs no such bit). The kernel refuses the bit on a CPU's event
                 * (EINVAL), so only a thread's ask; other PMUs' events do not get it. */
                if (t->user_read && t->cpu < 0 && t->cgroup_fd < 0 && !t->inherit &&
                    (a.type == PERF_TYPE_HARDWARE || a.type == PERF_TYPE_HW_CACHE || a.type == PERF_TYPE_RAW))
                        a.config1 |= ARM64_PMU_USER_READ;
#endif
                if (g->leader >= 0)
                        a.disabled = 0;         /* the leader switches the group */
                fd = sys_perf_event_open(&a, target_pid(t), t->cpu, i == 0 && g->leader < 0 ? -1 : leader_of(g),
                                         target_flags(t));
                if (fd < 0) {
                        *joined = i > 0 || g->leader >= 0;
                        return -errno;
                }
                g->fds[g->n++] = fd;
        }
        *ret = TAKE_PTR(g);
        return 0;
}

/* A task's perf context can be swapped, at a context switch, with that of a child it created since
 * that inherited its counters (the kernel's "equivalent contexts": a child's context is a clone
 * when every event of its parent's is inherited). A member opened after such a swap finds the task
 * on the other context and is refused: EINVAL (the leader is on another context) or ENODEV.
 * Measured on a process that forks without pause: 1 member open in 200 to 7,000 on this VM's 6.18,
 * and in a 6.1 guest 3 tries in 4 failed. So while a task's inherit group is opened, a guard holds
 * the task's context: a copy of its first event that does not inherit, disabled (it takes no
 * counter), so that no child created meanwhile gets a clone to swap with (0 failed opens in
 * 200,000). Should the guard be refused, the group is tried again from the start, a few times. */
#define OPEN_SWAP_RETRIES 4

static int open_guard(const CounterTarget *t, const struct perf_event_attr *first) {
        struct perf_event_attr a = *first;

        if (!t->inherit || t->tid <= 0 || t->cgroup_fd >= 0)
                return -1;
        a.inherit = 0;
        a.disabled = 1;
        a.pinned = 0;
        a.exclusive = 0;
        return sys_perf_event_open(&a, t->tid, t->cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int perf_open(const CounterTarget *t, const struct perf_event_attr *attrs, size_t n,
                     CounterGroup **ret) {
        _cleanup_close_ int guard = n > 0 ? open_guard(t, &attrs[0]) : -1;

        for (int try = 0;; try++) {
                bool joined = false;
                int r = perf_open_once(t, attrs, n, ret, &joined);

                if ((r != -EINVAL && r != -ENODEV) || !joined || t->tid <= 0 || t->cgroup_fd >= 0 ||
                    guard >= 0 || try == OPEN_SWAP_RETRIES)
                        return r;
        }
}

static int perf_ioctl(CounterGroup *g, unsigned long request) {
        return ioctl(leader_of(g), request, PERF_IOC_FLAG_GROUP) < 0 ? -errno : 0;
}

static int perf_enable(CounterGroup *g) {
        return perf_ioctl(g, PERF_EVENT_IOC_ENABLE);
}

static int perf_disable(CounterGroup *g) {
        return perf_ioctl(g, PERF_EVENT_IOC_DISABLE);
}

static int perf_reset(CounterGroup *g) {
        memset(g->floor, 0, sizeof(g->floor));
        return perf_ioctl(g, PERF_EVENT_IOC_RESET);
}

/* How long a read waits out an inherited child's exit (below); its exit takes microseconds. */
#define READ_CHILD_EXIT_WAIT_NS (1000 * 1000 * 1000ull)
#define READ_CHILD_EXIT_YIELDS 10

/* One read() of fd with PERF_FORMAT_GROUP into buf: nr, time_enabled, time_running, values. An
 * inherit group's read fails with ECHILD (since the 2023 fix for mismatched inherited group
 * reads: 6.6, and stable kernels back to 4.14) while an exiting child's copy of the group is
 * half taken apart: its members leave one by one. That is transient: read again until it is gone. */
static int read_group(int fd, uint64_t buf[3 + MAX_COUNTERS + 1], size_t min_values) {
        uint64_t deadline = 0;
        ssize_t l;

        for (int tries = 0;; tries++) {
                l = read(fd, buf, sizeof(uint64_t) * (3 + MAX_COUNTERS + 1));
                if (l >= 0 || errno != ECHILD)
                        break;
                if (deadline == 0)
                        deadline = now_monotonic_ns() + READ_CHILD_EXIT_WAIT_NS;
                else if (now_monotonic_ns() > deadline)
                        return -EAGAIN;
                /* Let the exiting child run on; each read takes the locks its exit needs, so after a
                 * few tries step aside for a while (a slow machine's exit, seen in a QEMU guest). */
                if (tries < READ_CHILD_EXIT_YIELDS)
                        (void) sched_yield();
                else
                        (void) usleep(100);
        }
        if (l < 0)
                return -errno;
        if ((size_t) l < sizeof(uint64_t) * (3 + min_values) || buf[0] < min_values || buf[0] > MAX_COUNTERS + 1)
                return -EIO;
        return 0;
}

static int perf_read(CounterGroup *g, uint64_t *values, size_t n, CounterTimes *times) {
        uint64_t buf[3 + MAX_COUNTERS + 1];
        size_t first = g->leader >= 0;          /* the private leader's value comes first */
        int r;

        if (n != g->n)
                return -EINVAL;
        r = read_group(leader_of(g), buf, 1);
        if (r < 0)
                return r;
        if (times)
                *times = (CounterTimes) { .enabled_ns = buf[1], .running_ns = buf[2] };
        /* Exactly the group pmapid opened: a count it cannot attribute is never reported. */
        if (buf[0] == n + first) {
                for (size_t i = 0; i < n; i++)
                        values[i] = buf[3 + first + i];
                /* An inherit group's member has read lower than the read before it while children
                 * exited (seen once in 6.18, in a full test run; not reproduced in 20 runs since):
                 * likely an exiting child's copy of the member folded into the member under the
                 * member's own lock, which the group read does not hold, after the read passed the
                 * member and before it reached that child. A count that only grows never goes
                 * back: keep the highest read (a reset starts again from zero). */
                for (size_t i = 0; g->inherit && i < n; i++) {
                        if (values[i] < g->floor[i])
                                values[i] = g->floor[i];
                        g->floor[i] = values[i];
                }
                return 0;
        }
        if (first)
                return -EIO;
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

/* The private leader first, when there is one. */
static size_t perf_fds(CounterGroup *g, int *ret, size_t max) {
        size_t k = 0;

        if (g->leader >= 0 && k < max)
                ret[k++] = g->leader;
        for (size_t i = 0; i < g->n && k < max; i++)
                ret[k++] = g->fds[i];
        return g->n + (g->leader >= 0);
}

static int perf_sibling_fd(CounterGroup *g) {
        return g->leader >= 0 ? g->fds[0] : -1;
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

/* n_events fds, or n_events + 1 with the private leader first. */
static int perf_adopt(const int *fds, size_t n, const struct perf_event_attr *attrs, size_t n_events,
                      CounterGroup **ret) {
        size_t first = n == n_events + 1;
        CounterGroup *g;

        if (n_events == 0 || n_events > MAX_COUNTERS || (n != n_events && !first))
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (!is_perf_fd(fds[i]))
                        return -EBADF;
        g = calloc(1, sizeof(*g));
        if (!g)
                return -ENOMEM;
        g->leader = first ? fds[0] : -1;
        for (size_t i = 0; i < n_events; i++)
                g->fds[i] = fds[first + i];
        g->n = n_events;
        g->hardware = pmu_budget_hardware_events(attrs, n_events);
        (void) pmu_budget_group_opened(g->hardware);    /* it counts already: only noted */
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
        .sibling_fd = perf_sibling_fd,
};
