/* pmlist-expect.h: what pmlist must list, from pm_init itself: each event once with the counters
 * that take it, and the checks of pmlist's CSV, JSON and text forms against that list (the tests
 * test-pmlist.c and test-pmlist-output.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "csv-read.h"
#include "pmapi.h"
#include "tool-run.h"

#define ALL_STATUSES (PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT)
#define PMLIST getenv("PMAPI_PMLIST")
#define run_pmlist(run, ...) tool_runf(run, 0, NULL, PMLIST, __VA_ARGS__)
#define pmlist_ok(run, ...) tool_runf_ok(run, PMLIST, __VA_ARGS__)

/* From pm_init itself: each event once, with a mask of the counters whose list has it, by
 * increasing id. Written apart from pmlist's own merge, as plainly as possible. */
typedef struct Expected {
        const pm_events_t *e;
        unsigned counters;
} Expected;

typedef struct ExpectedList {
        Expected *events;               /* free() it */
        size_t n;
} ExpectedList;

ExpectedList expected_events(const pm_info_t *in);
const Expected *find_expected(const ExpectedList *l, const char *short_name);
const char *status_word(int status);
/* "0-7" or "0,2,4-5" for a counter mask. */
void counters_text(unsigned mask, char *buf, size_t size);

/* A CSV document as RFC 4180 reads it: csv-read.c's rows, with their number. */
typedef struct CsvTable {
        char ***rows;
        size_t n_rows;
} CsvTable;

/* Inline: csv-read.c is built only into the tests that read CSV. */
static inline CsvTable csv_parse(const char *s) {
        CsvTable t = { .rows = csv_read(s) };

        while (t.rows[t.n_rows])
                t.n_rows++;
        return t;
}

static inline void csv_free(CsvTable *t) {
        csv_read_free(t->rows);
        *t = (CsvTable) {};
}

/* The CSV rows (header excluded) must be exactly the expected events, in order; details: with
 * the long names and counters (-d). */
void assert_csv_lists(const CsvTable *t, const ExpectedList *l, bool details);
/* The JSON document must describe exactly the expected events of in's catalog. */
void assert_json_lists(const char *text, const ExpectedList *l, const pm_info_t *in);

/* A row of the text table: "ID  NAME  STATUS  DESCRIPTION" with columns two or more spaces apart. */
typedef struct TextRow {
        int id;
        char name[256], status[32];
        const char *description;        /* the rest of the line, into the output */
        size_t description_length;
} TextRow;

bool parse_text_row(const char *line, TextRow *ret);
/* The table's rows, after the header line and the column titles; fails on a malformed line. */
size_t text_rows(const char *out, TextRow *rows, size_t max);
