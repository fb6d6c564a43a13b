/* pmlist.h: what pmlist's command line (pmlist.c) hands to the code that prints the catalog
 * (pmlist-show.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "event-index.h"
#include "pmapi.h"

#define EXIT_NO_MATCH 1                 /* -e found no event */
#define EXIT_USAGE    2                 /* the command line is wrong, or libpmapi failed */

typedef enum OutputFormat {
        OUTPUT_TEXT,
        OUTPUT_CSV,
        OUTPUT_JSON,
} OutputFormat;

typedef struct Options {
        int filter;                     /* -f: PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT */
        EventQuery query;               /* -c, -e (its patterns point into argv), -x */
        bool details;                   /* -d: long names, counters, whole descriptions */
        OutputFormat format;
} Options;

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
