/* self-read.h: the kernel's user-page protocol for reading one counter of the calling thread with no
 * system call (include/uapi/linux/perf_event.h, struct perf_event_mmap_page; the loop of
 * tools/lib/perf's perf_mmap__read_self): while the event sits on a PMU counter (index != 0) and
 * the kernel lets user space read it (cap_user_rdpmc), count = offset + the counter, sign-extended
 * from pmc_width bits, re-read until the page's lock is the same before and after. Otherwise the
 * caller must read() the fd. Software events never sit on a PMU counter: on a machine without one
 * (this test machine) every read falls back. */
#pragma once

#include <linux/perf_event.h>
#include <stdint.h>

/* Reads PMU counter idx (the page's index - 1): rdpmc on x86-64, mrs on arm64; NULL where there is
 * none. */
typedef uint64_t (*SelfReadPmc)(uint32_t idx);
extern const SelfReadPmc self_read_pmc;

/* 0 and *ret_count, or 1: read() the fd instead (not on a counter now, or no user access). */
int self_read(const volatile struct perf_event_mmap_page *pc, SelfReadPmc pmc, uint64_t *ret_count);
