/* mx-read.c: see mx-read.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mx-read.h"
#include "workload.h"

int mx_events_find(MxEvents *ret) {
        pm_info_t info;

        if (pm_init(PM_VERIFIED, &info) != 0)
                return -1;
        *ret = (MxEvents) { find_event_id(&info, "PM_PAGE_FLT"), find_event_id(&info, "PM_MINOR_FLT"),
                            find_event_id(&info, "PM_TASK_CLOCK") };
        return ret->page_flt > 0 && ret->minor_flt > 0 && ret->task_clock > 0 ? 0 : -1;
}

void mx_two_sets(pm_prog_mx_t *prog, pm_events_prog_t sets[MX_SETS], const MxEvents *e, int mode) {
        for (int s = 0; s < MX_SETS; s++)
                for (int c = 0; c < MAX_COUNTERS; c++)
                        sets[s][c] = COUNT_NOTHING;
        sets[0][0] = sets[1][0] = e->page_flt;
        sets[0][1] = e->minor_flt;
        sets[1][1] = e->task_clock;
        *prog = (pm_prog_mx_t) { .mode.w = mode, .slice_duration = MX_SLICE_MS, .nb_events_prog = MX_SETS,
                                 .events_set = sets };
}

int mx_take(int rc, pm_data_mx_t *d, MxRead *ret) {
        if (rc != 0) {
                fprintf(stderr, "read: %d (%s)\n", rc, pm_strerror(NULL, rc));
                return -1;
        }
        if (d->nb_accu_mx < 1 || d->nb_accu_mx > PM_MX_MAX_SETS || !d->accu_set) {
                fprintf(stderr, "read: %d sets at %p\n", d->nb_accu_mx, (void *) d->accu_set);
                free(d->accu_set);
                return -1;
        }
        *ret = (MxRead) { .ginfo = d->ginfo, .n_sets = d->nb_accu_mx, .rounds = d->nb_mx_round };
        memcpy(ret->sets, d->accu_set, sizeof(pm_accu_mx_t) * (size_t) d->nb_accu_mx);
        free(d->accu_set);
        d->accu_set = NULL;
        return 0;
}

long long mx_ns(timebasestruct_t tb) {
        return (long long) PM_TB_TO_NS(tb);
}

int mx_check_added(const MxRead *before, const MxRead *after, int c, long long n) {
        CHECK(before->n_sets == after->n_sets);
        for (int s = 0; s < after->n_sets; s++)
                if (after->sets[s].accu_data[c] != before->sets[s].accu_data[c] + n) {
                        fprintf(stderr, "set %d counter %d: %lld, expected %lld + %lld\n", s, c,
                                after->sets[s].accu_data[c], before->sets[s].accu_data[c], n);
                        return 1;
                }
        return 0;
}

int mx_check_same_faults(const MxRead *a, const MxRead *b) {
        CHECK(mx_check_added(a, b, 0, 0) == 0);
        CHECK(a->sets[0].accu_data[1] == b->sets[0].accu_data[1]);
        return 0;
}

int mx_check_sum(const MxRead *total, const MxRead *const parts[], int n) {
        for (int i = 0; i < n; i++)
                CHECK(parts[i]->n_sets == total->n_sets);
        for (int s = 0; s < total->n_sets; s++)
                for (int k = 0; k < MAX_COUNTERS; k++) {
                        long long want = 0;

                        for (int i = 0; i < n; i++)
                                want += parts[i]->sets[s].accu_data[k];
                        if (total->sets[s].accu_data[k] != want) {
                                fprintf(stderr, "set %d counter %d: %lld, expected %lld\n", s, k,
                                        total->sets[s].accu_data[k], want);
                                return 1;
                        }
                }
        return 0;
}
