/* text-table.c: see text-table.h. Widths are counted in bytes: the tools print ASCII (event
 * names, numbers, D-Bus strings that pmapid spells in ASCII). */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "text-table.h"

struct TextTable {
        size_t n_columns;
        bool *right;                    /* [n_columns] */
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
        t->right = calloc(n_columns, sizeof(bool));
        if (!t->right) {
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
        free(t->right);
        free(t);
        return NULL;
}

void text_table_align_right(TextTable *t, size_t column) {
        if (column < t->n_columns)
                t->right[column] = true;
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

int text_table_print(const TextTable *t, FILE *f) {
        _cleanup_free_ size_t *width = NULL;

        if (t->error < 0)
                return t->error;
        width = calloc(t->n_columns, sizeof(size_t));
        if (!width)
                return -ENOMEM;
        for (size_t i = 0; i < t->n_cells; i++) {
                size_t n = strlen(t->cells[i]);
                if (n > width[i % t->n_columns])
                        width[i % t->n_columns] = n;
        }
        for (size_t i = 0; i < t->n_cells; i++) {
                size_t c = i % t->n_columns;
                bool last = c == t->n_columns - 1 || i == t->n_cells - 1;

                if (c > 0)
                        fputs("  ", f);
                if (t->right[c])
                        fprintf(f, "%*s", (int) width[c], t->cells[i]);
                else
                        fprintf(f, "%-*s", last ? 0 : (int) width[c], t->cells[i]);
                if (last)
                        fputc('\n', f);
        }
        if (fflush(f) != 0 || ferror(f))
                return errno > 0 ? -errno : -EIO;
        return 0;
}

char *format_thousands(long long value, char buf[static THOUSANDS_MAX]) {
        char digits[THOUSANDS_MAX];
        unsigned long long v = value < 0 ? 0ULL - (unsigned long long) value : (unsigned long long) value;
        size_t n = 0, o = 0;

        do {
                digits[n++] = (char) ('0' + v % 10);
                v /= 10;
        } while (v > 0);
        if (value < 0)
                buf[o++] = '-';
        while (n > 0) {
                buf[o++] = digits[--n];
                if (n > 0 && n % 3 == 0)
                        buf[o++] = ',';
        }
        buf[o] = '\0';
        return buf;
}
