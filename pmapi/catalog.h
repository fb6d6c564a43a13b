/* catalog.h: the event catalog as pm_init()/pm_initialize() hand it to the application, filtered
 * by status, and the list of ids the application may then program. Pure: no bus. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "pmapi.h"

typedef struct CatalogEntry {
        int id;
        int status;                     /* PM_VERIFIED, PM_UNVERIFIED or PM_CAVEAT */
        char *short_name;
        char *long_name;
        char *description;
} CatalogEntry;

typedef struct Catalog {
        char *processor;
        int n_counters;
        int filter;
        CatalogEntry *entries;          /* the filtered events, by increasing id */
        size_t n_entries;
        /* What pm_info_t / pm_info2_t point into; every counter lists the same events. */
        int maxevents[MAX_COUNTERS];
        pm_events_t *events1;
        pm_events_t *lists1[MAX_COUNTERS];
        pm_events2_t *events2;
        pm_events2_t *lists2[MAX_COUNTERS];
        /* What pm_groups_info_t points into: every group pmapid offers, whatever the filter
         * (event_groups[i].group_id == i), each owning its events and names. */
        pm_groups_t *groups;
        size_t n_groups;
} Catalog;

/* One group as pmapid sends it (GetGroups); the strings are the caller's. */
typedef struct CatalogGroup {
        int id;
        const char *short_name;
        const char *long_name;
        const char *description;
        int events[MAX_COUNTERS];       /* COUNT_NOTHING for unused counters */
} CatalogGroup;

/* Takes the catalog pmapid sent (any order), keeps the entries whose status is in filter. The
 * strings of entries are copied. */
int catalog_new(const char *processor, int n_counters, const CatalogEntry *entries, size_t n, int filter,
                Catalog **ret);
Catalog *catalog_free(Catalog *c);
/* Whether ok() holds for every event of prog (a group's, for is_group) on the installed catalog's
 * counters; false where no catalog is installed or the group is not known. */
bool catalog_program_all(const pm_prog_t *prog, bool (*ok)(int event_id));
/* Keeps every group of l, in its order (copied); replaces any kept before. */
int catalog_set_groups(Catalog *c, const CatalogGroup *l, size_t n);
void catalog_fill_groups(const Catalog *c, pm_groups_info_t *groups);
void catalog_fill_info(Catalog *c, pm_info_t *info);
void catalog_fill_info2(Catalog *c, pm_info2_t *info);
bool catalog_allows(const Catalog *c, int counter, int event_id);
pm_status_t catalog_status2(int status);

/* The catalog of the last successful pm_init/pm_initialize(PM_CURRENT): the library is
 * initialized when it is set. Earlier catalogs stay allocated, since the application may still
 * hold pointers into them. */
void catalog_install(Catalog *c);
/* Returns 0, PM_ENOTINIT, PM_EMODELAYOUT (mode-layout.h) or PM_EEVENT: checks every counter of prog
 * against the installed catalog. ret_events: the events to send, COUNT_NOTHING on the counters past
 * maxpmcs, which are ignored as AIX ignores them. */
int catalog_check_program(const pm_prog_t *prog, int32_t ret_events[MAX_COUNTERS]);
bool catalog_is_installed(void);
