/* pmlist-show.c: what pmlist prints of the catalog: an aligned table for people (libsmartcols
 * shortens the descriptions to the terminal's width unless -d), CSV or one JSON document for
 * programs. The command line and the catalog are in pmlist.c, the event groups of -g in
 * pmlist-groups.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "csv-writer.h"
#include "json-writer.h"
#include "macro.h"
#include "pmlist.h"
#include "prog-text.h"
#include "text-table.h"

/* The width to fit lines in: $COLUMNS, else the terminal's when the output is one; 0 (no limit)
 * otherwise, so that pipes and files get whole descriptions. */
size_t pmlist_output_width(FILE *out) {
        const char *e = getenv("COLUMNS");
        struct winsize ws;

        if (e && *e) {
                char *end;
                long v = strtol(e, &end, 10);
                if (*end == '\0' && v > 0)
                        return (size_t) v;
        }
        if (isatty(fileno(out)) && ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
                return ws.ws_col;
        return 0;
}

static void print_header(const Listing *l, FILE *f) {
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
        fprintf(f, "Processor: %s; %d counters; ", l->processor ?: "unknown", l->n_counters);
        if (l->counter >= 0)
                fprintf(f, "counter %d: ", l->counter);
        fprintf(f, "%zu event%s (%zu verified, %zu caveat, %zu unverified)\n", l->n_events,
                l->n_events == 1 ? "" : "s", n_verified, n_caveat, n_unverified);
}

int pmlist_show_text(const Listing *l) {
        _cleanup_(text_table_freep) TextTable *t = NULL;
        size_t n_columns = l->details ? 6 : 4;
        int r;

        r = text_table_new(n_columns, &t);
        if (r < 0)
                return r;
        text_table_align_right(t, 0);
        text_table_set_style(t, l->no_headings, l->raw);
        if (!l->details)
                text_table_truncate(t, n_columns - 1, pmlist_output_width(l->out));
        text_table_add(t, "ID");
        text_table_add(t, "NAME");
        if (l->details)
                text_table_add(t, "LONG_NAME");
        text_table_add(t, "STATUS");
        if (l->details)
                text_table_add(t, "COUNTERS");
        text_table_add(t, "DESCRIPTION");
        for (size_t i = 0; i < l->n_events; i++) {
                const pm_events_t *e = l->events[i].e;
                char counters[EVENT_INDEX_COUNTERS_TEXT_MAX];

                text_table_add(t, "%d", e->event_id);
                text_table_add(t, "%s", e->short_name ?: "");
                if (l->details)
                        text_table_add(t, "%s", e->long_name ?: "");
                text_table_add(t, "%s", prog_text_status_name(e->status));
                if (l->details)
                        text_table_add(t, "%s", event_index_format_counters(l->events[i].counters, counters));
                text_table_add(t, "%s", e->description ?: "");
        }
        if (!l->no_headings)
                print_header(l, l->out);
        return text_table_print(t, l->out);
}

int pmlist_show_csv(const Listing *l) {
        CsvWriter w;

        csv_writer_init_sep(&w, l->out, l->separator);
        csv_field(&w, "id");
        csv_field(&w, "name");
        csv_field(&w, "status");
        csv_field(&w, "description");
        if (l->details) {
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
                if (l->details) {
                        csv_field(&w, e->long_name);
                        csv_field(&w, event_index_format_counters(l->events[i].counters, counters));
                }
                csv_end_row(&w);
        }
        return csv_writer_finish(&w);
}

int pmlist_show_json(const Listing *l) {
        JsonWriter w;

        json_writer_init(&w, l->out);
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
