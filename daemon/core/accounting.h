/* accounting.h: AIX's group accounting rules as pure arithmetic (docs/design.md, "Group
 * accounting"). A group keeps one retained vector; its value is
 *     group = retained + sum over live members of thread(member)
 * where thread(member) is what the member's counters report since its last reset. So a member's
 * own reset, or its leaving, takes its data out of the group with no bookkeeping; only a death and
 * a group reset change retained. No I/O here: callers hand in the counts. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmapi.h"

/* The counts of the MAX_COUNTERS counters, then the time the counters were enabled and the time they
 * ran on the PMU (ns, as perf reports them): the times add, die and reset by the same rules as the
 * counts, so a group's counted time is the sum of its members'. Only the counts go on the bus as
 * "data". */
#define ACCT_ENABLED MAX_COUNTERS
#define ACCT_RUNNING (MAX_COUNTERS + 1)
#define ACCT_SLOTS (MAX_COUNTERS + 2)
#define ACCT_COUNTS_SIZE (MAX_COUNTERS * sizeof(int64_t))
typedef int64_t AcctVector[ACCT_SLOTS];

/* The counts, the times and the times at the last reset (base): v gets the counts since then, the
 * times since then, and, where the PMU time-shared the counters (running < enabled), each count
 * scaled to the enabled time as perf stat does (count * enabled / running). A group that never ran
 * keeps its counts (0) and says so by its running time, 0. */
void acct_from_counts(AcctVector v, const int64_t counts[MAX_COUNTERS], uint64_t enabled_ns, uint64_t running_ns,
                      uint64_t base_enabled_ns, uint64_t base_running_ns);

/* The same, never scaled: a multi-set (_mx) program's raw counts, with the times to normalise them. */
void acct_raw_from_counts(AcctVector v, const int64_t counts[MAX_COUNTERS], uint64_t enabled_ns, uint64_t running_ns,
                          uint64_t base_enabled_ns, uint64_t base_running_ns);

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
