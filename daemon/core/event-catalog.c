/* event-catalog.c: the catalog's lookups and its memory (event-catalog.h). */
#include <stdlib.h>
#include <string.h>

#include "event-catalog.h"
#include "macro.h"

const EventTableSource *const event_sources[] = {
        &event_source_perf_software,
        &event_source_perf_generic_hw,
        &event_source_cpu_families,
};
const size_t n_event_sources = ELEMENTSOF(event_sources);

void event_clear(Event *e) {
        free(e->short_name);
        free(e->long_name);
        free(e->description);
}

EventTable *event_table_free(EventTable *t) {
        if (!t)
                return NULL;
        for (size_t i = 0; i < t->n_events; i++)
                event_clear(&t->events[i]);
        free(t->events);
        free(t->groups);
        free(t->pmu_name);
        free(t);
        return NULL;
}

const Event *event_table_find_name(const EventTable *t, const char *short_name) {
        for (size_t i = 0; i < t->n_events; i++)
                if (strcmp(t->events[i].short_name, short_name) == 0)
                        return &t->events[i];
        return NULL;
}

const Event *event_table_find(const EventTable *t, int id) {
        size_t lo = 0, hi = t->n_events;

        while (lo < hi) {               /* ids increase along the table */
                size_t mid = (lo + hi) / 2;
                if (t->events[mid].id == id)
                        return &t->events[mid];
                if (t->events[mid].id < id)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return NULL;
}

bool event_table_has_metric(const EventTable *t, const MetricDef *m) {
        return event_table_find_name(t, m->numerator) && (!m->denominator || event_table_find_name(t, m->denominator));
}

const EventGroup *event_table_find_group(const EventTable *t, int id) {
        /* AIX's numbering: a group id is an index, and anything outside 0..maxgroups-1 is no group. */
        return id >= 0 && (size_t) id < t->n_groups ? &t->groups[id] : NULL;
}
