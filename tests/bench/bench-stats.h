/* bench-stats.h: the clock and the statistics every benchmark prints (medians of nanoseconds). */
#pragma once

/* CLOCK_MONOTONIC in nanoseconds. */
long long bench_now_ns(void);
/* Sorts v and returns its median. */
long long bench_median(long long *v, int n);
/* VmRSS of process pid in KB, or -1. */
long bench_rss_kb(int pid);
/* Sorts v and returns its pct-th percentile (the value below which pct % of them lie). */
long long bench_percentile(long long *v, int n, int pct);
