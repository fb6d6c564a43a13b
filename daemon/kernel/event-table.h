/* event-table.h: builds the event catalog (core/event-catalog.h) from the curated tables and
 * libpfm4, keeping only the events and groups that the kernel opens here: the catalog's side that
 * talks to the PMUs. */
#pragma once

#include "event-catalog.h"

/* Probes every curated row and every other libpfm4 event of the present PMUs, each umask of each
 * event a row of its own, by opening it on the calling thread. */
int event_table_load(EventTable **ret);
/* The same without opening anything: every encoding libpfm4 gives for the PMUs it finds present
 * (LIBPFM_FORCE_PMU decides, in tests; set it before the first load of the process, or call
 * event_table_reset_pfm() first). */
int event_table_load_unprobed(EventTable **ret);
void event_table_reset_pfm(void);
/* Builds a catalog from the curated rows without libpfm4 or the kernel (unit tests). */
int event_table_new_unprobed(const EventTableSource *const *sources, size_t n_sources, EventTable **ret);

/* The groups of defs whose events are all in t, and with probe, open together on the calling thread
 * as one perf group (event-groups.c), numbered from 0 in the order of defs. */
int event_table_load_groups(EventTable *t, const EventGroupDef *defs, size_t n_defs, bool probe);
