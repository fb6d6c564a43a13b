/* group.h: a counting group (AIX thread group accumulation): one program, a group counting state,
 * the live member contexts, and what dead members left behind. The arithmetic is accounting.c's;
 * this file applies it to real member contexts. No D-Bus, no event loop. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "accounting.h"
#include "context.h"

/* Each member that died leaves a record: who it was and its final counts (what its counters read
 * at its death: since its last own reset, not since the group's). Bounded: a group keeps at most
 * GROUP_MAX_RECORDS, and all the groups of one owner uid together GROUP_MAX_RECORDS_PER_UID (~90
 * bytes each, a record of a group with K event sets counting K), so that one user's churn never
 * takes another's records; the records past either
 * bound are only counted, in n_records_dropped. Members that leave (their context deleted) take
 * their data out of the group and leave no record. */
#define GROUP_MAX_RECORDS 65536
#define GROUP_MAX_RECORDS_PER_UID (4 * GROUP_MAX_RECORDS)

typedef struct GroupMemberRecord {
        pid_t pid;
        pid_t tid;
        char comm[CONTEXT_COMM_MAX];
        AcctVector counts;              /* set 0's */
        AcctVector *more_counts;        /* a multi-set group's sets 1..: owned; NULL otherwise */
} GroupMemberRecord;

typedef struct Group {
        unsigned id;
        pid_t pid;                      /* the process it was created in */
        uid_t owner_uid;
        uid_t target_uid;               /* euid of the thread it was made on: who else may see it */
        Program program;                /* every member counts these events */
        bool counting;                  /* the group state */
        bool consistent;
        bool process;                   /* PM_PROCESS: every thread of the process */
        unsigned n_members;             /* live and dead members; leavers are not counted */
        AcctVector retained[PM_MX_MAX_SETS];    /* per event set */
        Context **live;                 /* not owned */
        size_t n_live, n_allocated;
        GroupMemberRecord *records;     /* dead members, in the order they died */
        size_t n_records, n_records_allocated;
        uint32_t n_records_dropped;     /* deaths past the bounds: counted in the total, no record */
        uint32_t n_missed;              /* threads that should have joined and could not (a limit, no
                                         * fds, the kernel): the group no longer stands for all of
                                         * its threads, and says so (partial, not consistent) */
        int missed_error;               /* the first miss's negative errno */
} Group;

int group_new(unsigned id, pid_t pid, uid_t owner_uid, const Program *program, bool process, Group **ret);
/* Frees the group only; members must have left first. */
Group *group_free(Group *g);
/* The group's own counting state, which its members' AND with theirs. */
static inline bool group_counting(const struct Group *g) {
        return g->counting;
}

/* c joins as a live member with counters at zero; its counting follows the AND rule at once. */
int group_add(Group *g, Context *c);
/* c's thread died: its final counts stay in the group and it stays counted in n_members, and it
 * leaves a record (bounds permitting). */
int group_member_died(Group *g, Context *c);
/* A thread born into the group inside the kernel (heirs.h) that was gone before pmapid could make
 * it a context: a member that died, with its final counts (one set: heirs carries no others). */
void group_add_dead_birth(Group *g, pid_t pid, pid_t tid, const char *comm, const AcctVector final);
/* For a handover (handover.h): c is a live member already counted in n_members; nothing switches. */
int group_adopt_member(Group *g, Context *c);
/* For a handover: a dead member's record, within the bounds (else counted in n_records_dropped).
 * Takes rec->more_counts either way. */
void group_adopt_record(Group *g, const GroupMemberRecord *rec);
/* c leaves (its context is deleted): its data leaves the group with it. */
void group_member_left(Group *g, Context *c);
/* Group start/stop switch the group state and the caller's own state (docs/design.md, A1, A2). */
int group_start(Group *g, Context *caller);
int group_stop(Group *g, Context *caller);
/* Resets the caller and the group; other members keep their data (docs/design.md, A3). */
int group_reset(Group *g, Context *caller);
/* The group's value of set 0, or of any set (the arithmetic is per set). */
int group_read(Group *g, AcctVector ret);
int group_read_set(Group *g, size_t set, AcctVector ret);
size_t group_n_sets(const Group *g);
/* The longest time one live member's counters were enabled (set 0; 0 without live members): the
 * time AIX's rounds of a group are counted over, where the group's own time is a sum. */
uint64_t group_longest_enabled(Group *g);
/* Records of dead members held by all groups together, and by the groups of one owner uid. */
size_t group_n_records_total(void);
size_t group_n_records_of_uid(uid_t uid);
/* The program as get_program reports it: the count bit is the group state, PM_PROCESS the kind. */
Program group_get_program(const Group *g);
/* A thread that should have joined g could not (error: a negative errno). True for the first. */
bool group_missed(Group *g, int error);
/* pm_ginfo_t.flags.w: consistent 0x1, process 0x2, partial 0x8 (threads missed: Linux). */
uint32_t group_info_flags(const Group *g);
