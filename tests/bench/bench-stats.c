/* bench-stats.c: see bench-stats.h. */
#include <stdlib.h>
#include <time.h>

#include "bench-stats.h"

long long bench_now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_ll(const void *a, const void *b) {
        long long x = *(const long long *) a, y = *(const long long *) b;
        return (x > y) - (x < y);
}

long long bench_median(long long *v, int n) {
        return bench_percentile(v, n, 50);
}

long long bench_percentile(long long *v, int n, int pct) {
        qsort(v, (size_t) n, sizeof(*v), cmp_ll);
        return v[(long long) n * pct / 100 < n ? (long long) n * pct / 100 : n - 1];
}
