/* local-share.c: see local-share.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "local-page.h"
#include "local-share.h"
#include "macro.h"

static size_t page_size(void) {
        return (size_t) sysconf(_SC_PAGESIZE);
}

/* A one-page memfd, mapped writable here (the caller seals it). */
static int make_page(int *ret_fd, void **ret_map) {
        _cleanup_close_ int fd = memfd_create("pmapi-local", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        void *p;

        if (fd < 0)
                return -errno;
        if (ftruncate(fd, (off_t) page_size()) < 0)
                return -errno;
        p = mmap(NULL, page_size(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED)
                return -errno;
        *ret_map = p;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

static int seal(int fd, unsigned seals) {
        return fcntl(fd, F_ADD_SEALS, seals) < 0 ? -errno : 0;
}

static void fill_page(const Context *c, LocalPage *p) {
        *p = (LocalPage) { .magic = LOCAL_PAGE_MAGIC, .version = LOCAL_PAGE_VERSION, .valid = 1,
                           .n_values = (uint32_t) c->encoding->n_events + 1 };
        p->slot[0] = -1;                /* the private leader */
        for (size_t i = 0; i < c->encoding->n_events; i++)
                p->slot[i + 1] = c->encoding->slot[i];
        for (size_t i = c->encoding->n_events + 1; i < LOCAL_PAGE_MAX_VALUES; i++)
                p->slot[i] = -1;
        p->pmu_counter = c->encoding->n_events == 1 && (c->encoding->attrs[0].type == PERF_TYPE_HARDWARE ||
                                                       c->encoding->attrs[0].type == PERF_TYPE_HW_CACHE ||
                                                       c->encoding->attrs[0].type == PERF_TYPE_RAW ||
                                                       c->encoding->attrs[0].type >= PERF_TYPE_MAX);
}

int local_share_open(Context *c, int *ret_page, int *ret_state) {
        _cleanup_close_ int page_fd = -1, state_fd = -1;
        void *page = NULL, *state = NULL;
        int r;

        if (!c->private_leader || c->backend->sibling_fd(c->counters) < 0)
                return -EOPNOTSUPP;
        r = make_page(&page_fd, &page);
        if (r >= 0)
                r = make_page(&state_fd, &state);
        if (r >= 0) {
                fill_page(c, page);
                *(LocalState *) state = (LocalState) { .magic = LOCAL_STATE_MAGIC, .version = LOCAL_PAGE_VERSION };
                /* The thread reads the first page only; it writes the second, which never shrinks. */
                r = seal(page_fd, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE | F_SEAL_SEAL);
                if (r >= 0)
                        r = seal(state_fd, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
        }
        if (r < 0) {
                if (page)
                        munmap(page, page_size());
                if (state)
                        munmap(state, page_size());
                return r;
        }
        local_share_close(c);           /* a thread that asks again: its old handle goes */
        c->local_page = page;
        c->local_state = state;
        c->local_merged = 0;
        c->local_resets = 0;
        local_share_publish_base(c);
        *ret_page = TAKE_FD(page_fd);
        *ret_state = TAKE_FD(state_fd);
        return 0;
}

static uint64_t less(uint64_t a, uint64_t b) {
        return a > b ? a - b : 0;
}

void local_share_publish_base(Context *c) {
        uint64_t carried[MAX_COUNTERS] = {};
        CounterTimes before = {};
        LocalPage *p = c->local_page;
        size_t n;

        if (!p)
                return;
        n = c->encoding->n_events;
        if (c->backend->carried)
                c->backend->carried(c->counters, carried, n, &before);
        /* The counted time is the carried times and the handle's, less the time base: the handle
         * reads its own times less the base beyond what was carried, plus what is left of it. */
        __atomic_store_n(&p->seq, p->seq + 1, __ATOMIC_RELAXED);       /* odd: changing */
        __atomic_thread_fence(__ATOMIC_RELEASE);
        __atomic_store_n(&p->base_enabled_ns, less(c->time_base.enabled_ns, before.enabled_ns), __ATOMIC_RELAXED);
        __atomic_store_n(&p->base_running_ns, less(c->time_base.running_ns, before.running_ns), __ATOMIC_RELAXED);
        __atomic_store_n(&p->carried_enabled_ns, less(before.enabled_ns, c->time_base.enabled_ns), __ATOMIC_RELAXED);
        __atomic_store_n(&p->carried_running_ns, less(before.running_ns, c->time_base.running_ns), __ATOMIC_RELAXED);
        for (size_t i = 0; i < n && i + 1 < LOCAL_PAGE_MAX_VALUES; i++)
                __atomic_store_n(&p->carried[i + 1], carried[i], __ATOMIC_RELAXED);
        __atomic_store_n(&p->resets_seen, c->local_resets, __ATOMIC_RELAXED);
        __atomic_store_n(&p->seq, p->seq + 1, __ATOMIC_RELEASE);
}

void local_share_invalidate(Context *c) {
        LocalPage *p = c->local_page;

        if (!p)
                return;
        __atomic_store_n(&p->seq, p->seq + 1, __ATOMIC_RELAXED);       /* odd: changing */
        __atomic_thread_fence(__ATOMIC_RELEASE);
        __atomic_store_n(&p->valid, 0, __ATOMIC_RELEASE);
        __atomic_store_n(&p->seq, p->seq + 1, __ATOMIC_RELEASE);
}

void local_share_close(Context *c) {
        if (c->local_state) {
                munmap(c->local_state, page_size());
                c->local_state = NULL;
        }
        if (c->local_page) {
                local_share_invalidate(c);
                munmap(c->local_page, page_size());
                c->local_page = NULL;
        }
}
