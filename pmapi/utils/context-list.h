/* context-list.h: the live contexts that pmapid shows the caller (its Manager's ListContexts: root
 * sees all, others the ones they own and the ones on their threads). libpmapi has no AIX call for
 * this, so the tools ask the bus themselves. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ContextEntry {
        int32_t pid, tid;
        uint32_t owner_uid;             /* who made the context */
        uint32_t target_uid;            /* the thread's euid */
        int32_t creator_pid;
        char *origin;                   /* "SetProgram", "SetGroupProgram", "Inherit", "fork-record" */
        bool counting;
        char *group_path;               /* NULL when the context is in no group */
        long group_id;                  /* the last element of group_path, or -1 */
} ContextEntry;

typedef struct ContextList {
        ContextEntry *entries;          /* sorted by tid, as pmapid sends them */
        size_t n_entries;
} ContextList;

/* Asks pmapid on the system bus (DBUS_SYSTEM_BUS_ADDRESS when set). Returns 0 or a positive PM_E*
 * code, as libpmapi's calls do: PM_ENODAEMON, PM_EPERM, PM_ENOMEM or PM_EDAEMON. */
int context_list_fetch(ContextList **ret);
ContextList *context_list_free(ContextList *l);
static inline void context_list_freep(ContextList **l) {
        context_list_free(*l);
}
