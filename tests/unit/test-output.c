/* test-output.c: how the tools' shared output helpers treat what a workload chooses (thread names,
 * arguments) and the user's locale, without pmapid: the text table (libsmartcols) escapes control
 * characters and bytes that are not valid in the locale's encoding and aligns by display width;
 * the JSON writer (json-glib) always writes a document that parses, with every valid string whole;
 * CSV with another separator quotes what holds it, and writes a thread name as the table does;
 * counts take the locale's thousands separator or
 * none (--no-big-num). */
#include <errno.h>
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-glib/json-glib.h>

#include "csv-read.h"
#include "csv-writer.h"
#include "json-writer.h"
#include "text-table.h"

/* Thread names as a hostile workload sets them (the kernel keeps 15 bytes of each). */
static const char *const hostile[] = {
        "\x1b[31mred",                  /* an ANSI colour: must not reach a terminal raw */
        "tab\there",
        "new\nline",
        "quote\"comma,",
        "unit\x1fsep",                 /* json-glib 1.6 alone would write 0x1f raw */
        "na\xc3\xafve\xe2\x86\x92\xc3\xa9",     /* naïve→é: 7 display cells in 11 bytes */
        "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3",     /* é×7 and a cut byte */
};

static char *print_table(const char *const *names, size_t n) {
        TextTable *t = NULL;
        size_t size;
        char *out;
        FILE *f = open_memstream(&out, &size);

        assert_non_null(f);
        assert_int_equal(text_table_new(2, &t), 0);
        text_table_align_right(t, 1);
        text_table_add(t, "COMM");
        text_table_add(t, "COUNT");
        for (size_t i = 0; i < n; i++) {
                text_table_add(t, "%s", names[i]);
                text_table_add(t, "%zu", i);
        }
        assert_int_equal(text_table_print(t, f), 0);
        text_table_free(t);
        assert_int_equal(fclose(f), 0);
        return out;
}

static void test_text_table_escapes_and_aligns_by_display_width(void **state) {
        size_t n = sizeof(hostile) / sizeof(hostile[0]);
        g_autofree char *out = NULL;
        g_auto(GStrv) lines = NULL;
        long width = -1;

        (void) state;
        assert_non_null(setlocale(LC_ALL, "C.UTF-8"));
        out = print_table(hostile, n);
        printf("%s", out);
        /* No control character but the line ends: ESC, tab and newline come out as text. */
        for (const char *p = out; *p; p++)
                assert_true(*p == '\n' || (unsigned char) *p >= 0x20);
        assert_non_null(strstr(out, "\\x1b[31mred"));
        assert_non_null(strstr(out, "tab\\x09here"));
        assert_non_null(strstr(out, "new\\x0aline"));
        assert_non_null(strstr(out, "quote\"comma,"));
        /* The cut byte is escaped; the valid é before it stays. */
        assert_non_null(strstr(out, "\xc3\xa9\\xc3"));
        /* One line per row, each as wide on screen as the others. */
        lines = g_strsplit(out, "\n", -1);
        assert_int_equal(g_strv_length(lines), n + 2);         /* header, rows, the empty tail */
        for (size_t i = 0; i <= n; i++) {
                long w = g_utf8_strlen(lines[i], -1);
                assert_true(g_utf8_validate(lines[i], -1, NULL));
                if (width < 0)
                        width = w;
                assert_int_equal(w, width);
        }
        setlocale(LC_ALL, "C");
}

/* In the C locale every byte above 0x7f is escaped: the output is ASCII whatever the names. */
static void test_text_table_in_the_c_locale_is_ascii(void **state) {
        g_autofree char *out = NULL;

        (void) state;
        assert_non_null(setlocale(LC_ALL, "C"));
        out = print_table(hostile, sizeof(hostile) / sizeof(hostile[0]));
        for (const char *p = out; *p; p++)
                assert_true(*p == '\n' || ((unsigned char) *p >= 0x20 && (unsigned char) *p < 0x80));
        assert_non_null(strstr(out, "na\\xc3\\xafve"));
}

static void test_json_writer_keeps_valid_strings_whole_and_always_parses(void **state) {
        g_autoptr(JsonParser) parser = json_parser_new();
        g_autoptr(GError) error = NULL;
        size_t n = sizeof(hostile) / sizeof(hostile[0]), size;
        JsonArray *a;
        JsonWriter w;
        char *out;
        FILE *f = open_memstream(&out, &size);

        (void) state;
        json_writer_init(&w, f);
        json_open_array(&w, NULL);
        for (size_t i = 0; i < n; i++)
                json_string(&w, NULL, hostile[i]);
        json_string(&w, NULL, "\xff\xfe");
        json_null(&w, NULL);
        json_close_array(&w);
        assert_int_equal(json_writer_finish(&w), 0);
        assert_int_equal(fclose(f), 0);
        /* One line, no raw control character. */
        assert_int_equal(strchr(out, '\n') - out, (long) strlen(out) - 1);
        for (const char *p = out; *p != '\n'; p++)
                assert_true((unsigned char) *p >= 0x20);
        assert_true(json_parser_load_from_data(parser, out, -1, &error));
        a = json_node_get_array(json_parser_get_root(parser));
        for (size_t i = 0; i + 1 < n; i++)
                assert_string_equal(json_array_get_string_element(a, i), hostile[i]);
        /* Bytes that are not UTF-8 become U+FFFD; what is valid around them stays. */
        assert_true(g_str_has_prefix(json_array_get_string_element(a, n - 1), "\xc3\xa9\xc3\xa9"));
        assert_true(g_str_has_suffix(json_array_get_string_element(a, n - 1), "\xef\xbf\xbd"));
        assert_true(g_utf8_validate(json_array_get_string_element(a, n), -1, NULL));
        assert_true(json_array_get_null_element(a, n + 1));
        free(out);
}

static void test_csv_with_another_separator(void **state) {
        size_t size;
        CsvWriter w;
        char *out;
        FILE *f = open_memstream(&out, &size);

        (void) state;
        csv_writer_init_sep(&w, f, ";");
        csv_field(&w, "a,b");
        csv_field(&w, "c;d");
        csv_field(&w, hostile[1]);
        csv_fieldf(&w, "%d", 7);
        csv_end_row(&w);
        assert_int_equal(csv_writer_finish(&w), 0);
        fclose(f);
        assert_string_equal(out, "a,b;\"c;d\";tab\there;7\n");
        free(out);
}

/* What CSV writes of a thread name (text_escape_controls): what the table writes in a UTF-8
 * locale, whatever the locale, so that no control character reaches a terminal raw. */
static void test_escape_controls_as_the_table_does(void **state) {
        static const struct { const char *in, *out; } cases[] = {
                { "\x1b[31mred", "\\x1b[31mred" },
                { "tab\there", "tab\\x09here" },
                { "new\nline\r", "new\\x0aline\\x0d" },
                { "del\x7f", "del\\x7f" },
                { "c1\xc2\x9b" "31m", "c1\\xc2\\x9b" "31m" },          /* U+009B, CSI to some terminals */
                { "nbsp\xc2\xa0", "nbsp\xc2\xa0" },                   /* U+00A0 is printable */
                { "bad\\xc3", "bad\\x5cxc3" },                    /* pmapid's escape: its backslash too */
                { "back\\slash", "back\\slash" },
                { "quote\"comma,", "quote\"comma," },
                { "na\xc3\xafve\xe2\x86\x92\xc3\xa9", "na\xc3\xafve\xe2\x86\x92\xc3\xa9" },
                { "", "" },
        };

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char *out = text_escape_controls(cases[i].in);

                assert_non_null(out);
                assert_string_equal(out, cases[i].out);
                free(out);
        }
}

static void test_thousands_follow_the_locale_or_none(void **state) {
        char buf[THOUSANDS_MAX];

        (void) state;
        assert_non_null(setlocale(LC_ALL, "C"));
        assert_string_equal(format_thousands(1234567, buf), "1,234,567");   /* C has none: a comma */
        assert_string_equal(format_thousands(-1000, buf), "-1,000");
        assert_string_equal(format_thousands(999, buf), "999");
        assert_string_equal(format_thousands(INT64_MIN, buf), "-9,223,372,036,854,775,808");
        if (setlocale(LC_NUMERIC, "de_DE.UTF-8"))
                assert_string_equal(format_thousands(1234567, buf), "1.234.567");
        else
                print_message("# de_DE.UTF-8 is not installed: the locale's own separator is not checked\n");
        setlocale(LC_ALL, "C");
        number_format_plain(true);
        assert_string_equal(format_thousands(1234567, buf), "1234567");
        number_format_plain(false);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_text_table_escapes_and_aligns_by_display_width),
                cmocka_unit_test(test_text_table_in_the_c_locale_is_ascii),
                cmocka_unit_test(test_json_writer_keeps_valid_strings_whole_and_always_parses),
                cmocka_unit_test(test_csv_with_another_separator),
                cmocka_unit_test(test_escape_controls_as_the_table_does),
                cmocka_unit_test(test_thousands_follow_the_locale_or_none),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
