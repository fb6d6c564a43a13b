/* text-table.h: aligned text columns for the human output of the command-line tools, and counts
 * written with thousands separators. A table is filled cell by cell, row after row, and printed
 * once, when every column's width is known. */
#pragma once

#include <stddef.h>
#include <stdio.h>

typedef struct TextTable TextTable;

int text_table_new(size_t n_columns, TextTable **ret);
TextTable *text_table_free(TextTable *t);
static inline void text_table_freep(TextTable **t) {
        text_table_free(*t);
}
/* Numbers read better right-aligned; columns are left-aligned otherwise. */
void text_table_align_right(TextTable *t, size_t column);
/* Appends the next cell (the first row is the header). Like a FILE, the table remembers a failure
 * (out of memory) and text_table_print() reports it, so a row is written as plain calls. */
void text_table_add(TextTable *t, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* Two spaces between columns, no trailing blanks; returns 0 or -errno (an earlier add's too). */
int text_table_print(const TextTable *t, FILE *f);

/* "-1,234,567": enough room for any long long. */
#define THOUSANDS_MAX 32
char *format_thousands(long long value, char buf[static THOUSANDS_MAX]);
