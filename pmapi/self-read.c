/* self-read.c: see self-read.h. */
#include <stddef.h>

#include "self-read.h"

#if defined(__x86_64__)
static uint64_t rdpmc_x86(uint32_t idx) {
        uint32_t lo, hi;

        __asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
        return (uint64_t) hi << 32 | lo;
}
const SelfReadPmc self_read_pmc = rdpmc_x86;
#else
const SelfReadPmc self_read_pmc = NULL;
#endif

int self_read(const volatile struct perf_event_mmap_page *pc, SelfReadPmc pmc, uint64_t *ret_count) {
        uint64_t count;
        uint32_t seq, idx;

        if (!pmc)
                return 1;
        do {
                seq = pc->lock;
                __atomic_thread_fence(__ATOMIC_ACQUIRE);
                idx = pc->index;
                if (!pc->cap_user_rdpmc || idx == 0)
                        return 1;
                count = (uint64_t) pc->offset;
                {
                        uint16_t width = pc->pmc_width;
                        uint64_t v = pmc(idx - 1);

                        if (width > 0 && width < 64) {          /* sign-extend a narrower counter */
                                v <<= 64 - width;
                                v = (uint64_t) ((int64_t) v >> (64 - width));
                        }
                        count += v;
                }
                __atomic_thread_fence(__ATOMIC_ACQUIRE);
        } while (pc->lock != seq);
        *ret_count = count;
        return 0;
}
