/* event-groups.c: the predefined event groups the catalog offers (event-table.h): a group is kept
 * only where every event it names is in the catalog and, probed, all of them open together as one
 * perf group on this machine, so that a group pm_init lists is one a program can count. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event-table.h"
#include "log.h"
#include "macro.h"
#include "perf-syscall.h"

/* Whether the events open as one group, disabled, on this thread: the PMU has room for them all. */
static bool group_opens_here(const EventTable *t, const int32_t *ids, size_t n) {
        int fds[MAX_COUNTERS];
        size_t k = 0;

        for (; k < n; k++) {
                struct perf_event_attr a = event_table_find(t, ids[k])->attr;

                a.size = sizeof(a);
                a.disabled = k == 0;
                a.exclude_kernel = 1;
                a.exclude_hv = 1;
                fds[k] = sys_perf_event_open(&a, 0, -1, k == 0 ? -1 : fds[0], PERF_FLAG_FD_CLOEXEC);
                if (fds[k] < 0)
                        break;
        }
        for (size_t i = 0; i < k; i++)
                close(fds[i]);
        return k == n;
}

int event_table_load_groups(EventTable *t, const EventGroupDef *defs, size_t n_defs, bool probe) {
        t->groups = calloc(n_defs ? n_defs : 1, sizeof(EventGroup));
        if (!t->groups)
                return -ENOMEM;
        for (size_t g = 0; g < n_defs; g++) {
                EventGroup group = { .def = &defs[g] };
                const char *missing = NULL;
                size_t n = 0;

                for (int c = 0; c < MAX_COUNTERS; c++)
                        group.events[c] = COUNT_NOTHING;
                for (; n < MAX_COUNTERS && defs[g].events[n]; n++) {
                        const Event *e = event_table_find_name(t, defs[g].events[n]);
                        if (!e) {
                                missing = defs[g].events[n];
                                break;
                        }
                        group.events[n] = e->id;
                }
                if (!missing && n > t->n_counters) {
                        log_info("Event group '%s' not offered: %zu events, %u counters.", defs[g].short_name, n,
                                 t->n_counters);
                        continue;
                }
                if (missing) {
                        log_debug("Event group '%s' not offered: %s is not in the catalog.", defs[g].short_name,
                                  missing);
                        continue;
                }
                if (probe && !group_opens_here(t, group.events, n)) {
                        log_info("Event group '%s' not offered: its events do not fit on the PMU together.",
                                 defs[g].short_name);
                        continue;
                }
                group.id = (int) t->n_groups;
                t->groups[t->n_groups++] = group;
        }
        return 0;
}
