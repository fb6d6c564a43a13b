/* count-time.h: how long a count was counted, as pmcount and pmstat show it. A read through
 * pm_get_Tdata*(3) says how long the counters were enabled and how long they were on the PMU; a
 * hardware group that shared the PMU with others ran for part of that time, and pmapid has already
 * scaled its counts to the whole of it (perf stat's estimate). The tools say so as perf stat does:
 * "(49.97%)" of the enabled time after a count that ran less than all of it, "<not counted>" for
 * one that never ran, and nothing for a count that ran all the time or was never enabled (it had
 * nothing to miss: perf's 100 %). CSV and JSON get the times themselves. The same rule for every
 * form and both tools lives here, tested with made-up times by tests/unit/test-count-time.c. */
#pragma once

#include <stdbool.h>

#include "csv-writer.h"
#include "json-writer.h"
#include "pmapi.h"
#include "text-table.h"

typedef struct CountTime {
        unsigned long long enabled_ns;  /* perf's time enabled: pm_accu_time_t's accu_purr */
        unsigned long long running_ns;  /* perf's time running, on the PMU: accu_timebase */
} CountTime;

#define COUNT_TIME_NOT_COUNTED "<not counted>"
#define COUNT_TIME_NOTE_MAX 16          /* "(100.00%)" and the NUL, with room to spare */

CountTime count_time_from_accu(const pm_accu_time_t *t);
/* What the later of two reads of the same counters adds to the earlier one. */
CountTime count_time_since(CountTime now, CountTime before);
void count_time_add(CountTime *sum, CountTime t);

/* Enabled but never on the PMU: its count, 0, says nothing. */
bool count_time_not_counted(CountTime t);
/* On the PMU for part of its enabled time: the count is pmapid's estimate. */
bool count_time_partial(CountTime t);
/* 100 * running / enabled; 100 when never enabled or never off the PMU. */
double count_time_percent(CountTime t);

/* Text: count with the locale's thousands separators, or "<not counted>". */
const char *count_time_format_count(CountTime t, long long count, char buf[static THOUSANDS_MAX]);
/* Text: "(49.97%)" for a partial count, "" otherwise. */
const char *count_time_format_note(CountTime t, char buf[static COUNT_TIME_NOTE_MAX]);

/* CSV: the header's columns enabled_ns, running_ns and percent_running (a plain number with two
 * decimals, whatever the locale), then a row's three fields, or three empty ones where t is NULL
 * (a row that holds no count, or a per-thread row, which carries no times). */
void count_time_csv_header(CsvWriter *w);
void count_time_csv_fields(CsvWriter *w, const CountTime *t);
/* JSON: the members enabled_ns, running_ns, percent_running and counted (false for
 * "<not counted>") in the open object. */
void count_time_json_members(JsonWriter *w, CountTime t);
