/* local.c: see local.h. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bus.h"
#include "local-page.h"
#include "local.h"
#include "self-read.h"

typedef struct LocalHandle {
        int fd;                         /* the sibling perf fd; -1: none */
        const LocalPage *page;          /* read-only map */
        size_t page_size;
        uint32_t n_values;
        int32_t slot[LOCAL_PAGE_MAX_VALUES];
        const volatile struct perf_event_mmap_page *user; /* the fd's own page, for rdpmc; or NULL */
        LocalState *state;              /* our switches, for pmapid (writable map) */
        bool tried;                     /* asked pmapid for this program already */
        struct LocalHandle *next, *prev;        /* every open handle of the process (all_handles) */
} LocalHandle;

static __thread LocalHandle handle = { .fd = -1 };
/* Every thread's open handle, so that a forked child closes them all: the child has one thread,
 * but the others' fds and maps came along. */
static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;
static LocalHandle *all_handles;

static void list_add(LocalHandle *h) {
        pthread_mutex_lock(&all_lock);
        h->prev = NULL;
        h->next = all_handles;
        if (all_handles)
                all_handles->prev = h;
        all_handles = h;
        pthread_mutex_unlock(&all_lock);
}

static void list_remove(LocalHandle *h) {
        pthread_mutex_lock(&all_lock);
        if (h->prev)
                h->prev->next = h->next;
        else if (all_handles == h)
                all_handles = h->next;
        if (h->next)
                h->next->prev = h->prev;
        h->next = h->prev = NULL;
        pthread_mutex_unlock(&all_lock);
}
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

/* Unmaps and closes without the list (the caller has taken it out, or is a forked child). */
static void handle_release(LocalHandle *h) {
        if (h->state)
                munmap(h->state, h->page_size);
        if (h->user)
                munmap((void *) h->user, h->page_size);
        if (h->fd >= 0)
                close(h->fd);
        if (h->page)
                munmap((void *) h->page, h->page_size);
        *h = (LocalHandle) { .fd = -1 };
}

static void handle_close(LocalHandle *h) {
        if (h->fd >= 0 && h == &handle)
                list_remove(h);
        handle_release(h);
}

/* At thread exit: the handle's fd and map go with the thread. */
static void on_thread_exit(void *p) {
        LocalHandle *h = p;

        if (h->fd >= 0)
                list_remove(h);
        handle_release(h);
}

static void make_exit_key(void) {
        (void) pthread_key_create(&exit_key, on_thread_exit);
}

void local_drop(void) {
        handle_close(&handle);
}

void local_prepare_fork(void) {
        pthread_mutex_lock(&all_lock);
}

void local_parent_after_fork(void) {
        pthread_mutex_unlock(&all_lock);
}

void local_forget_after_fork(void) {
        LocalHandle *h = all_handles, *next;

        /* Ours and the other threads' (their TLS came along): none reads this process's threads. */
        for (; h; h = next) {
                next = h->next;
                handle_release(h);
        }
        all_handles = NULL;
        pthread_mutex_unlock(&all_lock);
}

/* A length in ns as pm_get_Tdata gives it. */
static void set_length(timebasestruct_t *tb, uint64_t ns) {
        *tb = (timebasestruct_t) { .flag = PM_TB_MONOTONIC_NS, .tb_high = (unsigned int) (ns >> 32),
                                   .tb_low = (unsigned int) ns };
}

/* What a read adds to the group's: the counts and times the context had before these counters
 * (local-page.h), and the base of the counted time. */
typedef struct Base {
        uint64_t enabled_ns, running_ns;        /* less */
        uint64_t carried_enabled_ns, carried_running_ns;        /* more */
        uint64_t carried[LOCAL_PAGE_MAX_VALUES];
} Base;

/* pmapid's (its page), or, when this thread reset in process since pmapid last looked, its own (the
 * state page it writes): the group's times right after that reset, and nothing carried. */
static void reset_base(const Base *page, uint32_t resets_seen, Base *ret) {
        if (handle.state && handle.state->resets != resets_seen)
                *ret = (Base) { .enabled_ns = handle.state->reset_enabled_ns,
                                .running_ns = handle.state->reset_running_ns };
        else
                *ret = *page;
}

/* The page's base, read inside its seqlock. */
static void page_base(Base *ret) {
        ret->enabled_ns = __atomic_load_n(&handle.page->base_enabled_ns, __ATOMIC_RELAXED);
        ret->running_ns = __atomic_load_n(&handle.page->base_running_ns, __ATOMIC_RELAXED);
        ret->carried_enabled_ns = __atomic_load_n(&handle.page->carried_enabled_ns, __ATOMIC_RELAXED);
        ret->carried_running_ns = __atomic_load_n(&handle.page->carried_running_ns, __ATOMIC_RELAXED);
        for (uint32_t i = 0; i < handle.n_values; i++)
                ret->carried[i] = __atomic_load_n(&handle.page->carried[i], __ATOMIC_RELAXED);
}

static uint64_t since(uint64_t now, uint64_t base) {
        return now > base ? now - base : 0;
}

/* One read of the group, in process: 0 and buf (nr, enabled, running, values) with what to add to
 * it, 1 when pmapid changed the page meanwhile (read again), -1 when the handle is gone. */
static int read_once(uint64_t buf[static 3 + LOCAL_PAGE_MAX_VALUES], bool want_times, Base *ret_base) {
        const volatile struct perf_event_mmap_page *pc = handle.user;
        uint32_t seq, seen;
        Base page;
        ssize_t l;

        seq = __atomic_load_n(&handle.page->seq, __ATOMIC_ACQUIRE);
        if (!__atomic_load_n(&handle.page->valid, __ATOMIC_ACQUIRE))
                return -1;
        if (seq & 1)
                return 1;
        page_base(&page);
        seen = __atomic_load_n(&handle.page->resets_seen, __ATOMIC_RELAXED);
        /* One event on a PMU counter: rdpmc where the kernel lets us, shaped as read() would give.
         * The user page's times are those of the last switch: only a group that always ran is read
         * this way, and a read that wants the counted time read()s. */
        if (pc && !want_times && pc->time_enabled == pc->time_running &&
            self_read(pc, self_read_pmc, &buf[4]) == 0) {
                buf[0] = handle.n_values;
                buf[1] = buf[2] = 0;    /* equal: it always ran */
                buf[3] = 0;             /* the dummy leader */
                l = (ssize_t) (sizeof(uint64_t) * (3 + handle.n_values));
        } else
                l = read(handle.fd, buf, sizeof(uint64_t) * (3 + LOCAL_PAGE_MAX_VALUES));
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        /* The context may have gone or changed while we read: then these values are not its. */
        if (!__atomic_load_n(&handle.page->valid, __ATOMIC_ACQUIRE))
                return -1;
        if (__atomic_load_n(&handle.page->seq, __ATOMIC_ACQUIRE) != seq)
                return 1;
        if (l != (ssize_t) (sizeof(uint64_t) * (3 + handle.n_values)) || buf[0] != handle.n_values)
                return -1;              /* not the group pmapid made (the fd was closed or replaced) */
        reset_base(&page, seen, ret_base);
        return 0;
}

int local_read(pm_data_t *data, timebasestruct_t *time, pm_accu_time_t *times) {
        uint64_t buf[3 + LOCAL_PAGE_MAX_VALUES], enabled, running;
        struct timespec ts;
        Base base = {};
        int r = 1;

        if (handle.fd < 0)
                return -1;
        for (int tries = 0; r == 1 && tries < 3; tries++)
                r = read_once(buf, times != NULL, &base);
        if (r == 1)
                return -1;              /* pmapid is busy with the page: over the bus this time */
        if (r < 0)
                goto gone;
        if (time)
                (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        enabled = since(buf[1], base.enabled_ns) + base.carried_enabled_ns;
        running = since(buf[2], base.running_ns) + base.carried_running_ns;
        /* The PMU time-shared the group since the last reset (it ran less than it was enabled):
         * pmapid scales. */
        if (enabled != running)
                return -1;
        if (times) {
                set_length(&times->accu_timebase, running);
                set_length(&times->accu_purr, enabled);
                times->accu_spurr = (timebasestruct_t) {};
        }
        memset(data, 0, sizeof(*data));
        for (uint32_t i = 0; i < handle.n_values; i++)
                if (handle.slot[i] >= 0 && handle.slot[i] < MAX_COUNTERS)
                        data->accu[handle.slot[i]] = (long long) (buf[3 + i] + base.carried[i]);
        if (time)
                set_length(time, (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec);
        return 0;
gone:
        handle_close(&handle);          /* the next successful bus read asks for a new one */
        return -1;
}

/* The page, checked: pmapid's, of a version we read, with a sane number of values. */
static int map_page(int memfd, LocalHandle *h) {
        size_t size = (size_t) sysconf(_SC_PAGESIZE);
        const LocalPage *p;
        struct stat st;

        if (fstat(memfd, &st) < 0 || (size_t) st.st_size < sizeof(LocalPage))
                return -EBADF;
        p = mmap(NULL, size, PROT_READ, MAP_SHARED | MAP_POPULATE, memfd, 0);     /* no fault later, inside a count */
        if (p == MAP_FAILED)
                return -errno;
        if (p->magic != LOCAL_PAGE_MAGIC || p->version != LOCAL_PAGE_VERSION || p->n_values < 2 ||
            p->n_values > LOCAL_PAGE_MAX_VALUES) {
                munmap((void *) p, size);
                return -EPROTO;
        }
        h->page = p;
        h->page_size = size;
        h->n_values = p->n_values;
        memcpy(h->slot, p->slot, sizeof(h->slot));
        return 0;
}

/* Room for the two fds of a reply and our copy: a process at its fd limit must not take a reply
 * it cannot receive (sd-bus would drop the connection). Racy, and only a guard. */
static bool fds_to_spare(void) {
        int a = open("/dev/null", O_RDONLY | O_CLOEXEC), b = open("/dev/null", O_RDONLY | O_CLOEXEC);
        int c = open("/dev/null", O_RDONLY | O_CLOEXEC);
        bool ok = a >= 0 && b >= 0 && c >= 0;

        if (a >= 0)
                close(a);
        if (b >= 0)
                close(b);
        if (c >= 0)
                close(c);
        return ok;
}

/* The thread's own switches page, checked; writable. */
static int map_state(int memfd, LocalHandle *h) {
        struct stat st;
        void *p;

        if (fstat(memfd, &st) < 0 || (size_t) st.st_size < sizeof(LocalState))
                return -EBADF;
        p = mmap(NULL, h->page_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, memfd, 0);
        if (p == MAP_FAILED)
                return -errno;
        if (((LocalState *) p)->magic != LOCAL_STATE_MAGIC) {
                munmap(p, h->page_size);
                return -EPROTO;
        }
        h->state = p;
        return 0;
}

/* The page says the handle is still the context's (before an ioctl, and after it). */
static bool still_valid(void) {
        uint32_t seq = __atomic_load_n(&handle.page->seq, __ATOMIC_ACQUIRE);

        return !(seq & 1) && __atomic_load_n(&handle.page->valid, __ATOMIC_ACQUIRE);
}

int local_switch(bool on, timebasestruct_t *time) {
        struct timespec ts;
        LocalStateChange *ch;
        uint32_t n;

        if (handle.fd < 0 || !handle.state)
                return -1;
        if (!still_valid())
                goto gone;
        /* PERF_IOC_FLAG_GROUP on a sibling switches its whole group, the private leader's. */
        if (ioctl(handle.fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP) < 0)
                goto gone;
        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        n = handle.state->n;
        ch = &handle.state->ring[n % LOCAL_STATE_RING];
        ch->time_ns = (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
        ch->counting = on;
        __atomic_store_n(&handle.state->n, n + 1, __ATOMIC_RELEASE);
        if (!still_valid())
                goto gone;              /* the switch hit counters the context no longer has */
        if (time)
                set_length(time, ch->time_ns);
        return 0;
gone:
        handle_close(&handle);
        return -1;
}

int local_reset(void) {
        uint64_t buf[3 + LOCAL_PAGE_MAX_VALUES];
        uint32_t n;

        if (handle.fd < 0 || !handle.state || !still_valid())
                return -1;
        /* The kernel zeroes the counts and not the times: pmapid learns the times right after the
         * reset from the state page, as the base of the counted time from now on. */
        if (ioctl(handle.fd, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP) < 0 ||
            read(handle.fd, buf, sizeof(buf)) < (ssize_t) (3 * sizeof(uint64_t)) || !still_valid()) {
                handle_close(&handle);
                return -1;
        }
        /* A seqlock: odd while the times change, so that pmapid never takes half of them. */
        n = handle.state->resets | 1u;
        __atomic_store_n(&handle.state->resets, n, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_RELEASE);
        __atomic_store_n(&handle.state->reset_enabled_ns, buf[1], __ATOMIC_RELAXED);
        __atomic_store_n(&handle.state->reset_running_ns, buf[2], __ATOMIC_RELAXED);
        __atomic_store_n(&handle.state->resets, n + 1, __ATOMIC_RELEASE);
        return 0;
}

void local_try_open(void) {
        _cleanup_(bus_reply_unrefp) sd_bus_message *reply = NULL;
        LocalHandle h = { .fd = -1 };
        int counter, page, state, r;

        if (handle.fd >= 0 || handle.tried)
                return;
        handle.tried = true;
        if (bus_can_pass_fds() != 1 || !fds_to_spare())
                return;                 /* the bus it is, silently */
        (void) pthread_once(&exit_once, make_exit_key);
        if (bus_call_self("OpenLocal", &reply, NULL) != 0 ||
            sd_bus_message_read(reply, "hhh", &counter, &page, &state) < 0)
                return;                 /* not for this context, or an older pmapid: the bus it is */
        /* The reply owns the fds it carries: ours are copies. */
        h.fd = fcntl(counter, F_DUPFD_CLOEXEC, 3);
        r = h.fd < 0 ? -errno : map_page(page, &h);
        if (r >= 0)
                r = map_state(state, &h);
        if (r < 0) {
                handle_close(&h);
                return;
        }
        if (h.page->pmu_counter && self_read_pmc) {
                void *u = mmap(NULL, h.page_size, PROT_READ, MAP_SHARED | MAP_POPULATE, h.fd, 0);
                h.user = u == MAP_FAILED ? NULL : u;    /* refused (perf_event_mlock_kb): read() */
        }
        h.tried = true;
        handle = h;
        list_add(&handle);
        (void) pthread_setspecific(exit_key, &handle);
}
