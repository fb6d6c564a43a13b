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
#elif defined(__aarch64__)
/* Counter 31 is the cycle counter; 0..30 the event counters, each its own register (mrs takes no
 * register number): tools/lib/perf's read_perf_counter. The kernel lets EL0 read them only for an
 * event opened with config1 bit 1 while kernel.perf_user_access is 1; otherwise the page's index
 * is 0 and nothing here runs. */
#define PMEVCNTR(n) case n: __asm__ volatile("mrs %0, pmevcntr" #n "_el0" : "=r"(v)); break
static uint64_t mrs_arm64(uint32_t idx) {
        uint64_t v = 0;

        switch (idx) {
        PMEVCNTR(0); PMEVCNTR(1); PMEVCNTR(2); PMEVCNTR(3); PMEVCNTR(4); PMEVCNTR(5); PMEVCNTR(6);
        PMEVCNTR(7); PMEVCNTR(8); PMEVCNTR(9); PMEVCNTR(10); PMEVCNTR(11); PMEVCNTR(12); PMEVCNTR(13);
        PMEVCNTR(14); PMEVCNTR(15); PMEVCNTR(16); PMEVCNTR(17); PMEVCNTR(18); PMEVCNTR(19);
        PMEVCNTR(20); PMEVCNTR(21); PMEVCNTR(22); PMEVCNTR(23); PMEVCNTR(24); PMEVCNTR(25);
        PMEVCNTR(26); PMEVCNTR(27); PMEVCNTR(28); PMEVCNTR(29); PMEVCNTR(30);
        case 31:
                __asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
                break;
        default:
                break;
        }
        return v;
}
const SelfReadPmc self_read_pmc = mrs_arm64;
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
