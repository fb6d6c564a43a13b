/* event-index.c: see event-index.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "event-index.h"
#include "macro.h"

typedef struct Entry {
        const pm_events_t *e;
        int counter;
} Entry;

static int compare_entries(const void *a, const void *b) {
        const Entry *x = a, *y = b;

        if (x->e->event_id != y->e->event_id)
                return x->e->event_id < y->e->event_id ? -1 : 1;
        return x->counter < y->counter ? -1 : x->counter > y->counter;
}

int event_index_build(const pm_info_t *info, IndexedEvent **ret_events, size_t *ret_n) {
        int n_counters = info->maxpmcs < EVENT_INDEX_COUNTERS_MAX ? info->maxpmcs : EVENT_INDEX_COUNTERS_MAX;
        _cleanup_free_ Entry *entries = NULL;
        IndexedEvent *events;
        size_t n_entries = 0, n = 0;

        /* Every (event, counter) pair, sorted by id and counter: each event's pairs end up side by
         * side, whatever the order of the lists. */
        for (int c = 0; c < n_counters; c++)
                n_entries += info->maxevents[c] > 0 ? (size_t) info->maxevents[c] : 0;
        entries = calloc(n_entries ?: 1, sizeof(Entry));
        events = calloc(n_entries ?: 1, sizeof(IndexedEvent));
        if (!entries || !events) {
                free(events);
                return -ENOMEM;
        }
        n_entries = 0;
        for (int c = 0; c < n_counters; c++)
                for (int i = 0; i < info->maxevents[c]; i++)
                        entries[n_entries++] = (Entry) { &info->list_events[c][i], c };
        qsort(entries, n_entries, sizeof(Entry), compare_entries);
        for (size_t i = 0; i < n_entries; i++) {
                if (n == 0 || events[n - 1].e->event_id != entries[i].e->event_id)
                        events[n++] = (IndexedEvent) { .e = entries[i].e };
                events[n - 1].counters |= UINT64_C(1) << entries[i].counter;
        }
        *ret_events = events;
        *ret_n = n;
        return 0;
}

static bool name_matches(const char *name, const char *pattern, bool exact) {
        if (!name)
                return false;
        return exact ? strcasecmp(name, pattern) == 0 : strcasestr(name, pattern) != NULL;
}

bool event_index_matches(const IndexedEvent *ev, const EventQuery *q) {
        if (q->counter >= 0 && (q->counter >= EVENT_INDEX_COUNTERS_MAX || !(ev->counters & UINT64_C(1) << q->counter)))
                return false;
        if (q->n_patterns == 0)
                return true;
        for (size_t i = 0; i < q->n_patterns; i++)
                if (name_matches(ev->e->short_name, q->patterns[i], q->exact) ||
                    name_matches(ev->e->long_name, q->patterns[i], q->exact))
                        return true;
        return false;
}

char *event_index_format_counters(uint64_t counters, char buf[static EVENT_INDEX_COUNTERS_TEXT_MAX]) {
        size_t o = 0;

        buf[0] = '\0';
        for (int c = 0; c < EVENT_INDEX_COUNTERS_MAX; c++) {
                int last = c;

                if (!(counters & UINT64_C(1) << c))
                        continue;
                while (last + 1 < EVENT_INDEX_COUNTERS_MAX && counters & UINT64_C(1) << (last + 1))
                        last++;
                o += snprintf(buf + o, EVENT_INDEX_COUNTERS_TEXT_MAX - o, "%s%d", o > 0 ? "," : "", c);
                if (last > c)
                        o += snprintf(buf + o, EVENT_INDEX_COUNTERS_TEXT_MAX - o, "-%d", last);
                c = last;
        }
        return buf;
}
