/* catalog.c: filtering pmapid's event catalog for pm_init and checking programs against it. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "macro.h"
#include "mode-layout.h"

static int entry_cmp(const void *a, const void *b) {
        const CatalogEntry *x = a, *y = b;
        return (x->id > y->id) - (x->id < y->id);
}

static void groups_free(pm_groups_t *l, size_t n) {
        for (size_t i = 0; l && i < n; i++) {
                free(l[i].events);
                free(l[i].short_name);
                free(l[i].long_name);
                free(l[i].description);
        }
        free(l);
}

Catalog *catalog_free(Catalog *c) {
        if (!c)
                return NULL;
        groups_free(c->groups, c->n_groups);
        for (size_t i = 0; i < c->n_entries; i++) {
                free(c->entries[i].short_name);
                free(c->entries[i].long_name);
                free(c->entries[i].description);
        }
        free(c->entries);
        free(c->events1);
        free(c->events2);
        free(c->processor);
        free(c);
        return NULL;
}
DEFINE_FREEP(Catalog, catalog_free);

pm_status_t catalog_status2(int status) {
        pm_status_t s = { .w = 0 };

        s.b.verified = status == PM_VERIFIED;
        s.b.unverified = status == PM_UNVERIFIED;
        s.b.caveat = status == PM_CAVEAT;
        s.b.support_mode = 1;
        return s;
}

static int catalog_build_views(Catalog *c) {
        c->events1 = calloc(c->n_entries + 1, sizeof(pm_events_t));
        c->events2 = calloc(c->n_entries + 1, sizeof(pm_events2_t));
        if (!c->events1 || !c->events2)
                return -ENOMEM;
        for (size_t i = 0; i < c->n_entries; i++) {
                const CatalogEntry *e = &c->entries[i];
                c->events1[i] = (pm_events_t) {
                        .event_id = e->id, .status = (char) e->status, .threshold = 'n',
                        .short_name = e->short_name, .long_name = e->long_name,
                        .description = e->description,
                };
                c->events2[i] = (pm_events2_t) {
                        .event_id = e->id, .status = catalog_status2(e->status),
                        .short_name = e->short_name, .long_name = e->long_name,
                        .description = e->description,
                };
        }
        for (int k = 0; k < MAX_COUNTERS; k++) {
                c->maxevents[k] = k < c->n_counters ? (int) c->n_entries : 0;
                c->lists1[k] = c->events1;
                c->lists2[k] = c->events2;
        }
        return 0;
}

int catalog_new(const char *processor, int n_counters, const CatalogEntry *entries, size_t n, int filter,
                Catalog **ret) {
        _cleanup_(catalog_freep) Catalog *c = calloc(1, sizeof(Catalog));

        if (!c)
                return -ENOMEM;
        c->processor = strdup(processor);
        c->entries = calloc(n + 1, sizeof(CatalogEntry));
        if (!c->processor || !c->entries)
                return -ENOMEM;
        c->n_counters = n_counters < 0 ? 0 : n_counters > MAX_COUNTERS ? MAX_COUNTERS : n_counters;
        c->filter = filter;
        for (size_t i = 0; i < n; i++) {
                CatalogEntry *e;
                if (!(entries[i].status & filter & (PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT)))
                        continue;
                e = &c->entries[c->n_entries++];
                e->id = entries[i].id;
                e->status = entries[i].status;
                e->short_name = strdup(entries[i].short_name);
                e->long_name = strdup(entries[i].long_name);
                e->description = strdup(entries[i].description);
                if (!e->short_name || !e->long_name || !e->description)
                        return -ENOMEM;
        }
        qsort(c->entries, c->n_entries, sizeof(CatalogEntry), entry_cmp);
        if (catalog_build_views(c) < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(c);
        return 0;
}

int catalog_set_groups(Catalog *c, const CatalogGroup *l, size_t n) {
        pm_groups_t *groups = calloc(n + 1, sizeof(pm_groups_t));
        size_t kept = 0;

        if (!groups)
                return -ENOMEM;
        /* Every group, whatever the filter: AIX clients index event_groups by group id (IPM reads
         * event_groups[186], PAPI sizes its map by it), so a group the filter dropped would shift
         * every later one. pmapid numbers them from 0, in the order it sends them. */
        for (size_t i = 0; i < n; i++) {
                pm_groups_t *g = &groups[kept];

                g->group_id = l[i].id;
                g->events = malloc(sizeof(int) * MAX_COUNTERS);
                g->short_name = strdup(l[i].short_name);
                g->long_name = strdup(l[i].long_name);
                g->description = strdup(l[i].description);
                kept++;
                if (!g->events || !g->short_name || !g->long_name || !g->description) {
                        groups_free(groups, kept);
                        return -ENOMEM;
                }
                memcpy(g->events, l[i].events, sizeof(int) * MAX_COUNTERS);
        }
        groups_free(c->groups, c->n_groups);
        c->groups = groups;
        c->n_groups = kept;
        return 0;
}

void catalog_fill_groups(const Catalog *c, pm_groups_info_t *groups) {
        groups->maxgroups = (int) c->n_groups;
        groups->event_groups = c->n_groups > 0 ? c->groups : NULL;
}

void catalog_fill_info(Catalog *c, pm_info_t *info) {
        info->maxpmcs = c->n_counters;
        info->maxevents = c->maxevents;
        info->list_events = c->lists1;
        info->thresholdmult = 0;
        info->hthresholdmult = 0;
        info->proc_name = c->processor;
}

void catalog_fill_info2(Catalog *c, pm_info2_t *info) {
        *info = (pm_info2_t) {
                .maxpmcs = c->n_counters,
                .maxevents = c->maxevents,
                .list_events = c->lists2,
                .proc_name = c->processor,
        };
}

bool catalog_allows(const Catalog *c, int counter, int event_id) {
        CatalogEntry key = { .id = event_id };

        if (counter < 0 || counter >= c->n_counters)
                return false;
        return bsearch(&key, c->entries, c->n_entries, sizeof(CatalogEntry), entry_cmp) != NULL;
}

static pthread_mutex_t installed_lock = PTHREAD_MUTEX_INITIALIZER;
static Catalog *installed;
static Catalog **retired;
static size_t n_retired;

void catalog_install(Catalog *c) {
        pthread_mutex_lock(&installed_lock);
        if (installed) {
                Catalog **l = realloc(retired, (n_retired + 1) * sizeof(Catalog *));
                if (l) {
                        retired = l;
                        retired[n_retired++] = installed;
                }               /* else: leak the old one rather than free what the caller holds */
        }
        installed = c;
        pthread_mutex_unlock(&installed_lock);
}

bool catalog_is_installed(void) {
        bool r;

        pthread_mutex_lock(&installed_lock);
        r = installed != NULL;
        pthread_mutex_unlock(&installed_lock);
        return r;
}

int catalog_check_program(const pm_prog_t *prog, int32_t ret_events[MAX_COUNTERS]) {
        int r = 0;

        pthread_mutex_lock(&installed_lock);
        if (!installed)
                r = PM_ENOTINIT;
        else if (mode_layout_foreign((uint32_t) prog->mode.w))
                r = PM_EMODELAYOUT;     /* its events may be a group id too: say what is wrong first */
        for (int k = 0; k < MAX_COUNTERS; k++)
                ret_events[k] = prog->events[k];
        /* With is_group, events[0] is a group id and the other counters are ignored (AIX; libmpihpm
         * leaves them 0): pmapid judges the group, not an event list. Counters past maxpmcs do not
         * exist on this processor and are ignored too, as on AIX: Paradyn sets events[] to
         * COUNT_NOTHING up to maxpmcs only and leaves the rest 0. */
        for (int k = 0; r == 0 && !prog->mode.b.is_group && k < MAX_COUNTERS; k++)
                if (k >= installed->n_counters)
                        ret_events[k] = COUNT_NOTHING;
                else if (prog->events[k] != COUNT_NOTHING && !catalog_allows(installed, k, prog->events[k]))
                        r = PM_EEVENT;
        pthread_mutex_unlock(&installed_lock);
        return r;
}

bool catalog_program_all(const pm_prog_t *prog, bool (*ok)(int event_id)) {
        const int *events = prog->events;
        bool all = true;

        pthread_mutex_lock(&installed_lock);
        if (!installed)
                all = false;
        else if (prog->mode.b.is_group) {
                /* A group pm_init(PM_GET_GROUPS) did not list: not known, so not all. */
                events = NULL;
                for (size_t i = 0; i < installed->n_groups; i++)
                        if (installed->groups[i].group_id == prog->events[0])
                                events = installed->groups[i].events;
                all = events != NULL;
        }
        for (int k = 0; all && k < MAX_COUNTERS && k < installed->n_counters; k++)
                if (events[k] != COUNT_NOTHING && !ok(events[k]))
                        all = false;
        pthread_mutex_unlock(&installed_lock);
        return all;
}

__attribute__((destructor)) static void catalog_release(void) {
        for (size_t i = 0; i < n_retired; i++)
                catalog_free(retired[i]);
        free(retired);
        installed = catalog_free(installed);
}
