/* json-writer.h: JSON for the --json output of the command-line tools, built with json-glib: the
 * calls below add values to a JsonBuilder and json_writer_finish() writes the document, compact, on
 * one line. The caller decides the shape. Strings that are not valid UTF-8 (a command's argument)
 * have each bad byte replaced by U+FFFD first, so the output always parses. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

typedef struct JsonWriter {
        FILE *f;
        void *builder;                  /* JsonBuilder */
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
void json_double(JsonWriter *w, const char *key, double value);
void json_bool(JsonWriter *w, const char *key, bool value);
void json_null(JsonWriter *w, const char *key);
/* Writes the document and a newline, flushes, and frees the builder (w can be initialised again
 * for the next line); returns 0 or -errno if anything failed to write. */
int json_writer_finish(JsonWriter *w);

/* s as a quoted, escaped JSON string. */
void json_write_escaped(FILE *f, const char *s);
