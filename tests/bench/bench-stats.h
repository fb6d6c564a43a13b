/* bench-stats.h: the clock and the statistics every benchmark prints (medians of nanoseconds). */
#pragma once

/* CLOCK_MONOTONIC in nanoseconds. */
long long bench_now_ns(void);
/* Sorts v and returns its median. */
long long bench_median(long long *v, int n);
/* Sorts v and returns its pct-th percentile (the value below which pct % of them lie). */
long long bench_percentile(long long *v, int n, int pct);
