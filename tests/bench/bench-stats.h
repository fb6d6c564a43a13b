/* bench-stats.h: the clock and the statistics every benchmark prints (medians of nanoseconds). */
#pragma once

/* CLOCK_MONOTONIC in nanoseconds. */
long long bench_now_ns(void);
/* Sorts v and returns its median. */
long long bench_median(long long *v, int n);
