/* workload.c: see workload.h. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "workload.h"

int touch_fresh_pages(size_t n) {
        size_t page = (size_t) sysconf(_SC_PAGESIZE);
        volatile char *p;

        if (n == 0)
                return 0;
        p = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
                return -errno;
        (void) madvise((void *) p, n * page, MADV_NOHUGEPAGE);    /* one fault per 4 KiB page */
        for (size_t i = 0; i < n; i++)
                p[i * page] = 1;
        munmap((void *) p, n * page);
        return 0;
}

int find_event_id(const pm_info_t *info, const char *name) {
        for (int i = 0; i < info->maxevents[0]; i++)
                if (strcmp(info->list_events[0][i].short_name, name) == 0)
                        return info->list_events[0][i].event_id;
        return -1;
}
