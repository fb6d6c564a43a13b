/* json-writer.c: see json-writer.h. Writes as it goes, keeping no document in memory; a write
 * error is remembered by the FILE and reported once, by json_writer_finish(). */
#include <assert.h>
#include <errno.h>
#include <stdint.h>

#include "json-writer.h"

/* The length of the well-formed UTF-8 sequence that starts at s (s[0] >= 0x80), or 0 when it is
 * not one: a stray continuation byte, a truncated sequence, an overlong form, a surrogate or a code
 * point above U+10FFFF (RFC 3629 section 4). A NUL byte ends a sequence early, so reading stops at
 * the end of the string. */
static size_t utf8_sequence_length(const unsigned char *s) {
        uint32_t cp;
        size_t n;

        if (s[0] >= 0xc2 && s[0] <= 0xdf)
                n = 2, cp = s[0] & 0x1f;
        else if (s[0] >= 0xe0 && s[0] <= 0xef)
                n = 3, cp = s[0] & 0x0f;
        else if (s[0] >= 0xf0 && s[0] <= 0xf4)
                n = 4, cp = s[0] & 0x07;
        else
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                cp = cp << 6 | (s[i] & 0x3f);
        }
        if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return n;
}

void json_write_escaped(FILE *f, const char *s) {
        const unsigned char *p = (const unsigned char *) s;

        fputc('"', f);
        while (*p) {
                if (*p == '"' || *p == '\\') {
                        fputc('\\', f);
                        fputc(*p++, f);
                } else if (*p < 0x20) {
                        fprintf(f, "\\u%04x", *p++);
                } else if (*p < 0x80) {
                        fputc(*p++, f);
                } else {
                        size_t n = utf8_sequence_length(p);
                        if (n == 0) {
                                fputs("\\ufffd", f);    /* one replacement per bad byte */
                                p++;
                        } else {
                                fwrite(p, 1, n, f);
                                p += n;
                        }
                }
        }
        fputc('"', f);
}

void json_writer_init(JsonWriter *w, FILE *f) {
        *w = (JsonWriter) { .f = f };
}

/* The separator and the key in front of every value. */
static void begin_value(JsonWriter *w, const char *key) {
        if (w->has_items[w->depth])
                fputc(',', w->f);
        w->has_items[w->depth] = true;
        if (key) {
                json_write_escaped(w->f, key);
                fputc(':', w->f);
        }
}

static void open_container(JsonWriter *w, const char *key, char c) {
        begin_value(w, key);
        fputc(c, w->f);
        assert(w->depth < JSON_MAX_DEPTH);      /* the tools' documents are shallow: a bug if not */
        w->has_items[++w->depth] = false;
}

static void close_container(JsonWriter *w, char c) {
        assert(w->depth > 0);
        w->depth--;
        fputc(c, w->f);
}

void json_open_object(JsonWriter *w, const char *key) {
        open_container(w, key, '{');
}

void json_close_object(JsonWriter *w) {
        close_container(w, '}');
}

void json_open_array(JsonWriter *w, const char *key) {
        open_container(w, key, '[');
}

void json_close_array(JsonWriter *w) {
        close_container(w, ']');
}

void json_string(JsonWriter *w, const char *key, const char *value) {
        begin_value(w, key);
        if (value)
                json_write_escaped(w->f, value);
        else
                fputs("null", w->f);
}

void json_int(JsonWriter *w, const char *key, long long value) {
        begin_value(w, key);
        fprintf(w->f, "%lld", value);
}

void json_uint(JsonWriter *w, const char *key, unsigned long long value) {
        begin_value(w, key);
        fprintf(w->f, "%llu", value);
}

void json_bool(JsonWriter *w, const char *key, bool value) {
        begin_value(w, key);
        fputs(value ? "true" : "false", w->f);
}

void json_null(JsonWriter *w, const char *key) {
        begin_value(w, key);
        fputs("null", w->f);
}

int json_writer_finish(JsonWriter *w) {
        assert(w->depth == 0);
        fputc('\n', w->f);
        if (fflush(w->f) != 0 || ferror(w->f))
                return errno > 0 ? -errno : -EIO;
        return 0;
}
