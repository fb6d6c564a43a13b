/* heirs-engine.h: what heirs.c and heirs-engine.c share, never included elsewhere: the engine's
 * maps, links and per-CPU sources (heirs.h is the interface). */
#pragma once

#include <stdbool.h>

#include "bpf/heirs-abi.h"
#include "heirs.h"
#include "heirs-snapshot.h"

enum { MAP_CONTROLS, MAP_COUNTS, MAP_SEALED, MAP_BIRTHS, MAP_RELEASES, MAP_SOURCES, MAP_STARTS, MAP_LAST_NEXT,
       MAP_CONFIG, MAP_SOURCE_EVENTS, MAP_STATS, N_MAPS };
enum { LINK_NEWTASK, LINK_SWITCH, LINK_EXEC, LINK_EXIT, N_LINKS };

struct Heirs {
        int maps[N_MAPS];
        int links[N_LINKS];
        int fold;                       /* heirs_fold, loaded and never attached (heirs_fold_*()) */
        unsigned n_cpus;
        int *source_fds;                /* [source * n_cpus + cpu], -1: not opened by this image */
        bool batching;                  /* between heirs_batch_begin() and _end() */
        bool copy_failed;               /* this batch's copy could not be taken: live lookups */
        HeirsSnapshot *snapshot;        /* the batch's copy of the maps, taken at its first read */
};

/* The source (a slot of pmapid's per-CPU counters) that counts attr, opened on every CPU if it was
 * not yet: its index, or -E2BIG where every slot is taken, or perf_event_open's error. */
int heirs_source_for(Heirs *h, const struct perf_event_attr *attr);
/* Whether the sources of attrs[0..n-1] not open yet fit in the PMU's share (pmu-budget.h), after
 * closing hardware sources no control refers to any more: 0 or -ENOSPC. Opens nothing. */
int heirs_sources_fit(Heirs *h, const struct perf_event_attr *attrs, size_t n);
/* With nothing tracked, no slot refers to a source: the per-CPU counters go. */
void heirs_sources_release_if_idle(Heirs *h);
