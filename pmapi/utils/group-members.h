/* group-members.h: the per-member rows of a counting group, which libpmapi has no AIX call for:
 * pmapid's GetGroupMembersPage, asked a page at a time (tool-bus.c). pmcount prints them with
 * --per-thread, pmctl with `members`. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmapi.h"

/* One member of a counting group. */
typedef struct MemberRow {
        int32_t pid, tid;
        char comm[64];                  /* as pmapid sends it: valid UTF-8, bad bytes as \xNN */
        bool alive;
        int64_t counts[MAX_COUNTERS];
} MemberRow;

typedef struct MemberRows {
        MemberRow *rows;
        size_t n_rows, n_allocated;
        uint32_t n_dropped;             /* exited members pmapid kept no row for */
        uint32_t n_missed;              /* threads that could not join: they ran uncounted */
} MemberRows;

/* Asks pmapid (GetGroupMembersPage, page after page) for every member of the group of thread tid
 * of process pid, that thread's own row left out unless with_target; sorted by pid, then tid.
 * Returns 0 or a positive PM_E* code. */
int member_rows_fetch(pid_t pid, pid_t tid, bool with_target, MemberRows *ret);
void member_rows_done(MemberRows *m);

