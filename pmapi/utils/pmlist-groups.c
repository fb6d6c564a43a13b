/* pmlist-groups.c: what pmlist -g prints: the predefined event groups pm_init(PM_GET_GROUPS)
 * returns, each with its id, short name, events and description, in the forms pmlist-show.c gives
 * the catalog: an aligned table for people, CSV or one JSON document for programs. A group's
 * events are written per counter from counter 0, as -e takes them ("PM_PAGE_FLT,PM_MINOR_FLT";
 * '-' for a counter the group leaves idle), each named from the catalog (event-group.h). */
#include <stdio.h>

#include "csv-writer.h"
#include "event-group.h"
#include "json-writer.h"
#include "macro.h"
#include "pmlist.h"
#include "text-table.h"

/* Room for MAX_COUNTERS short names and their commas. */
#define EVENTS_TEXT_MAX 1024

static void print_header(const Listing *l, FILE *f) {
        fprintf(f, "Processor: %s; %d counters; ", l->processor ?: "unknown", l->n_counters);
        if (l->n_groups == 0)
                fputs("0 event groups (pmapid has none on this machine)\n", f);
        else
                fprintf(f, "%zu event group%s\n", l->n_groups, l->n_groups == 1 ? "" : "s");
}

int pmlist_show_groups_text(const Listing *l) {
        _cleanup_(text_table_freep) TextTable *t = NULL;
        size_t n_columns = l->details ? 5 : 4;
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
        text_table_add(t, "EVENTS");
        text_table_add(t, "DESCRIPTION");
        for (size_t i = 0; i < l->n_groups; i++) {
                const pm_groups_t *g = l->groups[i];
                char events[EVENTS_TEXT_MAX];

                text_table_add(t, "%d", g->group_id);
                text_table_add(t, "%s", g->short_name ?: "");
                if (l->details)
                        text_table_add(t, "%s", g->long_name ?: "");
                text_table_add(t, "%s", event_group_format_events(l->info, g, events, sizeof(events)));
                text_table_add(t, "%s", g->description ?: "");
        }
        if (!l->no_headings)
                print_header(l, l->out);
        return text_table_print(t, l->out);
}

int pmlist_show_groups_csv(const Listing *l) {
        CsvWriter w;

        csv_writer_init_sep(&w, l->out, l->separator);
        csv_field(&w, "id");
        csv_field(&w, "name");
        csv_field(&w, "events");
        csv_field(&w, "description");
        if (l->details)
                csv_field(&w, "long_name");
        csv_end_row(&w);
        for (size_t i = 0; i < l->n_groups; i++) {
                const pm_groups_t *g = l->groups[i];
                char events[EVENTS_TEXT_MAX];

                csv_fieldf(&w, "%d", g->group_id);
                csv_field(&w, g->short_name);
                csv_field(&w, event_group_format_events(l->info, g, events, sizeof(events)));
                csv_field(&w, g->description);
                if (l->details)
                        csv_field(&w, g->long_name);
                csv_end_row(&w);
        }
        return csv_writer_finish(&w);
}

int pmlist_show_groups_json(const Listing *l) {
        JsonWriter w;

        json_writer_init(&w, l->out);
        json_open_object(&w, NULL);
        json_string(&w, "processor", l->processor);
        json_int(&w, "counters", l->n_counters);
        json_open_array(&w, "groups");
        for (size_t i = 0; i < l->n_groups; i++) {
                const pm_groups_t *g = l->groups[i];

                json_open_object(&w, NULL);
                json_int(&w, "id", g->group_id);
                json_string(&w, "name", g->short_name);
                json_string(&w, "long_name", g->long_name);
                json_string(&w, "description", g->description);
                /* The counters the group uses, each with its event. */
                json_open_array(&w, "events");
                for (int c = 0; c < l->n_counters && c < MAX_COUNTERS; c++) {
                        char id[16];
                        const char *name = event_group_event_name(l->info, g, c, id);

                        if (!name)
                                continue;
                        json_open_object(&w, NULL);
                        json_int(&w, "counter", c);
                        json_int(&w, "id", g->events[c]);
                        if (name == id)
                                json_null(&w, "name");  /* not in the catalog: the id alone */
                        else
                                json_string(&w, "name", name);
                        json_close_object(&w);
                }
                json_close_array(&w);
                json_close_object(&w);
        }
        json_close_array(&w);
        json_close_object(&w);
        return json_writer_finish(&w);
}
