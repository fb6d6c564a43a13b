/* pmlist-expect.c: see pmlist-expect.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "pmlist-expect.h"

static int compare_expected(const void *a, const void *b) {
        const Expected *x = a, *y = b;
        return (x->e->event_id > y->e->event_id) - (x->e->event_id < y->e->event_id);
}

ExpectedList expected_events(const pm_info_t *in) {
        ExpectedList l = {};
        size_t total = 0;

        assert_true(in->maxpmcs > 0 && in->maxpmcs <= 32);
        for (int c = 0; c < in->maxpmcs; c++)
                total += in->maxevents[c];
        l.events = calloc(total + 1, sizeof(Expected));
        assert_non_null(l.events);
        for (int c = 0; c < in->maxpmcs; c++)
                for (int i = 0; i < in->maxevents[c]; i++) {
                        const pm_events_t *e = &in->list_events[c][i];
                        size_t j;

                        for (j = 0; j < l.n && l.events[j].e->event_id != e->event_id; j++)
                                ;
                        if (j == l.n)
                                l.events[l.n++] = (Expected) { .e = e };
                        l.events[j].counters |= 1u << c;
                }
        qsort(l.events, l.n, sizeof(Expected), compare_expected);
        return l;
}

const Expected *find_expected(const ExpectedList *l, const char *short_name) {
        for (size_t i = 0; i < l->n; i++)
                if (strcmp(l->events[i].e->short_name, short_name) == 0)
                        return &l->events[i];
        return NULL;
}

const char *status_word(int status) {
        return status == PM_VERIFIED ? "verified" : status == PM_CAVEAT ? "caveat"
             : status == PM_UNVERIFIED ? "unverified" : "?";
}

void counters_text(unsigned mask, char *buf, size_t size) {
        size_t o = 0;

        buf[0] = '\0';
        for (int c = 0; c < 32; c++) {
                int end = c;
                if (!(mask & 1u << c))
                        continue;
                while (end < 31 && mask & 1u << (end + 1))
                        end++;
                o += snprintf(buf + o, size - o, "%s%d", o ? "," : "", c);
                if (end > c)
                        o += snprintf(buf + o, size - o, "-%d", end);
                c = end;
        }
}

static void assert_csv_row(char **row, const char *const *expected, size_t n) {
        assert_int_equal(g_strv_length(row), n);
        for (size_t i = 0; i < n; i++)
                assert_string_equal(row[i], expected[i]);
}

void assert_csv_lists(const CsvTable *t, const ExpectedList *l, bool details) {
        static const char *const header[] = { "id", "name", "status", "description", "long_name", "counters" };
        size_t n_fields = details ? 6 : 4;

        assert_true(t->n_rows >= 1);
        assert_csv_row(t->rows[0], header, n_fields);
        assert_int_equal(t->n_rows - 1, l->n);
        for (size_t i = 0; i < l->n; i++) {
                const pm_events_t *e = l->events[i].e;
                char id[16], counters[128];
                const char *fields[] = { id, e->short_name, status_word(e->status), e->description,
                                         e->long_name, counters };

                snprintf(id, sizeof(id), "%d", e->event_id);
                counters_text(l->events[i].counters, counters, sizeof(counters));
                assert_csv_row(t->rows[i + 1], fields, n_fields);
        }
}

void assert_json_lists(const char *text, const ExpectedList *l, const pm_info_t *in) {
        g_autoptr(JsonParser) parser = json_parser_new();
        g_autoptr(GError) error = NULL;
        JsonObject *doc;
        JsonArray *events;

        if (!json_parser_load_from_data(parser, text, -1, &error))
                fail_msg("pmlist printed no valid JSON (%s): %s", error->message, text);
        doc = json_node_get_object(json_parser_get_root(parser));
        assert_non_null(doc);
        assert_string_equal(json_object_get_string_member(doc, "processor"), in->proc_name);
        assert_int_equal(json_object_get_int_member(doc, "counters"), in->maxpmcs);
        events = json_object_get_array_member(doc, "events");
        assert_non_null(events);
        assert_int_equal(json_array_get_length(events), l->n);
        for (size_t i = 0; i < l->n; i++) {
                JsonObject *o = json_array_get_object_element(events, i);
                const pm_events_t *e = l->events[i].e;
                JsonArray *counters = json_object_get_array_member(o, "counters");
                unsigned mask = 0;

                assert_int_equal(json_object_get_int_member(o, "id"), e->event_id);
                assert_string_equal(json_object_get_string_member(o, "name"), e->short_name);
                assert_string_equal(json_object_get_string_member(o, "long_name"), e->long_name);
                assert_string_equal(json_object_get_string_member(o, "status"), status_word(e->status));
                assert_string_equal(json_object_get_string_member(o, "description"), e->description);
                assert_non_null(counters);
                for (guint c = 0; c < json_array_get_length(counters); c++) {
                        gint64 v = json_array_get_int_element(counters, c);
                        assert_in_range(v, 0, in->maxpmcs - 1);
                        assert_false(mask & 1u << v);           /* each counter once */
                        mask |= 1u << v;
                }
                assert_int_equal(mask, l->events[i].counters);
        }
}

bool parse_text_row(const char *line, TextRow *ret) {
        int n_read = 0;

        if (sscanf(line, " %d %255s %31s%n", &ret->id, ret->name, ret->status, &n_read) != 3 || n_read == 0)
                return false;
        ret->description = line + n_read;
        while (*ret->description == ' ')
                ret->description++;
        ret->description_length = strcspn(ret->description, "\n");
        return true;
}

size_t text_rows(const char *out, TextRow *rows, size_t max) {
        const char *line = strchr(out, '\n');
        size_t n = 0;

        assert_non_null(line);
        line = strchr(line + 1, '\n');          /* the column titles */
        assert_non_null(line);
        for (line++; *line; line = strchr(line, '\n') + 1) {
                assert_true(n < max);
                assert_true(parse_text_row(line, &rows[n]));
                n++;
        }
        return n;
}
