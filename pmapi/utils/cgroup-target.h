/* cgroup-target.h: the cgroup that pmstat --cgroup and pmcount --cgroup count: named by the user's
 * PATH (from the cgroup v2 root, or under its mount point), found with pm_get_wplist(3), and
 * asked later whether it was removed. The counting itself is each tool's (pm_set_program_wp(3)). */
#pragma once

#include <stdbool.h>

#include "pmapi.h"

typedef struct CgroupTarget {
        cid_t id;                       /* the cgroup's id: its cid and its handle */
        char *path;                     /* from the v2 root, as pmapid names it */
} CgroupTarget;

/* Finds the cgroup at path: 0, or pm_get_wplist's PM_E* code (PM_ENOCGROUP, PM_ECGROUPPATH, ...). */
int cgroup_target_find(const char *path, CgroupTarget *ret);
void cgroup_target_done(CgroupTarget *t);
/* Whether the cgroup that this process counts was removed since: 0 with *ret set, or a PM_E* code. */
int cgroup_target_removed(const CgroupTarget *t, bool *ret);
/* After pm_set_program_wp failed with code: a line on stderr saying what the user can do, if there
 * is more to say than pm_error's text. */
void cgroup_target_hint(const char *tool, int code);
