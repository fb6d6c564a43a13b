/* pmcount-report.h: what the files of pmcount's report share (pmcount-report.c): the values every
 * form prints the same way, and each form's writer (pmcount-report-text.c, pmcount-report-data.c).
 * What the rest of pmcount calls is in pmcount.h. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "pmcount.h"

/* -p/-t: a target counted, no command run. */
bool report_attached(const Report *r);
/* With -r, the mean of the runs (rounded); else the run's. */
long long report_count(const Report *r, int counter);
/* The threads counted: the group's members, less pmcount's own thread when it ran COMMAND. */
int report_n_threads(const Report *r);

/* One value of wait4(2)'s resource usage: in words, as a CSV row and JSON member name, its unit. */
typedef struct Usage {
        const char *label, *json_name, *unit;
        long long value;
} Usage;

#define REPORT_N_USAGE 7
size_t report_usage_list(const Report *r, Usage u[static REPORT_N_USAGE]);

/* Each form; 0 or -errno. */
int report_write_text(const Report *r, FILE *f);
int report_write_csv(Report *r, FILE *f);
int report_write_json(const Report *r, FILE *f);
