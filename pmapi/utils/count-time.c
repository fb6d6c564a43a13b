/* count-time.c: the multiplexing note of pmcount and pmstat, and the times behind it, in text, CSV
 * and JSON (see count-time.h). Pure: it writes only through the writers it is given. */
#include <glib.h>
#include <stdio.h>

#include "count-time.h"

CountTime count_time_from_accu(const pm_accu_time_t *t) {
        return (CountTime) { .enabled_ns = PM_TB_TO_NS(t->accu_purr),
                             .running_ns = PM_TB_TO_NS(t->accu_timebase) };
}

/* A counter that went back (a reset between the reads) counts from zero. */
static unsigned long long since(unsigned long long now, unsigned long long before) {
        return now >= before ? now - before : now;
}

CountTime count_time_since(CountTime now, CountTime before) {
        return (CountTime) { .enabled_ns = since(now.enabled_ns, before.enabled_ns),
                             .running_ns = since(now.running_ns, before.running_ns) };
}

void count_time_add(CountTime *sum, CountTime t) {
        sum->enabled_ns += t.enabled_ns;
        sum->running_ns += t.running_ns;
}

bool count_time_not_counted(CountTime t) {
        return t.enabled_ns > 0 && t.running_ns == 0;
}

/* perf stat's test is running != enabled; running > enabled cannot happen, but would be no note. */
bool count_time_partial(CountTime t) {
        return t.running_ns > 0 && t.running_ns < t.enabled_ns;
}

double count_time_percent(CountTime t) {
        if (t.enabled_ns == 0 || t.running_ns >= t.enabled_ns)
                return 100.0;
        return 100.0 * (double) t.running_ns / (double) t.enabled_ns;
}

const char *count_time_format_count(CountTime t, long long count, char buf[static THOUSANDS_MAX]) {
        if (count_time_not_counted(t)) {
                snprintf(buf, THOUSANDS_MAX, "%s", COUNT_TIME_NOT_COUNTED);
                return buf;
        }
        return format_thousands(count, buf);
}

/* In the locale's decimal point, as perf stat prints it: the text is for people. */
const char *count_time_format_note(CountTime t, char buf[static COUNT_TIME_NOTE_MAX]) {
        buf[0] = '\0';
        if (count_time_partial(t))
                snprintf(buf, COUNT_TIME_NOTE_MAX, "(%.2f%%)", count_time_percent(t));
        return buf;
}

void count_time_csv_header(CsvWriter *w) {
        csv_field(w, "enabled_ns");
        csv_field(w, "running_ns");
        csv_field(w, "percent_running");
}

void count_time_csv_fields(CsvWriter *w, const CountTime *t) {
        char number[G_ASCII_DTOSTR_BUF_SIZE];

        if (!t) {
                for (int i = 0; i < 3; i++)
                        csv_field(w, NULL);
                return;
        }
        csv_fieldf(w, "%llu", t->enabled_ns);
        csv_fieldf(w, "%llu", t->running_ns);
        csv_field(w, g_ascii_formatd(number, sizeof(number), "%.2f", count_time_percent(*t)));
}

/* The percentage the CSV writes, two decimals (as perf stat -j's "pcnt-running"). */
void count_time_json_members(JsonWriter *w, CountTime t) {
        char number[G_ASCII_DTOSTR_BUF_SIZE];

        g_ascii_formatd(number, sizeof(number), "%.2f", count_time_percent(t));
        json_uint(w, "enabled_ns", t.enabled_ns);
        json_uint(w, "running_ns", t.running_ns);
        json_double(w, "percent_running", g_ascii_strtod(number, NULL));
        json_bool(w, "counted", !count_time_not_counted(t));
}
