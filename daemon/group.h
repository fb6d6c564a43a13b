/* group.h: a counting group (AIX thread group accumulation): one program, a group counting state,
 * the live member contexts, and what dead members left behind. The arithmetic is accounting.c's;
 * this file applies it to real member contexts. No D-Bus, no event loop. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "accounting.h"
#include "context.h"

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
        AcctVector retained;
        Context **live;                 /* not owned */
        size_t n_live, n_allocated;
} Group;

int group_new(unsigned id, pid_t pid, uid_t owner_uid, const Program *program, bool process, Group **ret);
/* Frees the group only; members must have left first. */
Group *group_free(Group *g);
bool group_counting(const struct Group *g);

/* c joins as a live member with counters at zero; its counting follows the AND rule at once. */
int group_add(Group *g, Context *c);
/* c's thread died: its final counts stay in the group and it stays counted in n_members. */
int group_member_died(Group *g, Context *c);
/* c leaves (its context is deleted): its data leaves the group with it. */
void group_member_left(Group *g, Context *c);
/* Group start/stop switch the group state and the caller's own state (DESIGN §8 A1, A2). */
int group_start(Group *g, Context *caller);
int group_stop(Group *g, Context *caller);
/* Resets the caller and the group; other members keep their data (A3). */
int group_reset(Group *g, Context *caller);
int group_read(Group *g, AcctVector ret);
/* The program as get_program reports it: the count bit is the group state, PM_PROCESS the kind. */
Program group_get_program(const Group *g);
/* pm_ginfo_t.flags.w: consistent 0x1, process 0x2. */
uint32_t group_info_flags(const Group *g);
