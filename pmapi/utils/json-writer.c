/* json-writer.c: see json-writer.h. */
#include <errno.h>
#include <json-glib/json-glib.h>
#include <stdint.h>
#include <string.h>

#include "json-writer.h"

#define BUILDER(w) ((JsonBuilder *) (w)->builder)

void json_writer_init(JsonWriter *w, FILE *f) {
        *w = (JsonWriter) { .f = f, .builder = json_builder_new() };
}

static void key(JsonWriter *w, const char *k) {
        if (k)
                json_builder_set_member_name(BUILDER(w), k);
}

void json_open_object(JsonWriter *w, const char *k) {
        key(w, k);
        json_builder_begin_object(BUILDER(w));
}

void json_close_object(JsonWriter *w) {
        json_builder_end_object(BUILDER(w));
}

void json_open_array(JsonWriter *w, const char *k) {
        key(w, k);
        json_builder_begin_array(BUILDER(w));
}

void json_close_array(JsonWriter *w) {
        json_builder_end_array(BUILDER(w));
}

void json_string(JsonWriter *w, const char *k, const char *value) {
        g_autofree char *valid = NULL;

        key(w, k);
        if (!value) {
                json_builder_add_null_value(BUILDER(w));
                return;
        }
        valid = g_utf8_make_valid(value, -1);
        json_builder_add_string_value(BUILDER(w), valid);
}

void json_int(JsonWriter *w, const char *k, long long value) {
        key(w, k);
        json_builder_add_int_value(BUILDER(w), value);
}

void json_uint(JsonWriter *w, const char *k, unsigned long long value) {
        key(w, k);
        /* JSON readers hold integers as int64 at best; nothing the tools write comes near. */
        json_builder_add_int_value(BUILDER(w), value > INT64_MAX ? INT64_MAX : (gint64) value);
}

void json_double(JsonWriter *w, const char *k, double value) {
        key(w, k);
        json_builder_add_double_value(BUILDER(w), value);
}

void json_bool(JsonWriter *w, const char *k, bool value) {
        key(w, k);
        json_builder_add_boolean_value(BUILDER(w), value);
}

void json_null(JsonWriter *w, const char *k) {
        key(w, k);
        json_builder_add_null_value(BUILDER(w));
}

static void write_node(FILE *f, JsonNode *node) {
        g_autoptr(JsonGenerator) g = json_generator_new();
        g_autofree char *text = NULL;

        json_generator_set_root(g, node);
        text = json_generator_to_data(g, NULL);
        /* json-glib 1.6 writes U+001F raw (its escaper stops at U+001E), which RFC 8259 forbids. The
         * output is compact, so a control byte can only be inside a string. */
        for (const char *p = text; *p; ) {
                size_t n = strcspn(p, "\x1f");

                fwrite(p, 1, n, f);
                p += n;
                if (*p) {
                        fputs("\\u001f", f);
                        p++;
                }
        }
}

int json_writer_finish(JsonWriter *w) {
        g_autoptr(JsonNode) root = json_builder_get_root(BUILDER(w));

        g_clear_object((JsonBuilder **) &w->builder);
        if (root) {
                write_node(w->f, root);
                fputc('\n', w->f);
        }
        if (fflush(w->f) != 0 || ferror(w->f))
                return errno > 0 ? -errno : -EIO;
        return root ? 0 : -EINVAL;
}

void json_write_escaped(FILE *f, const char *s) {
        g_autoptr(JsonNode) node = json_node_new(JSON_NODE_VALUE);
        g_autofree char *valid = g_utf8_make_valid(s, -1);

        json_node_set_string(node, valid);
        write_node(f, node);
}
