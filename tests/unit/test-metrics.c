/* test-metrics.c: the derived metrics of pmcount -m and pmstat -m (metrics.c) on made-up counts,
 * with pmapid's own table (daemon/core/events/metrics.c) copied as GetMetrics sends it: a metric comes
 * out only when its numerator and its denominator event were both counted (an elapsed-time metric
 * only needs its numerator), in the table's order, with the value numerator / denominator * scale
 * or numerator / elapsed seconds * scale; a zero denominator, a zero elapsed time or a count that
 * was never on the PMU makes it not computable ("-", an empty CSV field, JSON null), never a
 * division by zero. */
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-glib/json-glib.h>

#include "metrics.h"

/* As pmapid's GetMetrics lists them where every event exists: "" is the elapsed time. */
static const struct {
        const char *name, *numerator, *denominator, *unit;
        double scale;
} table[] = {
        { "cpu_utilization", "PM_TASK_CLOCK", "", "CPUs utilized", 1e-9 },
        { "page_faults_per_s", "PM_PAGE_FLT", "", "faults/s", 1 },
        { "context_switches_per_s", "PM_CTX_SW", "", "switches/s", 1 },
        { "migrations_per_s", "PM_CPU_MIGR", "", "migrations/s", 1 },
        { "ipc", "PM_INST_CMPL", "PM_CYC", "insn per cycle", 1 },
        { "cpi", "PM_CYC", "PM_INST_CMPL", "cycles per insn", 1 },
        { "ghz", "PM_CYC", "PM_TASK_CLOCK", "GHz", 1 },
        { "branch_miss_ratio", "PM_BR_MPRED", "PM_BR_CMPL", "%", 100 },
};

static MetricList *list;

static int setup(void **state) {
        (void) state;
        if (metric_list_new(&list) < 0)
                return -1;
        for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
                if (metric_list_add(list, table[i].name, "a description", table[i].numerator, table[i].denominator,
                                    table[i].unit, table[i].scale) < 0)
                        return -1;
        return 0;
}

static int teardown(void **state) {
        (void) state;
        list = metric_list_free(list);
        return 0;
}

#define COUNTED(name, count) { name, count, true }

/* The names of the metrics computed, space-separated, in order. */
static const char *names(const MetricValue *v, size_t n) {
        static char buf[512];

        buf[0] = '\0';
        for (size_t i = 0; i < n; i++)
                snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? " " : "", v[i].metric->name);
        return buf;
}

static void test_copies_what_it_is_given(void **state) {
        (void) state;
        assert_int_equal(list->n_metrics, 8);
        assert_string_equal(list->metrics[4].name, "ipc");
        assert_string_equal(list->metrics[4].numerator, "PM_INST_CMPL");
        assert_string_equal(list->metrics[4].denominator, "PM_CYC");
        assert_string_equal(list->metrics[0].denominator, "");
        assert_true(list->metrics[0].scale == 1e-9);
        assert_true(table[0].name != list->metrics[0].name);
}

/* pmcount -e PM_TASK_CLOCK,PM_PAGE_FLT: the two elapsed-time metrics of those events, nothing else. */
static void test_shown_only_when_its_events_are_counted(void **state) {
        MetricCount counts[] = { COUNTED("PM_TASK_CLOCK", 900000000), COUNTED("PM_PAGE_FLT", 3000) };
        MetricCount faults_only[] = { COUNTED("PM_PAGE_FLT", 3000) };
        /* Each ratio lacks one of its events: the numerator's, then the denominator's. */
        MetricCount half_ratios[] = { COUNTED("PM_CYC", 1000), COUNTED("PM_BR_CMPL", 10) };
        MetricCount ratios[] = { COUNTED("PM_INST_CMPL", 3000), COUNTED("PM_CYC", 1200) };
        MetricCount none[] = { COUNTED("PM_MINOR_FLT", 3000), COUNTED("12", 5) };
        MetricValue v[METRICS_MAX];

        (void) state;
        assert_int_equal(metric_list_compute(list, counts, 2, 1.0, v, METRICS_MAX), 2);
        assert_string_equal(names(v, 2), "cpu_utilization page_faults_per_s");
        assert_int_equal(metric_list_compute(list, faults_only, 1, 1.0, v, METRICS_MAX), 1);
        assert_string_equal(names(v, 1), "page_faults_per_s");
        assert_int_equal(metric_list_compute(list, half_ratios, 2, 1.0, v, METRICS_MAX), 0);
        /* Both ipc and cpi, in the table's order whatever the counters' order. */
        assert_int_equal(metric_list_compute(list, ratios, 2, 1.0, v, METRICS_MAX), 2);
        assert_string_equal(names(v, 2), "ipc cpi");
        assert_int_equal(metric_list_compute(list, none, 2, 1.0, v, METRICS_MAX), 0);
        /* Names are matched exactly, as pmapid and pm_init spell them. */
        none[0].name = "pm_page_flt";
        assert_int_equal(metric_list_compute(list, none, 1, 1.0, v, METRICS_MAX), 0);
        assert_true(metric_applies(&list->metrics[1], counts, 2));
        assert_false(metric_applies(&list->metrics[0], faults_only, 1));
        /* No list (pmapid not asked): nothing. */
        assert_int_equal(metric_list_compute(NULL, counts, 2, 1.0, v, METRICS_MAX), 0);
}

static void test_values_are_the_formula(void **state) {
        MetricCount counts[] = {
                COUNTED("PM_TASK_CLOCK", 1500000000), COUNTED("PM_PAGE_FLT", 3000), COUNTED("PM_CYC", 3000000000),
                COUNTED("PM_INST_CMPL", 7500000000), COUNTED("PM_BR_MPRED", 25), COUNTED("PM_BR_CMPL", 1000),
        };
        MetricValue v[METRICS_MAX];
        size_t n;

        (void) state;
        n = metric_list_compute(list, counts, 6, 2.0, v, METRICS_MAX);
        assert_int_equal(n, 6);
        assert_string_equal(names(v, n), "cpu_utilization page_faults_per_s ipc cpi ghz branch_miss_ratio");
        for (size_t i = 0; i < n; i++)
                assert_true(v[i].computable);
        /* 1.5 s on a CPU in 2 s: 0.75 CPUs (1e-9 is not a binary fraction: to the last bit or so). */
        assert_true(v[0].value == 1500000000.0 / 2.0 * 1e-9);
        assert_true(fabs(v[0].value - 0.75) < 1e-15);
        assert_true(v[1].value == 1500.0);                     /* 3000 faults in 2 s */
        assert_true(v[2].value == 2.5);                        /* 7.5e9 instructions / 3e9 cycles */
        assert_true(v[3].value == 0.4);                        /* and back */
        assert_true(v[4].value == 2.0);                        /* 3e9 cycles / 1.5e9 ns */
        assert_true(v[5].value == 25.0 / 1000.0 * 100);        /* 2.5 %, as the formula rounds it */
        assert_true(fabs(v[5].value - 2.5) < 1e-14);
        /* The elapsed time changes only the elapsed-time metrics. */
        n = metric_list_compute(list, counts, 6, 0.5, v, METRICS_MAX);
        assert_true(v[1].value == 6000.0);
        assert_true(v[2].value == 2.5);
}

static void test_zero_denominator_is_not_computable(void **state) {
        MetricCount counts[] = { COUNTED("PM_PAGE_FLT", 10), COUNTED("PM_CYC", 0), COUNTED("PM_INST_CMPL", 40) };
        MetricCount zeros[] = { COUNTED("PM_CYC", 0), COUNTED("PM_INST_CMPL", 0) };
        MetricValue v[METRICS_MAX];

        (void) state;
        assert_int_equal(metric_list_compute(list, counts, 3, 1.0, v, METRICS_MAX), 3);
        assert_string_equal(names(v, 3), "page_faults_per_s ipc cpi");
        assert_true(v[0].computable && v[0].value == 10.0);
        assert_false(v[1].computable);                         /* 40 / 0 cycles */
        assert_true(v[2].computable && v[2].value == 0.0);     /* 0 / 40: a zero, not a hole */
        assert_int_equal(metric_list_compute(list, zeros, 2, 1.0, v, METRICS_MAX), 2);
        assert_false(v[0].computable);
        assert_false(v[1].computable);
        /* No elapsed time (a count that took no time at all): no rate. */
        assert_int_equal(metric_list_compute(list, counts, 3, 0.0, v, METRICS_MAX), 3);
        assert_false(v[0].computable);
        assert_false(v[1].computable);
        assert_true(v[2].computable);
}

/* "<not counted>": the 0 says nothing, so neither does a metric of it. */
static void test_a_count_never_on_the_pmu_is_not_computable(void **state) {
        MetricCount counts[] = { { "PM_CYC", 0, false }, COUNTED("PM_INST_CMPL", 40), { "PM_PAGE_FLT", 0, false } };
        MetricValue v[METRICS_MAX];

        (void) state;
        assert_int_equal(metric_list_compute(list, counts, 3, 1.0, v, METRICS_MAX), 3);
        assert_string_equal(names(v, 3), "page_faults_per_s ipc cpi");
        for (int i = 0; i < 3; i++)
                assert_false(v[i].computable);
}

/* The count is every metric that applies; ret holds the first max. */
static void test_max_bounds_what_is_written(void **state) {
        MetricCount counts[] = { COUNTED("PM_TASK_CLOCK", 10), COUNTED("PM_PAGE_FLT", 20), COUNTED("PM_CTX_SW", 30) };
        MetricValue v[2] = {}, sentinel = { .value = -1 };

        (void) state;
        v[1] = sentinel;
        assert_int_equal(metric_list_compute(list, counts, 3, 1.0, v, 1), 3);
        assert_string_equal(v[0].metric->name, "cpu_utilization");
        assert_true(v[1].value == -1 && !v[1].metric);
}

static void test_text_csv_and_json_forms(void **state) {
        MetricCount counts[] = { COUNTED("PM_PAGE_FLT", 1), COUNTED("PM_CYC", 0), COUNTED("PM_INST_CMPL", 3) };
        g_autoptr(JsonParser) parser = json_parser_new();
        char buf[METRIC_VALUE_TEXT_MAX], *text = NULL;
        MetricValue v[METRICS_MAX];
        JsonArray *metrics;
        JsonObject *m;
        size_t size;
        JsonWriter w;
        FILE *f;

        (void) state;
        assert_int_equal(metric_list_compute(list, counts, 3, 3.0, v, METRICS_MAX), 3);
        assert_string_equal(metric_format_value(&v[0], buf), "0.33");
        assert_string_equal(metric_format_value(&v[1], buf), "-");
        assert_string_equal(metric_format_plain(&v[1], buf), "");
        assert_true(strtod(metric_format_plain(&v[0], buf), NULL) == 1.0 / 3.0);   /* reads back whole */
        assert_string_equal(metric_format_plain(&v[2], buf), "0");

        f = open_memstream(&text, &size);
        assert_non_null(f);
        metric_values_text(f, v, 3, 6);
        assert_int_equal(fclose(f), 0);
        assert_string_equal(text, "  0.33  faults/s         page_faults_per_s\n"
                                  "     -  insn per cycle   ipc\n"
                                  "  0.00  cycles per insn  cpi\n");
        free(text);

        f = open_memstream(&text, &size);
        assert_non_null(f);
        json_writer_init(&w, f);
        json_open_object(&w, NULL);
        metric_values_json(&w, v, 3);
        json_close_object(&w);
        assert_int_equal(json_writer_finish(&w), 0);
        assert_int_equal(fclose(f), 0);
        assert_true(json_parser_load_from_data(parser, text, -1, NULL));
        free(text);
        metrics = json_object_get_array_member(json_node_get_object(json_parser_get_root(parser)), "metrics");
        assert_int_equal(json_array_get_length(metrics), 3);
        m = json_array_get_object_element(metrics, 0);
        assert_string_equal(json_object_get_string_member(m, "name"), "page_faults_per_s");
        assert_true(json_object_get_double_member(m, "value") == 1.0 / 3.0);
        assert_string_equal(json_object_get_string_member(m, "unit"), "faults/s");
        assert_string_equal(json_object_get_string_member(m, "description"), "a description");
        m = json_array_get_object_element(metrics, 1);
        assert_string_equal(json_object_get_string_member(m, "name"), "ipc");
        assert_true(json_object_get_null_member(m, "value"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_copies_what_it_is_given),
                cmocka_unit_test(test_shown_only_when_its_events_are_counted),
                cmocka_unit_test(test_values_are_the_formula),
                cmocka_unit_test(test_zero_denominator_is_not_computable),
                cmocka_unit_test(test_a_count_never_on_the_pmu_is_not_computable),
                cmocka_unit_test(test_max_bounds_what_is_written),
                cmocka_unit_test(test_text_csv_and_json_forms),
        };

        setlocale(LC_ALL, "C");
        return cmocka_run_group_tests(tests, setup, teardown);
}
