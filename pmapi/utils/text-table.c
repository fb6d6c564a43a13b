/* text-table.c: see text-table.h. The cells are kept until text_table_print(), which hands them to
 * a libsmartcols table in one go: the tools fill their tables with plain calls and check once. */
#include <errno.h>
#include <langinfo.h>
#include <libsmartcols.h>
#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "text-table.h"

struct TextTable {
        size_t n_columns;
        int *flags;                     /* [n_columns]: SCOLS_FL_* */
        size_t width;                   /* for the truncated column; 0: no limit */
        bool no_headings, raw;
        char **cells;                   /* row after row */
        size_t n_cells, allocated;
        int error;                      /* the first failed add's -errno */
};

int text_table_new(size_t n_columns, TextTable **ret) {
        TextTable *t;

        if (n_columns == 0)
                return -EINVAL;
        t = calloc(1, sizeof(TextTable));
        if (!t)
                return -ENOMEM;
        t->n_columns = n_columns;
        t->flags = calloc(n_columns, sizeof(int));
        if (!t->flags) {
                free(t);
                return -ENOMEM;
        }
        *ret = t;
        return 0;
}

TextTable *text_table_free(TextTable *t) {
        if (!t)
                return NULL;
        for (size_t i = 0; i < t->n_cells; i++)
                free(t->cells[i]);
        free(t->cells);
        free(t->flags);
        free(t);
        return NULL;
}

void text_table_align_right(TextTable *t, size_t column) {
        if (column < t->n_columns)
                t->flags[column] |= SCOLS_FL_RIGHT;
}

void text_table_truncate(TextTable *t, size_t column, size_t width) {
        if (column < t->n_columns && width > 0) {
                t->flags[column] |= SCOLS_FL_TRUNC;
                t->width = width;
        }
}

void text_table_set_style(TextTable *t, bool no_headings, bool raw) {
        t->no_headings = no_headings;
        t->raw = raw;
}

void text_table_add(TextTable *t, const char *format, ...) {
        char *cell;
        va_list ap;
        int r;

        if (t->error < 0)
                return;         /* a missing cell would shift every later one into the wrong column */
        if (t->n_cells == t->allocated) {
                size_t n = t->allocated ? t->allocated * 2 : 8 * t->n_columns;
                char **l = realloc(t->cells, n * sizeof(char *));
                if (!l) {
                        t->error = -ENOMEM;
                        return;
                }
                t->cells = l;
                t->allocated = n;
        }
        va_start(ap, format);
        r = vasprintf(&cell, format, ap);
        va_end(ap);
        if (r < 0) {
                t->error = -ENOMEM;
                return;
        }
        t->cells[t->n_cells++] = cell;
}

static void unref_table(struct libscols_table **tb) {
        scols_unref_table(*tb);
}

int text_table_print(const TextTable *t, FILE *f) {
        __attribute__((cleanup(unref_table))) struct libscols_table *tb = NULL;
        struct libscols_line *line = NULL;
        int r;

        if (t->error < 0)
                return t->error;
        tb = scols_new_table();
        if (!tb)
                return -ENOMEM;
        /* The first row names the columns; a table may be empty but for it. */
        for (size_t c = 0; c < t->n_columns; c++)
                if (!scols_table_new_column(tb, c < t->n_cells ? t->cells[c] : "", 0, t->flags[c]))
                        return -ENOMEM;
        for (size_t i = t->n_columns; i < t->n_cells; i++) {
                size_t c = i % t->n_columns;

                if (c == 0 && !(line = scols_table_new_line(tb, NULL)))
                        return -ENOMEM;
                r = scols_line_set_data(line, c, t->cells[i]);
                if (r < 0)
                        return r;
        }
        (void) scols_table_set_column_separator(tb, t->raw ? " " : "  ");
        (void) scols_table_enable_noheadings(tb, t->no_headings);
        (void) scols_table_enable_raw(tb, t->raw);
        /* Only a description is ever shortened, and only to the width asked for: a table written
         * to a pipe or a file keeps every cell whole. */
        (void) scols_table_set_termforce(tb, t->width > 0 ? SCOLS_TERMFORCE_ALWAYS : SCOLS_TERMFORCE_NEVER);
        if (t->width > 0)
                (void) scols_table_set_termwidth(tb, t->width);
        (void) scols_table_enable_colors(tb, isatty(fileno(f)));
        (void) scols_table_set_stream(tb, f);
        r = scols_print_table(tb);
        if (r < 0)
                return r;
        if (fflush(f) != 0 || ferror(f))
                return errno > 0 ? -errno : -EIO;
        return 0;
}

size_t text_control_length(const char *p) {
        const unsigned char *u = (const unsigned char *) p;

        if (*u < 0x20 || *u == 0x7f)
                return *u ? 1 : 0;
        return u[0] == 0xc2 && u[1] >= 0x80 && u[1] <= 0x9f ? 2 : 0;
}

char *text_escape_controls(const char *s) {
        char *buf = malloc(4 * strlen(s) + 1), *out = buf;

        if (!buf)
                return NULL;
        for (const char *p = s; *p;) {
                size_t n = text_control_length(p);

                if (n == 0 && p[0] == '\\' && p[1] == 'x')
                        n = 1;
                if (n == 0) {
                        *out++ = *p++;
                        continue;
                }
                for (; n > 0; n--)
                        out += sprintf(out, "\\x%02x", (unsigned char) *p++);
        }
        *out = '\0';
        return buf;
}

static bool plain_numbers;

void number_format_plain(bool plain) {
        plain_numbers = plain;
}

/* The locale's separator; ',' where it has none (the C locale), as the tools always wrote. */
static const char *thousands_separator(void) {
        const char *sep = nl_langinfo(THOUSEP);
        return sep && *sep && strlen(sep) <= 3 ? sep : ",";
}

char *format_thousands(long long value, char buf[static THOUSANDS_MAX]) {
        char digits[32];
        unsigned long long v = value < 0 ? 0ULL - (unsigned long long) value : (unsigned long long) value;
        const char *sep = plain_numbers ? "" : thousands_separator();
        size_t n = 0, o = 0, sep_len = strlen(sep);

        do {
                digits[n++] = (char) ('0' + v % 10);
                v /= 10;
        } while (v > 0);
        if (value < 0)
                buf[o++] = '-';
        while (n > 0) {
                buf[o++] = digits[--n];
                if (n > 0 && n % 3 == 0) {
                        memcpy(buf + o, sep, sep_len);
                        o += sep_len;
                }
        }
        buf[o] = '\0';
        return buf;
}
