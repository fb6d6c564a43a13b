/* accounting.c: see accounting.h. */
#include <string.h>

#include "accounting.h"

bool acct_effective(bool thread_counting, bool group_counting) {
        return thread_counting && group_counting;
}

void acct_group_value(const AcctVector retained, const AcctVector *live, size_t n_live, AcctVector ret) {
        memcpy(ret, retained, sizeof(AcctVector));
        for (size_t m = 0; m < n_live; m++)
                for (int c = 0; c < MAX_COUNTERS; c++)
                        ret[c] += live[m][c];
}

void acct_member_died(AcctVector retained, const AcctVector final_counts) {
        for (int c = 0; c < MAX_COUNTERS; c++)
                retained[c] += final_counts[c];
}

void acct_group_reset(AcctVector retained, const AcctVector *live_others, size_t n_others) {
        memset(retained, 0, sizeof(AcctVector));
        for (size_t m = 0; m < n_others; m++)
                for (int c = 0; c < MAX_COUNTERS; c++)
                        retained[c] -= live_others[m][c];
}

bool acct_consistent_after_reset(unsigned n_members) {
        return n_members <= 1;
}
