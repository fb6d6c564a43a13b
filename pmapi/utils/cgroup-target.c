/* cgroup-target.c: see cgroup-target.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup-target.h"
#include "macro.h"

/* The entries a path may have: the live cgroup, and those at the same path that this process counts
 * and that were removed since (a tool counts one, and a path may have been made again). */
#define MAX_ENTRIES 4

int cgroup_target_find(const char *path, CgroupTarget *ret) {
        pm_wpar_ctx_info_t info;
        int n = 1, r;

        r = pm_get_wplist(path, &info, &n);
        if (r != 0)
                return r;
        if (n < 1)
                return PM_ENOCGROUP;
        ret->id = info.cid;
        ret->path = strdup(info.name);
        return ret->path ? 0 : PM_ENOMEM;
}

void cgroup_target_done(CgroupTarget *t) {
        free(t->path);
        *t = (CgroupTarget) {};
}

int cgroup_target_removed(const CgroupTarget *t, bool *ret) {
        _cleanup_free_ pm_wpar_ctx_info_t *list = calloc(MAX_ENTRIES, sizeof(pm_wpar_ctx_info_t));
        int n = MAX_ENTRIES, r;

        if (!list)
                return PM_ENOMEM;
        r = pm_get_wplist(t->path, list, &n);
        if (r == PM_ENOCGROUP) {
                *ret = true;            /* not even ours listed: gone, whatever pmapid kept */
                return 0;
        }
        if (r != 0)
                return r;
        for (int i = 0; i < n && i < MAX_ENTRIES; i++)
                if (list[i].cid == t->id) {
                        *ret = list[i].removed != 0;
                        return 0;
                }
        *ret = true;
        return 0;
}

void cgroup_target_hint(const char *tool, int code) {
        if (code == PM_ECGROUPACCESS)
                fprintf(stderr, "%s: to count a cgroup as another user than root, have it delegated to "
                                "you (its directory and cgroup.procs yours) with only your processes in it\n",
                        tool);
        else if (code == PM_EKERNELMODE)
                fprintf(stderr, "%s: add -u to count user mode only\n", tool);
}
