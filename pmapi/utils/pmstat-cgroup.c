/* pmstat-cgroup.c: pmstat --cgroup PATH, the cgroup scope: a cgroup context (pm_set_program_wp(3))
 * counts on every CPU what the tasks of one cgroup v2 and its descendants do, as perf stat -a -G
 * does. pmapid decides who may (root, or the owner of a delegated cgroup); this file finds the
 * cgroup, sets its program and asks whether it was removed, saying why on stderr when it cannot.
 * The reads are pmstat-sample.c's, the intervals pmstat.c's, the report pmstat-report.c's. */
#include <stdio.h>

#include "pmstat.h"

int cgroup_scope_find(const char *path, CgroupTarget *target) {
        char where[4200];
        int r;

        r = cgroup_target_find(path, target);
        if (r != 0) {
                snprintf(where, sizeof(where), "pmstat: cgroup '%s'", path);
                pm_error(where, r);
        }
        return r;
}

int cgroup_scope_set_program(const CgroupTarget *target, pm_prog_t *prog) {
        char where[4200];
        int r;

        r = pm_set_program_wp(target->id, prog);
        if (r != 0) {
                snprintf(where, sizeof(where), "pmstat: cgroup '%s'", target->path);
                pm_error(where, r);
                cgroup_target_hint("pmstat", r);
        }
        return r;
}

int cgroup_scope_removed(const CgroupTarget *target, bool *ret) {
        int r = cgroup_target_removed(target, ret);

        if (r != 0)
                pm_error((char *) "pmstat: pm_get_wplist", r);
        return r;
}
