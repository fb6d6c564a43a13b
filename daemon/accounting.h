/* accounting.h: AIX's group accounting rules as pure arithmetic (reference aix-pmapi.md §4.7,
 * DESIGN.md §4). A group keeps one retained vector; its value is
 *     group = retained + sum over live members of thread(member)
 * where thread(member) is what the member's counters report since its last reset. So a member's
 * own reset, or its leaving, takes its data out of the group with no bookkeeping; only a death and
 * a group reset change retained. No I/O here: callers hand in the counts. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmapi.h"

typedef int64_t AcctVector[MAX_COUNTERS];

/* A member counts only when its own state and its group's are both on. */
bool acct_effective(bool thread_counting, bool group_counting);
/* ret = retained + sum of live[0..n_live-1]. */
void acct_group_value(const AcctVector retained, const AcctVector *live, size_t n_live, AcctVector ret);
/* A member died: its final counts stay in the group. */
void acct_member_died(AcctVector retained, const AcctVector final_counts);
/* A group reset, after the caller's own counters were reset: the group reads 0 now, so retained
 * cancels what the other live members still hold. */
void acct_group_reset(AcctVector retained, const AcctVector *live_others, size_t n_others);
/* Consistency after a group reset: only a group of one is still the sum of its members. */
bool acct_consistent_after_reset(unsigned n_members);
