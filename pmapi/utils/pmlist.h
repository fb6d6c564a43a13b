/* pmlist.h: what pmlist's command line and catalog (pmlist.c) hand to the code that prints it
 * (pmlist-show.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmapi.h"

#define EXIT_NO_MATCH 1                 /* -e found no event */
#define EXIT_USAGE    2                 /* the command line is wrong, or libpmapi failed */

/* Counters beyond this are not shown (pm_init gives MAX_COUNTERS, 8). */
#define PMLIST_COUNTERS_MAX 64

typedef enum OutputFormat {
        OUTPUT_TEXT,
        OUTPUT_CSV,
        OUTPUT_JSON,
} OutputFormat;

typedef struct Options {
        int filter;                     /* PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT */
        char **patterns;                /* -e, each one; they point into argv */
        size_t n_patterns;
        bool exact;                     /* -x: a pattern must be a whole name */
        int counter;                    /* -c: only this counter's events; -1 for all */
        bool details;                   /* -d: long names, counters, whole descriptions */
        OutputFormat format;
} Options;

/* One event of the catalog, listed once however many counters take it. */
typedef struct Event {
        const pm_events_t *e;           /* the entry of the first counter that lists it */
        uint64_t counters;              /* bit c: list_events[c] has it */
} Event;

typedef struct Listing {
        const char *processor;
        int n_counters;                 /* pm_init's maxpmcs */
        int counter;                    /* as Options.counter */
        const Event *events;            /* the ones to print, by increasing id */
        size_t n_events;
} Listing;

/* "0-7", "0,2,5-6": the counters of a mask, for text and CSV. */
#define COUNTERS_TEXT_MAX (PMLIST_COUNTERS_MAX * 4)
char *pmlist_format_counters(uint64_t counters, char buf[static COUNTERS_TEXT_MAX]);

/* Each returns 0 or a negative errno from writing stdout. */
int pmlist_show_text(const Listing *l, bool details);
int pmlist_show_csv(const Listing *l, bool details);
int pmlist_show_json(const Listing *l);
