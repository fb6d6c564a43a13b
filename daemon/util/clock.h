/* clock.h: the daemon's one clock, CLOCK_MONOTONIC in nanoseconds: the time base of tdata reads,
 * of contexts' state changes, of libpmapi's creation times and of perf fork records; and the wall
 * clock, only to say when pmapid started. */
#pragma once

#include <stdint.h>
#include <time.h>

static inline uint64_t now_monotonic_ns(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static inline uint64_t now_realtime_usec(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}
