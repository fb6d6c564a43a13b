/* pmlist.h: what pmlist's command line (pmlist.c) hands to the code that prints the catalog
 * (pmlist-show.c): the events it chose, what the header line says about them, and how and where
 * to print them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "event-index.h"

typedef struct Listing {
        const char *processor;
        int n_counters;                 /* pm_init's maxpmcs */
        int counter;                    /* -c, or -1 */
        const IndexedEvent *events;     /* the ones to print, by increasing id */
        size_t n_events;
        FILE *out;                      /* stdout, or -o FILE */
        bool details;                   /* -d: long names, counters, whole descriptions */
        bool no_headings;               /* text: -n, neither the header line nor the column titles */
        bool raw;                       /* text: --raw, cells one space apart, unaligned */
        const char *separator;          /* CSV: "," or -x SEP */
} Listing;

/* Each returns 0 or a negative errno from writing l->out. */
int pmlist_show_text(const Listing *l);
int pmlist_show_csv(const Listing *l);
int pmlist_show_json(const Listing *l);
