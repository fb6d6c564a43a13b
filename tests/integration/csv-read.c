/* csv-read.c: see csv-read.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <cmocka.h>

#include "csv-read.h"

char ***csv_read(const char *text) {
        GPtrArray *rows = g_ptr_array_new(), *row = g_ptr_array_new();
        GString *field = g_string_new(NULL);
        bool quoted = false, any = false;

        for (const char *p = text; *p; p++) {
                if (quoted) {
                        if (*p == '"' && p[1] == '"')
                                g_string_append_c(field, *p++);
                        else if (*p == '"')
                                quoted = false;
                        else
                                g_string_append_c(field, *p);
                } else if (*p == '"') {
                        if (field->len != 0)
                                fail_msg("CSV: a quote inside an unquoted field: %s", p);
                        quoted = any = true;
                } else if (*p == ',') {
                        g_ptr_array_add(row, g_string_free(field, FALSE));
                        field = g_string_new(NULL);
                        any = true;
                } else if (*p == '\n' || (*p == '\r' && p[1] == '\n')) {
                        p += *p == '\r';
                        g_ptr_array_add(row, g_string_free(field, FALSE));
                        g_ptr_array_add(row, NULL);
                        g_ptr_array_add(rows, g_ptr_array_free(row, FALSE));
                        row = g_ptr_array_new();
                        field = g_string_new(NULL);
                        any = false;
                } else {
                        g_string_append_c(field, *p);
                        any = true;
                }
        }
        if (quoted)
                fail_msg("CSV: an unterminated quoted field");
        if (any || field->len)
                fail_msg("CSV: the last row has no line end");
        g_string_free(field, TRUE);
        g_ptr_array_free(row, TRUE);
        g_ptr_array_add(rows, NULL);
        return (char ***) g_ptr_array_free(rows, FALSE);
}

void csv_read_free(char ***rows) {
        for (char ***r = rows; *r; r++)
                g_strfreev(*r);
        g_free(rows);
}
