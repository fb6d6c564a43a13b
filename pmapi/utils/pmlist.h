/* pmlist.h: what pmlist's command line (pmlist.c) hands to the code that prints the catalog
 * (pmlist-show.c): the events it chose and what the header line says about them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "event-index.h"

typedef struct Listing {
        const char *processor;
        int n_counters;                 /* pm_init's maxpmcs */
        int counter;                    /* -c, or -1 */
        const IndexedEvent *events;     /* the ones to print, by increasing id */
        size_t n_events;
} Listing;

/* Each returns 0 or a negative errno from writing stdout. */
int pmlist_show_text(const Listing *l, bool details);
int pmlist_show_csv(const Listing *l, bool details);
int pmlist_show_json(const Listing *l);
