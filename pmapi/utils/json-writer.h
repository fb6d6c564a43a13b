/* json-writer.h: compact JSON written straight to a FILE, for the --json output of pmctl and the
 * other command-line tools. It keeps only the commas and the nesting; the caller decides the shape.
 * Strings are escaped as RFC 8259 asks (quote, backslash, every control character as \u00XX) and
 * bytes that are not valid UTF-8 become U+FFFD, so the output always parses. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

typedef struct JsonWriter {
        FILE *f;
        unsigned depth;
        bool has_items[JSON_MAX_DEPTH + 1];     /* a value was written at this depth: next needs a comma */
} JsonWriter;

void json_writer_init(JsonWriter *w, FILE *f);
/* Every value takes a key: the member name inside an object, NULL inside an array and at the top. */
void json_open_object(JsonWriter *w, const char *key);
void json_close_object(JsonWriter *w);
void json_open_array(JsonWriter *w, const char *key);
void json_close_array(JsonWriter *w);
void json_string(JsonWriter *w, const char *key, const char *value);    /* NULL writes null */
void json_int(JsonWriter *w, const char *key, long long value);
void json_uint(JsonWriter *w, const char *key, unsigned long long value);
void json_bool(JsonWriter *w, const char *key, bool value);
void json_null(JsonWriter *w, const char *key);
/* Ends the document with a newline and flushes; returns 0 or -errno if anything failed to write. */
int json_writer_finish(JsonWriter *w);

/* s as a quoted, escaped JSON string. */
void json_write_escaped(FILE *f, const char *s);
