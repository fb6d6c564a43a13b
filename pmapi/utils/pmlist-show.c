/* pmlist-show.c: what pmlist prints: an aligned table for people (descriptions shortened to the
 * terminal's width unless -d), CSV or one JSON document for programs. The command line and the
 * catalog are in pmlist.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "csv-writer.h"
#include "json-writer.h"
#include "macro.h"
#include "pmlist.h"
#include "prog-text.h"
#include "text-table.h"

#define ELLIPSIS "..."
#define DESCRIPTION_MIN 20              /* a description is never cut shorter than this */
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* The width to fit lines in: $COLUMNS, else the terminal's; 0 (no limit) when stdout is not a
 * terminal, so that pipes and files get whole descriptions. */
static size_t output_width(void) {
        const char *e = getenv("COLUMNS");
        struct winsize ws;

        if (e && *e) {
                char *end;
                long v = strtol(e, &end, 10);
                if (*end == '\0' && v > 0)
                        return (size_t) v;
        }
        if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
                return ws.ws_col;
        return 0;
}

/* A description as a table cell: on one line (control characters become spaces) and, if max > 0,
 * cut to max bytes with an ellipsis, not inside a UTF-8 sequence. NULL when out of memory. */
static char *description_cell(const char *d, size_t max) {
        size_t n = strlen(d ?: "");
        char *cell;

        if (max > 0 && n > max) {
                n = max > strlen(ELLIPSIS) ? max - strlen(ELLIPSIS) : 0;
                while (n > 0 && ((unsigned char) d[n] & 0xc0) == 0x80)
                        n--;
                if (asprintf(&cell, "%.*s" ELLIPSIS, (int) n, d) < 0)
                        return NULL;
        } else if (!(cell = strdup(d ?: "")))
                return NULL;
        for (char *p = cell; *p; p++)
                if ((unsigned char) *p < 0x20)
                        *p = ' ';
        return cell;
}

static size_t digits(int v) {
        return (size_t) snprintf(NULL, 0, "%d", v);
}

/* Room left for the description on a line of width, after ID, NAME and STATUS; 0 for no limit. */
static size_t description_room(const Listing *l, size_t width) {
        size_t w_id = strlen("ID"), w_name = strlen("NAME"), w_status = strlen("STATUS"), used;

        if (width == 0)
                return 0;
        for (size_t i = 0; i < l->n_events; i++) {
                const pm_events_t *e = l->events[i].e;
                size_t n;

                w_id = MAX(w_id, digits(e->event_id));
                n = strlen(e->short_name ?: "");
                w_name = MAX(w_name, n);
                n = strlen(prog_text_status_name(e->status));
                w_status = MAX(w_status, n);
        }
        used = w_id + w_name + w_status + 3 * strlen("  ");
        return width > used + DESCRIPTION_MIN ? width - used : DESCRIPTION_MIN;
}

static void print_header(const Listing *l) {
        size_t n_verified = 0, n_caveat = 0, n_unverified = 0;

        for (size_t i = 0; i < l->n_events; i++)
                switch (l->events[i].e->status) {
                case PM_VERIFIED:
                        n_verified++;
                        break;
                case PM_CAVEAT:
                        n_caveat++;
                        break;
                case PM_UNVERIFIED:
                        n_unverified++;
                        break;
                }
        printf("Processor: %s; %d counters; ", l->processor ?: "unknown", l->n_counters);
        if (l->counter >= 0)
                printf("counter %d: ", l->counter);
        printf("%zu event%s (%zu verified, %zu caveat, %zu unverified)\n", l->n_events,
               l->n_events == 1 ? "" : "s", n_verified, n_caveat, n_unverified);
}

int pmlist_show_text(const Listing *l, bool details) {
        _cleanup_(text_table_freep) TextTable *t = NULL;
        size_t room = details ? 0 : description_room(l, output_width());
        int r;

        r = text_table_new(details ? 6 : 4, &t);
        if (r < 0)
                return r;
        text_table_align_right(t, 0);
        text_table_add(t, "ID");
        text_table_add(t, "NAME");
        if (details)
                text_table_add(t, "LONG_NAME");
        text_table_add(t, "STATUS");
        if (details)
                text_table_add(t, "COUNTERS");
        text_table_add(t, "DESCRIPTION");
        for (size_t i = 0; i < l->n_events; i++) {
                const pm_events_t *e = l->events[i].e;
                _cleanup_free_ char *description = description_cell(e->description, room);
                char counters[EVENT_INDEX_COUNTERS_TEXT_MAX];

                if (!description)
                        return -ENOMEM;
                text_table_add(t, "%d", e->event_id);
                text_table_add(t, "%s", e->short_name ?: "");
                if (details)
                        text_table_add(t, "%s", e->long_name ?: "");
                text_table_add(t, "%s", prog_text_status_name(e->status));
                if (details)
                        text_table_add(t, "%s", event_index_format_counters(l->events[i].counters, counters));
                text_table_add(t, "%s", description);
        }
        print_header(l);
        return text_table_print(t, stdout);
}

int pmlist_show_csv(const Listing *l, bool details) {
        CsvWriter w;

        csv_writer_init(&w, stdout);
        csv_field(&w, "id");
        csv_field(&w, "name");
        csv_field(&w, "status");
        csv_field(&w, "description");
        if (details) {
                csv_field(&w, "long_name");
                csv_field(&w, "counters");
        }
        csv_end_row(&w);
        for (size_t i = 0; i < l->n_events; i++) {
                const pm_events_t *e = l->events[i].e;
                char counters[EVENT_INDEX_COUNTERS_TEXT_MAX];

                csv_fieldf(&w, "%d", e->event_id);
                csv_field(&w, e->short_name);
                csv_field(&w, prog_text_status_name(e->status));
                csv_field(&w, e->description);
                if (details) {
                        csv_field(&w, e->long_name);
                        csv_field(&w, event_index_format_counters(l->events[i].counters, counters));
                }
                csv_end_row(&w);
        }
        return csv_writer_finish(&w);
}

int pmlist_show_json(const Listing *l) {
        JsonWriter w;

        json_writer_init(&w, stdout);
        json_open_object(&w, NULL);
        json_string(&w, "processor", l->processor);
        json_int(&w, "counters", l->n_counters);
        json_open_array(&w, "events");
        for (size_t i = 0; i < l->n_events; i++) {
                const pm_events_t *e = l->events[i].e;

                json_open_object(&w, NULL);
                json_int(&w, "id", e->event_id);
                json_string(&w, "name", e->short_name);
                json_string(&w, "long_name", e->long_name);
                json_string(&w, "status", prog_text_status_name(e->status));
                json_string(&w, "description", e->description);
                json_open_array(&w, "counters");
                for (int c = 0; c < EVENT_INDEX_COUNTERS_MAX; c++)
                        if (l->events[i].counters & UINT64_C(1) << c)
                                json_int(&w, NULL, c);
                json_close_array(&w);
                json_close_object(&w);
        }
        json_close_array(&w);
        json_close_object(&w);
        return json_writer_finish(&w);
}
