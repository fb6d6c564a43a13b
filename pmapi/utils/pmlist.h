/* pmlist.h: what pmlist's command line (pmlist.c) hands to the code that prints the catalog
 * (pmlist-show.c) or, with -g, the predefined event groups (pmlist-groups.c): the events or groups
 * it chose, what the header line says about them, and how and where to print them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "event-index.h"
#include "pmapi.h"

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
        /* -g */
        const pm_info_t *info;          /* the catalog that names the groups' events */
        const pm_groups_t *const *groups;       /* the ones to print, in pm_init's order */
        size_t n_groups;
} Listing;

/* Each returns 0 or a negative errno from writing l->out. */
int pmlist_show_text(const Listing *l);
int pmlist_show_csv(const Listing *l);
int pmlist_show_json(const Listing *l);
int pmlist_show_groups_text(const Listing *l);
int pmlist_show_groups_csv(const Listing *l);
int pmlist_show_groups_json(const Listing *l);

/* The width to fit the text table's lines in (0: no limit). */
size_t pmlist_output_width(FILE *out);
