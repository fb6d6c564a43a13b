/* event-index.h: pm_init()'s catalog as the tools list it: pm_info_t holds one list per counter,
 * and an event that several counters take appears in each; here every event is listed once, with
 * the set of counters that take it, and chosen by counter and by name. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmapi.h"

/* Counters beyond this are left out (pm_init gives MAX_COUNTERS, 8). */
#define EVENT_INDEX_COUNTERS_MAX 64

typedef struct IndexedEvent {
        const pm_events_t *e;           /* the entry of the first counter that lists it */
        uint64_t counters;              /* bit c: list_events[c] has it */
} IndexedEvent;

/* Every event of info once, by increasing id; *ret_events is the caller's to free(). Returns 0 or
 * -ENOMEM. */
int event_index_build(const pm_info_t *info, IndexedEvent **ret_events, size_t *ret_n);

typedef struct EventQuery {
        int counter;                    /* only the events this counter takes; -1 for all */
        char *const *patterns;          /* any of them; none: every event */
        size_t n_patterns;
        bool exact;                     /* a pattern is a whole short or long name, not a part */
} EventQuery;

/* Whether the event is one the query asks for. Names are compared without regard to case. */
bool event_index_matches(const IndexedEvent *ev, const EventQuery *q);

/* "0-7", "0,2,5-6": the counters of a mask. */
#define EVENT_INDEX_COUNTERS_TEXT_MAX (EVENT_INDEX_COUNTERS_MAX * 4)
char *event_index_format_counters(uint64_t counters, char buf[static EVENT_INDEX_COUNTERS_TEXT_MAX]);
