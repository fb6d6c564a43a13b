/* csv-read.h: a small RFC 4180 reader for the tests of the tools' --csv output: fields in double
 * quotes (which may hold commas, line ends and doubled quotes), rows ended by LF or CRLF. A
 * malformed document fails the running cmocka test. */
#pragma once

#include <glib.h>

/* The rows of text, each a NULL-terminated array of its fields, in a NULL-terminated array. */
char ***csv_read(const char *text);
void csv_read_free(char ***rows);
