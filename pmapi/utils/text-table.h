/* text-table.h: aligned text columns for the human output of the command-line tools, and counts
 * written with thousands separators. A table is filled cell by cell, row after row, and printed
 * once, when every column's width is known. util-linux's libsmartcols lays it out: widths in
 * display cells (so `naïve→é` lines up), and what a terminal must not get raw (an ESC, a tab or a
 * newline in a thread name, bytes that are not valid in the locale's encoding) written as \x1b. */
#pragma once

#include <stdbool.h>
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
/* This column (a description) is cut for the table to fit width display cells (libsmartcols
 * 2.38 cuts without an ellipsis); width 0 cuts nothing (the default). */
void text_table_truncate(TextTable *t, size_t column, size_t width);
/* -n and --raw as lsblk has them: no header row; cells one space apart, unaligned, with the
 * spaces inside a cell escaped too, so that a script splits each line on blanks. */
void text_table_set_style(TextTable *t, bool no_headings, bool raw);
/* Appends the next cell (the first row is the header). Like a FILE, the table remembers a failure
 * (out of memory) and text_table_print() reports it, so a row is written as plain calls. */
void text_table_add(TextTable *t, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* Two spaces between columns, no trailing blanks; returns 0 or -errno (an earlier add's too). */
int text_table_print(const TextTable *t, FILE *f);

/* s written as the tables write it in a UTF-8 locale, for text that reaches a terminal outside a
 * table (a thread name in pmcount's CSV): each control character, C0 (U+0000..U+001F), DEL and C1
 * (U+0080..U+009F, which a terminal may take for CSI), as \xNN of each of its bytes, and a
 * backslash before an 'x' as \x5c, so that an escape in the name cannot be mistaken for one of
 * ours; everything else as it is, whatever the locale. A new string; NULL when out of memory. */
char *text_escape_controls(const char *s);
/* The length in bytes of the control character at p (1 for C0 and DEL, 2 for C1 in UTF-8), or 0. */
size_t text_control_length(const char *p);

/* "-1,234,567": the thousands separator of the locale's LC_NUMERIC (',' in the C locale, which
 * has none), or no separator after number_format_plain(true) (--no-big-num). Enough room for any
 * long long in any locale. */
#define THOUSANDS_MAX 64
char *format_thousands(long long value, char buf[static THOUSANDS_MAX]);
void number_format_plain(bool plain);
