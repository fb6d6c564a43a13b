/* accounting.c: see accounting.h. */
#include <string.h>

#include "accounting.h"

static void from_counts(AcctVector v, const int64_t counts[MAX_COUNTERS], uint64_t enabled_ns, uint64_t running_ns,
                        uint64_t base_enabled_ns, uint64_t base_running_ns, bool scale) {
        uint64_t enabled = enabled_ns > base_enabled_ns ? enabled_ns - base_enabled_ns : 0;
        uint64_t running = running_ns > base_running_ns ? running_ns - base_running_ns : 0;

        for (int c = 0; c < MAX_COUNTERS; c++) {
                __int128 x;

                if (!scale || running == 0 || running >= enabled) {
                        v[c] = counts[c];
                        continue;
                }
                /* Saturated: a scaled count past 2^63 is an estimate gone wrong, not a number. */
                x = (__int128) counts[c] * (__int128) enabled / (__int128) running;
                v[c] = x > INT64_MAX ? INT64_MAX : x < -INT64_MAX ? -INT64_MAX : (int64_t) x;
        }
        v[ACCT_ENABLED] = (int64_t) enabled;
        v[ACCT_RUNNING] = (int64_t) running;
}

void acct_from_counts(AcctVector v, const int64_t counts[MAX_COUNTERS], uint64_t enabled_ns, uint64_t running_ns,
                      uint64_t base_enabled_ns, uint64_t base_running_ns) {
        from_counts(v, counts, enabled_ns, running_ns, base_enabled_ns, base_running_ns, true);
}

void acct_raw_from_counts(AcctVector v, const int64_t counts[MAX_COUNTERS], uint64_t enabled_ns, uint64_t running_ns,
                          uint64_t base_enabled_ns, uint64_t base_running_ns) {
        from_counts(v, counts, enabled_ns, running_ns, base_enabled_ns, base_running_ns, false);
}

bool acct_effective(bool thread_counting, bool group_counting) {
        return thread_counting && group_counting;
}

void acct_group_value(const AcctVector retained, const AcctVector *live, size_t n_live, AcctVector ret) {
        memcpy(ret, retained, sizeof(AcctVector));
        for (size_t m = 0; m < n_live; m++)
                for (int c = 0; c < ACCT_SLOTS; c++)
                        ret[c] += live[m][c];
}

void acct_member_died(AcctVector retained, const AcctVector final_counts) {
        for (int c = 0; c < ACCT_SLOTS; c++)
                retained[c] += final_counts[c];
}

void acct_group_reset(AcctVector retained, const AcctVector *live_others, size_t n_others) {
        memset(retained, 0, sizeof(AcctVector));
        for (size_t m = 0; m < n_others; m++)
                for (int c = 0; c < ACCT_SLOTS; c++)
                        retained[c] -= live_others[m][c];
}

bool acct_consistent_after_reset(unsigned n_members) {
        return n_members <= 1;
}
