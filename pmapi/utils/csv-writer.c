/* csv-writer.c: see csv-writer.h. Writes as it goes; a write error is remembered by the FILE and
 * reported once, by csv_writer_finish(). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "csv-writer.h"

void csv_write_field_sep(FILE *f, const char *s, const char *sep) {
        if (!s)
                return;
        if (!strpbrk(s, "\"\r\n") && !strstr(s, sep)) {
                fputs(s, f);
                return;
        }
        fputc('"', f);
        for (const char *p = s; *p; p++) {
                if (*p == '"')
                        fputc('"', f);
                fputc(*p, f);
        }
        fputc('"', f);
}

void csv_write_field(FILE *f, const char *s) {
        csv_write_field_sep(f, s, ",");
}

void csv_writer_init(CsvWriter *w, FILE *f) {
        csv_writer_init_sep(w, f, ",");
}

void csv_writer_init_sep(CsvWriter *w, FILE *f, const char *sep) {
        *w = (CsvWriter) { .f = f, .sep = sep };
}

void csv_field(CsvWriter *w, const char *value) {
        if (w->in_row)
                fputs(w->sep, w->f);
        w->in_row = true;
        csv_write_field_sep(w->f, value, w->sep);
}

void csv_fieldf(CsvWriter *w, const char *format, ...) {
        char *value;
        va_list ap;
        int r;

        va_start(ap, format);
        r = vasprintf(&value, format, ap);
        va_end(ap);
        if (r < 0) {
                /* Still a field, so that the later ones stay in their columns until finish fails. */
                w->error = -ENOMEM;
                csv_field(w, NULL);
                return;
        }
        csv_field(w, value);
        free(value);
}

void csv_end_row(CsvWriter *w) {
        fputc('\n', w->f);
        w->in_row = false;
}

int csv_writer_finish(CsvWriter *w) {
        if (fflush(w->f) != 0 || ferror(w->f))
                return errno > 0 ? -errno : -EIO;
        return w->error;
}
