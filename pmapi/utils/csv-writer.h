/* csv-writer.h: CSV written straight to a FILE, for the --csv output of pmlist, pmcount and pmstat.
 * Fields are quoted as RFC 4180 asks: a field that holds a comma, a double quote, a CR or a LF is
 * put in double quotes, and each double quote in it is doubled; other fields are written as they
 * are. Rows end with a LF alone (not RFC 4180's CRLF), as Unix tools expect; every RFC 4180 reader
 * we know of takes both. The first row is the header, written like any other. Usage:
 *
 *         CsvWriter w;
 *         csv_writer_init(&w, stdout);
 *         csv_field(&w, "id"); csv_field(&w, "name"); csv_end_row(&w);
 *         csv_fieldf(&w, "%d", 2); csv_field(&w, "PM_PAGE_FLT"); csv_end_row(&w);
 *         r = csv_writer_finish(&w);
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

typedef struct CsvWriter {
        FILE *f;
        const char *sep;                /* "," unless -x SEP chose another */
        bool in_row;                    /* a field was written in this row: the next needs a comma */
        int error;                      /* a csv_fieldf that ran out of memory: -ENOMEM */
} CsvWriter;

void csv_writer_init(CsvWriter *w, FILE *f);
/* perf stat's -x SEP: fields separated by sep (a non-empty string, not a quote, CR or LF), quoted
 * when they hold it. */
void csv_writer_init_sep(CsvWriter *w, FILE *f, const char *sep);
/* Appends a field to the current row; NULL writes an empty field. */
void csv_field(CsvWriter *w, const char *value);
void csv_fieldf(CsvWriter *w, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* Ends the current row (a row without fields becomes an empty line). */
void csv_end_row(CsvWriter *w);
/* Flushes; returns 0 or -errno if anything failed to write (or a csv_fieldf ran out of memory). */
int csv_writer_finish(CsvWriter *w);

/* s as one CSV field, quoted only where RFC 4180 needs it (or where it holds sep). */
void csv_write_field(FILE *f, const char *s);
void csv_write_field_sep(FILE *f, const char *s, const char *sep);
