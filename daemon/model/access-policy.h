/* access-policy.h: the administrator's grants ([Access] in pmapid.conf, config.c) on top of the
 * kernel's perf_event_paranoid: members of UserModeGroups count as the kernel would let them at
 * paranoid 2, members of KernelModeGroups as at 1, and where OnlyGroups is set, nobody but root
 * and its members may use pmapid at all (AIX pmuaccess). Membership is the caller's own: its
 * primary group and the supplementary groups the bus reported for its connection and it still
 * holds (caller.c), never what a call says. Pure: the tests give it made-up callers. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "caller.h"

#define ACCESS_POLICY_MAX_GROUPS 64

typedef struct GroupList {
        gid_t gids[ACCESS_POLICY_MAX_GROUPS];
        size_t n;
} GroupList;

typedef struct AccessPolicy {
        GroupList user_mode, kernel_mode, only;
} AccessPolicy;

typedef enum PolicyGrant {
        POLICY_GRANT_NONE,              /* the kernel's rules alone */
        POLICY_GRANT_USER,              /* UserModeGroups */
        POLICY_GRANT_KERNEL,            /* KernelModeGroups */
} PolicyGrant;

PolicyGrant access_policy_grant(const AccessPolicy *p, const Caller *c);
/* False when OnlyGroups is set and the caller is neither root nor in one of them. */
bool access_policy_admits(const AccessPolicy *p, const Caller *c);
/* Whether any rule names a group: only then do a caller's supplementary groups matter. */
bool access_policy_names_groups(const AccessPolicy *p);
/* The perf_event_paranoid a caller with grant is judged by. */
int access_policy_paranoid(PolicyGrant grant, int paranoid);
