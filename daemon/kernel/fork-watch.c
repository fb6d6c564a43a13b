/* fork-watch.c: see fork-watch.h; reading the rings is fork-watch-ring.c. Owns two dummy perf events and their ring buffers per online CPU
 * (one that wakes pmapid at each record, polled by an sd-event source, and one that wakes nobody,
 * for the lazy watch), and nothing else: what a new thread or a new name means for counting is the
 * caller's business. Why perf's fork records and not the process connector: docs/design.md, L3;
 * how late a thread attached from them starts counting: docs/measurements.md. */
#include <assert.h>
#include <errno.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cpu-list.h"
#include "fork-watch.h"
#include "fork-watch-ring.h"
#include "log.h"
#include "macro.h"
#include "perf-syscall.h"

/* Data pages per CPU, a power of two as the kernel requires. 64 pages hold ~5,400 fork records (48
 * bytes each), enough for a burst of thread creations on one CPU while the daemon is starved. */
#define FORK_WATCH_DATA_PAGES 64

static size_t fork_watch_map_size(void) {
        return (1 + FORK_WATCH_DATA_PAGES) * (size_t) sysconf(_SC_PAGESIZE);
}

#define TURN_SLACK_NS 1000000

static uint64_t monotonic_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}


ForkWatch *fork_watch_free(ForkWatch *w) {
        if (!w)
                return NULL;
        for (size_t i = 0; i < w->n_cpus; i++) {
                ForkWatchCpu *c = &w->cpus[i];

                sd_event_source_disable_unref(c->source);
                if (c->meta != MAP_FAILED)
                        munmap(c->meta, fork_watch_map_size());
                close(c->fd);
        }
        free(w->cpus);
        sd_event_source_disable_unref(w->later);
        sd_event_source_disable_unref(w->suspect);
        sd_event_source_disable_unref(w->tick);
        if (w->batch)
                g_array_unref(w->batch);
        free(w);
        return NULL;
}

DEFINE_FREEP(ForkWatch, fork_watch_free);


static void dispatch(ForkWatch *w, const WatchRecord *r) {
        if (r->type == PERF_RECORD_FORK)
                w->handler((pid_t) r->pid, (pid_t) r->tid, (pid_t) r->ppid, (pid_t) r->ptid, r->time,
                           w->userdata);
        else if (r->type == PERF_RECORD_EXIT) {
                if (w->exit_handler)
                        w->exit_handler((pid_t) r->pid, (pid_t) r->tid, r->time, w->exit_userdata);
        } else if (w->comm_handler)
                w->comm_handler((pid_t) r->pid, (pid_t) r->tid, r->comm, r->time, w->comm_userdata);
}

/* Tells the lost handler of a loss the kernel has not reported yet (fork-watch.h: n_lost 0). */
static void report_suspected(ForkWatch *w) {
        if (!w->overflow_suspected || w->dispatching)
                return;
        w->overflow_suspected = false;
        (void) sd_event_source_set_enabled(w->suspect, SD_EVENT_OFF);
        w->suspect_armed = false;
        if (w->lost_handler) {
                w->dispatching = true;
                w->lost_handler(0, w->exit_userdata);
                w->dispatching = false;
        }
}

/* settle: a caller's answer depends on every creation so far, so a suspected loss is reported now;
 * otherwise it waits until the rings go quiet. */
static void flush(ForkWatch *w, bool settle) {
        assert(w);
        if (w->dispatching)
                return;
        fork_watch_drain(w);
        /* Quiet means no record since: a drain that read nothing (the lazy tick's) leaves it be. */
        if (w->overflow_suspected && !settle && (w->drained_some || !w->suspect_armed)) {
                (void) sd_event_source_set_time_relative(w->suspect, FORK_WATCH_QUIET_USEC);
                w->suspect_armed = sd_event_source_set_enabled(w->suspect, SD_EVENT_ONESHOT) >= 0;
        }
        if (w->batch->len > 0 || w->lost_unreported > 0) {
                w->dispatching = true;
                for (guint i = 0; i < w->batch->len; i++)
                        dispatch(w, &g_array_index(w->batch, WatchRecord, i));
                if (w->lost_unreported > 0 && w->lost_handler) {
                        uint64_t n = w->lost_unreported;
                        w->lost_unreported = 0;
                        w->lost_handler(n, w->exit_userdata);
                }
                w->dispatching = false;
                g_array_set_size(w->batch, 0);
        }
        if (settle)
                report_suspected(w);
}

void fork_watch_flush(ForkWatch *w) {
        flush(w, true);
}

void fork_watch_flush_comm(ForkWatch *w) {
        guint kept = 0;

        assert(w);
        if (w->dispatching || !w->comm_handler)
                return;
        fork_watch_drain(w);
        w->dispatching = true;
        for (guint i = 0; i < w->batch->len; i++) {
                const WatchRecord *r = &g_array_index(w->batch, WatchRecord, i);

                if (r->type == PERF_RECORD_COMM)
                        dispatch(w, r);
                else
                        g_array_index(w->batch, WatchRecord, kept++) = *r;
        }
        w->dispatching = false;
        g_array_set_size(w->batch, kept);
        /* The fork records wait for the next turn of the loop, where attaching is safe again. */
        if (kept > 0 && w->later)
                (void) sd_event_source_set_enabled(w->later, SD_EVENT_ONESHOT);
}

void fork_watch_set_exit_handler(ForkWatch *w, ForkWatchExitHandler exited, ForkWatchLostHandler lost,
                                 void *userdata) {
        assert(w);
        w->exit_handler = exited;
        w->lost_handler = lost;
        w->exit_userdata = userdata;
}

void fork_watch_set_comm_handler(ForkWatch *w, ForkWatchCommHandler handler, void *userdata) {
        assert(w);
        w->comm_handler = handler;
        w->comm_userdata = userdata;
}

static int on_later(sd_event_source *s, void *userdata) {
        (void) s;
        flush(userdata, false);
        return 0;
}

/* Quiet since a ring was nearly full: whatever the kernel dropped then, it has not said. */
static int on_suspect(sd_event_source *s, uint64_t usec, void *userdata) {
        ForkWatch *w = userdata;

        w->suspect_armed = false;
        flush(w, true);
        return 0;
}

static int on_tick(sd_event_source *s, uint64_t usec, void *userdata) {
        ForkWatch *w = userdata;

        flush(w, false);
        if (!w->enabled || !w->lazy)
                return 0;
        (void) sd_event_source_set_time_relative(s, FORK_WATCH_LAZY_USEC);
        return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        flush(userdata, false);                 /* one wakeup drains every CPU: the order is global */
        return 0;
}

/* Maps the ring of the dummy event fd counting on cpu and, unless it is a lazy ring, watches it.
 * Takes fd, even on failure. */
static int fork_watch_add_cpu(ForkWatch *w, sd_event *event, unsigned cpu, int fd, bool lazy_ring) {
        ForkWatchCpu *cpus, *c;
        int r;

        cpus = reallocarray(w->cpus, w->n_cpus + 1, sizeof(*cpus));
        if (!cpus) {
                close(fd);
                return -ENOMEM;
        }
        w->cpus = cpus;
        c = &w->cpus[w->n_cpus++];
        *c = (ForkWatchCpu) { .cpu = cpu, .fd = fd, .meta = MAP_FAILED, .lazy_ring = lazy_ring };

        /* Writable, so the kernel honours data_tail and reports overruns as PERF_RECORD_LOST instead of
         * overwriting records we have not read. A ring handed over keeps its data_tail: the new image
         * reads on from where the old one stopped. */
        c->meta = mmap(NULL, fork_watch_map_size(), PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
        if (c->meta == MAP_FAILED)
                return -errno;
        c->data = (const uint8_t *) c->meta + c->meta->data_offset;    /* set since 4.1, as is use_clockid */
        c->data_size = c->meta->data_size;
        if (lazy_ring)
                return 0;

        /* Default priority: a machine busy creating threads must not starve the bus. Callers whose
         * answer depends on recent creations call fork_watch_flush() first. */
        r = sd_event_add_io(event, &c->source, c->fd, EPOLLIN, on_io, w);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(c->source, "fork-watch");
        return 0;
}

static int fork_watch_open_cpu(ForkWatch *w, sd_event *event, unsigned cpu, bool lazy_ring) {
        struct perf_event_attr attr = {
                .size = sizeof(attr),
                .type = PERF_TYPE_SOFTWARE,
                .config = PERF_COUNT_SW_DUMMY,
                .sample_type = PERF_SAMPLE_TIME,
                .disabled = 1,
                .task = 1,
                .sample_id_all = 1,
                /* wakeup_events counts samples only: side-band records wake us through a watermark;
                 * none set, the kernel wakes at half the ring (the lazy ring). */
                .watermark = !lazy_ring,
                .wakeup_watermark = !lazy_ring,
                .use_clockid = 1,
                .clockid = CLOCK_MONOTONIC,
                /* Thread names too (exec and PR_SET_NAME), for the member records of groups;
                 * comm_exec marks the exec ones (since 3.16). */
                .comm = 1,
                .comm_exec = 1,
        };
        int fd;

        fd = sys_perf_event_open(&attr, /* tid= */ -1, (int) cpu, /* group_fd= */ -1, PERF_FLAG_FD_CLOEXEC);
        if (fd < 0)
                return errno == ENODEV ? 0 : -errno;    /* ENODEV: went offline since we read the list */
        return fork_watch_add_cpu(w, event, cpu, fd, lazy_ring);
}

static int fork_watch_alloc(sd_event *event, ForkWatchHandler handler, void *userdata, ForkWatch **ret) {
        _cleanup_(fork_watch_freep) ForkWatch *w = NULL;
        int r;

        w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        w->handler = handler;
        w->userdata = userdata;
        w->batch = g_array_new(FALSE, FALSE, sizeof(WatchRecord));
        r = sd_event_add_defer(event, &w->later, on_later, w);
        if (r < 0)
                return r;
        (void) sd_event_source_set_enabled(w->later, SD_EVENT_OFF);
        (void) sd_event_source_set_description(w->later, "fork-watch-later");
        r = sd_event_add_time_relative(event, &w->suspect, CLOCK_MONOTONIC, FORK_WATCH_QUIET_USEC, 0, on_suspect, w);
        if (r < 0)
                return r;
        (void) sd_event_source_set_enabled(w->suspect, SD_EVENT_OFF);
        (void) sd_event_source_set_description(w->suspect, "fork-watch-overflow");
        r = sd_event_add_time_relative(event, &w->tick, CLOCK_MONOTONIC, FORK_WATCH_LAZY_USEC, 0, on_tick, w);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(w->tick, "fork-watch-tick");
        (void) sd_event_source_set_enabled(w->tick, SD_EVENT_OFF);     /* on while enabled and lazy */
        *ret = TAKE_PTR(w);
        return 0;
}

int fork_watch_new(sd_event *event, ForkWatchHandler handler, void *userdata, ForkWatch **ret) {
        _cleanup_(fork_watch_freep) ForkWatch *w = NULL;
        _cleanup_free_ bool *online = NULL;
        size_t n_cpus;
        int r;

        assert(event && handler && ret);
        r = cpu_list_n_possible(&n_cpus);
        if (r < 0)
                return r;
        r = cpu_list_read(CPU_LIST_ONLINE, n_cpus, &online);
        if (r < 0)
                return r;
        r = fork_watch_alloc(event, handler, userdata, &w);
        if (r < 0)
                return r;
        for (size_t cpu = 0; cpu < n_cpus; cpu++) {
                if (!online[cpu])
                        continue;
                r = fork_watch_open_cpu(w, event, (unsigned) cpu, false);
                if (r >= 0)
                        r = fork_watch_open_cpu(w, event, (unsigned) cpu, true);
                if (r < 0)
                        return r;
        }
        if (w->n_cpus == 0)
                return -ENODEV;
        *ret = TAKE_PTR(w);
        return 0;
}

size_t fork_watch_fds(const ForkWatch *w, unsigned *ret_cpus, int *ret_fds, size_t max) {
        assert(w);
        for (size_t i = 0; i < w->n_cpus && i < max; i++) {
                ret_cpus[i] = w->cpus[i].cpu | (w->cpus[i].lazy_ring ? FORK_WATCH_LAZY_RING : 0);
                ret_fds[i] = w->cpus[i].fd;
        }
        return w->n_cpus;
}

bool fork_watch_enabled(const ForkWatch *w) {
        return w && w->enabled;
}

int fork_watch_adopt(sd_event *event, ForkWatchHandler handler, void *userdata, const unsigned *cpus,
                     const int *fds, size_t n, bool enabled, ForkWatch **ret) {
        _cleanup_(fork_watch_freep) ForkWatch *w = NULL;
        size_t i = 0;
        int r;

        assert(event && handler && ret);
        r = fork_watch_alloc(event, handler, userdata, &w);
        for (; r >= 0 && i < n; i++)
                r = fork_watch_add_cpu(w, event, cpus[i] & ~FORK_WATCH_LAZY_RING, fds[i],
                                       cpus[i] & FORK_WATCH_LAZY_RING);
        if (r < 0) {
                for (; i < n; i++)     /* the rest are ours too */
                        close(fds[i]);
                return r;
        }
        if (w->n_cpus == 0)
                return -ENODEV;
        /* An image without lazy rings handed over: each CPU gets its own now (disabled; set_rings
         * starts what the watch's state wants). */
        for (size_t k = 0, n_handed = w->n_cpus; r >= 0 && k < n_handed; k++) {
                bool twin = w->cpus[k].lazy_ring;

                for (size_t j = 0; !twin && j < n_handed; j++)
                        twin = w->cpus[j].lazy_ring && w->cpus[j].cpu == w->cpus[k].cpu;
                if (!twin)
                        r = fork_watch_open_cpu(w, event, w->cpus[k].cpu, true);
        }
        if (r < 0)
                return r;
        w->enabled = enabled;           /* the kernel kept the events' state */
        *ret = TAKE_PTR(w);
        return 0;
}

/* Runs the rings the watch's state wants (the eager ones, or while lazy the lazy ones) and stops the
 * others, in that order, so that no record is missed while it turns: one written meanwhile is in
 * both rings, and drain() keeps one copy. All wanted rings or none: never watch only some CPUs. */
static int set_rings(ForkWatch *w, bool enabled, bool lazy) {
        uint64_t from = monotonic_ns();

        for (size_t i = 0; i < w->n_cpus; i++)
                if (enabled && w->cpus[i].lazy_ring == lazy && ioctl(w->cpus[i].fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
                        int r = -errno;

                        while (i-- > 0)
                                if (w->cpus[i].lazy_ring == lazy)
                                        (void) ioctl(w->cpus[i].fd, PERF_EVENT_IOC_DISABLE, 0);
                        return r;
                }
        for (size_t i = 0; i < w->n_cpus; i++)
                if (!enabled || w->cpus[i].lazy_ring != lazy)
                        (void) ioctl(w->cpus[i].fd, PERF_EVENT_IOC_DISABLE, 0);
        /* A fork on another CPU that checked the old ring's state before our disable reached it
         * writes there after the ioctl returned, stamped then (seen: 0.5 us after): the turn lasts a
         * while longer for the records. */
        if (enabled)
                w->turns[w->next_turn++ % TURNS_KEPT] = (typeof(w->turns[0])) { from, monotonic_ns() + TURN_SLACK_NS };
        return 0;
}

int fork_watch_set_enabled(ForkWatch *w, bool enabled) {
        int r;

        assert(w);
        if (w->enabled == enabled)
                return 0;
        r = set_rings(w, enabled, w->lazy);
        if (r < 0)
                return r;
        for (size_t i = 0; i < w->n_cpus && !enabled; i++) {    /* drop what nobody wants any more */
                struct perf_event_mmap_page *m = w->cpus[i].meta;
                uint64_t head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE);

                __atomic_store_n(&m->data_tail, head, __ATOMIC_RELEASE);
        }
        if (!enabled && !w->dispatching)
                g_array_set_size(w->batch, 0);
        w->enabled = enabled;
        (void) sd_event_source_set_enabled(w->tick, enabled && w->lazy ? SD_EVENT_ONESHOT : SD_EVENT_OFF);
        return 0;
}

void fork_watch_set_lazy(ForkWatch *w, bool lazy) {
        assert(w);
        if (w->lazy == lazy)
                return;
        /* On failure the eager rings stay: dearer, never blind. */
        if (set_rings(w, w->enabled, lazy) < 0 && lazy)
                return;
        w->lazy = lazy;
        for (size_t i = 0; i < w->n_cpus; i++)
                if (w->cpus[i].source)
                        (void) sd_event_source_set_enabled(w->cpus[i].source, lazy ? SD_EVENT_OFF : SD_EVENT_ON);
        (void) sd_event_source_set_enabled(w->tick, w->enabled && lazy ? SD_EVENT_ONESHOT : SD_EVENT_OFF);
        if (!lazy)
                flush(w, false);        /* what came while nobody polled */
}

uint64_t fork_watch_n_lost(const ForkWatch *w) {
        assert(w);
        return w->n_lost;
}
