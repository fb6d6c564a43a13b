/* local-share.c: see local-share.h. */
#include <errno.h>
#include <linux/perf_event.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "local-page.h"
#include "local-share.h"
#include "macro.h"

static size_t page_size(void) {
        return (size_t) sysconf(_SC_PAGESIZE);
}

int local_share_open(Context *c, int *ret_memfd) {
        _cleanup_close_ int fd = -1;
        LocalPage *p;

        if (!c->private_leader || c->backend->sibling_fd(c->counters) < 0)
                return -EOPNOTSUPP;
        if (c->local_memfd >= 0) {
                *ret_memfd = c->local_memfd;
                return 0;
        }
        fd = memfd_create("pmapi-local", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (fd < 0)
                return -errno;
        if (ftruncate(fd, (off_t) page_size()) < 0)
                return -errno;
        p = mmap(NULL, page_size(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED)
                return -errno;
        *p = (LocalPage) { .magic = LOCAL_PAGE_MAGIC, .version = LOCAL_PAGE_VERSION, .valid = 1,
                           .n_values = (uint32_t) c->encoding.n_events + 1 };
        p->slot[0] = -1;                /* the private leader */
        p->pmu_counter = c->encoding.n_events == 1 && (c->encoding.attrs[0].type == PERF_TYPE_HARDWARE ||
                                                       c->encoding.attrs[0].type == PERF_TYPE_HW_CACHE ||
                                                       c->encoding.attrs[0].type == PERF_TYPE_RAW ||
                                                       c->encoding.attrs[0].type >= PERF_TYPE_MAX);
        for (size_t i = 0; i < c->encoding.n_events; i++)
                p->slot[i + 1] = c->encoding.slot[i];
        for (size_t i = c->encoding.n_events + 1; i < LOCAL_PAGE_MAX_VALUES; i++)
                p->slot[i] = -1;
        /* The thread maps it read-only: no write, no resize, ever (our map stays writable). */
        if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE | F_SEAL_SEAL) < 0) {
                int r = -errno;
                munmap(p, page_size());
                return r;
        }
        c->local_page = p;
        c->local_memfd = TAKE_FD(fd);
        *ret_memfd = c->local_memfd;
        return 0;
}

void local_share_invalidate(Context *c) {
        LocalPage *p = c->local_page;

        if (!p)
                return;
        __atomic_store_n(&p->seq, p->seq + 1, __ATOMIC_RELEASE);       /* odd: changing */
        __atomic_store_n(&p->valid, 0, __ATOMIC_RELEASE);
        __atomic_store_n(&p->seq, p->seq + 1, __ATOMIC_RELEASE);
}

void local_share_close(Context *c) {
        if (c->local_page) {
                local_share_invalidate(c);
                munmap(c->local_page, page_size());
                c->local_page = NULL;
        }
        c->local_memfd = safe_close(c->local_memfd);
}
