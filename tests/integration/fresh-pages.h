/* fresh-pages.h: the tests' known workload, n fresh anonymous pages written once each: n page
 * faults. Header only, so that the workers that link nothing of ours (spawn-worker, static;
 * preload-target) take the same.
 * A huge page takes one fault for up to 512 pages. madvise(MADV_NOHUGEPAGE) on the region is not
 * enough on Debian's 6.1 with transparent huge pages "always" (Debian's default): in a guest, 20
 * threads each touching 1,000 such pages took 19,602 to 19,973 faults in about 1 round of 10, and
 * /proc/vmstat's thp_fault_alloc went up by 1 each time. So the whole process is kept off huge
 * pages (PR_SET_THP_DISABLE, since Linux 3.15; children keep it, across exec too): 0 in 20 rounds. */
#pragma once

#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

/* n fresh pages, mapped (nothing touched yet), or MAP_FAILED. */
static inline volatile char *fresh_pages_map(size_t n) {
        size_t size = n * (size_t) sysconf(_SC_PAGESIZE);
        void *p;

        (void) prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
        p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED)
                (void) madvise(p, size, MADV_NOHUGEPAGE);
        return p;
}

/* Writes one byte to each of n pages at p: n page faults where they were fresh. */
static inline void fresh_pages_write(volatile char *p, size_t n) {
        size_t page = (size_t) sysconf(_SC_PAGESIZE);

        for (size_t i = 0; i < n; i++)
                p[i * page] = 1;
}

/* n fresh pages mapped, written and unmapped: n page faults. 0, or -1 where mmap failed. */
static inline int fresh_pages_touch(size_t n) {
        volatile char *p;

        if (n == 0)
                return 0;
        p = fresh_pages_map(n);
        if (p == MAP_FAILED)
                return -1;
        fresh_pages_write(p, n);
        return munmap((void *) p, n * (size_t) sysconf(_SC_PAGESIZE));
}
