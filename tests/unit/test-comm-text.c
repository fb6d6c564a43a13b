/* test-comm-text.c: thread names made into text for the bus and the journal (daemon/model/comm-text.c):
 * valid UTF-8 passes unchanged, control characters included; each byte that sd-bus would refuse is
 * written as "\xNN"; and over many random names the result is always a string sd-bus takes into a
 * message, and equal to the name whenever sd-bus takes the name itself. */
#include <glib.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-bus.h>
#include <unistd.h>
#include <cmocka.h>

#include "comm-text.h"

static void assert_utf8(const char *comm, const char *expected) {
        char buf[COMM_UTF8_MAX];

        assert_string_equal(comm_to_utf8(comm, buf), expected);
        assert_true(g_utf8_validate(buf, -1, NULL));
}

static void assert_log(const char *comm, const char *expected) {
        char buf[COMM_UTF8_MAX];

        assert_string_equal(comm_to_log(comm, buf), expected);
}

static void test_valid_names_pass_unchanged(void **state) {
        (void) state;
        assert_utf8("", "");
        assert_utf8("kworker/0:1", "kworker/0:1");
        assert_utf8("back\\slash", "back\\slash");
        assert_utf8("ééééééé", "ééééééé");                 /* 14 bytes */
        assert_utf8("日本語スレ", "日本語スレ");              /* 15 bytes, three each */
        assert_utf8("\xf0\x9f\x98\x80 ok", "\xf0\x9f\x98\x80 ok");      /* U+1F600, four bytes */
        assert_utf8("\xf4\x8f\xbf\xbd", "\xf4\x8f\xbf\xbd");            /* U+10FFFD, the last allowed */
}

static void test_control_characters_pass_unchanged_to_the_bus(void **state) {
        (void) state;
        assert_utf8("\x1b[31mred", "\x1b[31mred");
        assert_utf8("tab\there", "tab\there");
        assert_utf8("new\nline", "new\nline");
        assert_utf8("\x7f\x01", "\x7f\x01");
        assert_utf8("quote\"comma,", "quote\"comma,");
}

static void test_a_character_cut_by_the_kernel_is_escaped(void **state) {
        (void) state;
        /* "éééééééé" is 16 bytes; the kernel keeps 15: seven é and the first byte of the eighth. */
        assert_utf8("ééééééé\xc3", "ééééééé\\xc3");
        assert_utf8("日本語ス\xe3\x83", "日本語ス\\xe3\\x83");          /* 14 of "日本語スレ" */
        assert_utf8("\xf0\x9f\x98", "\\xf0\\x9f\\x98");
}

static void test_invalid_bytes_are_escaped_one_by_one(void **state) {
        (void) state;
        assert_utf8("\xff", "\\xff");
        assert_utf8("a\xfe" "b", "a\\xfeb");
        assert_utf8("\x80\xbf", "\\x80\\xbf");                          /* stray continuation bytes */
        assert_utf8("\xc0\x80", "\\xc0\\x80");                          /* overlong NUL */
        assert_utf8("\xc1\xbf", "\\xc1\\xbf");                          /* overlong '?' */
        assert_utf8("\xe0\x80\xaf", "\\xe0\\x80\\xaf");                 /* overlong '/' */
        assert_utf8("\xed\xa0\x80", "\\xed\\xa0\\x80");                 /* U+D800, a surrogate */
        assert_utf8("\xed\xbf\xbf", "\\xed\\xbf\\xbf");                 /* U+DFFF */
        assert_utf8("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");        /* past U+10FFFF */
        assert_utf8("\xf8\x88\x80\x80\x80", "\\xf8\\x88\\x80\\x80\\x80");  /* five bytes */
        /* What follows a bad byte is read afresh: a good character right after it is kept. */
        assert_utf8("\xc3" "é" "\xa9", "\\xc3é\\xa9");
        assert_utf8("\xe2\x82" "a", "\\xe2\\x82a");
}

static void test_noncharacters_that_sd_bus_refuses_are_escaped(void **state) {
        (void) state;
        assert_utf8("\xef\xbf\xbf", "\\xef\\xbf\\xbf");                 /* U+FFFF */
        assert_utf8("\xef\xbf\xbe", "\\xef\\xbf\\xbe");                 /* U+FFFE */
        assert_utf8("\xef\xb7\x90", "\\xef\\xb7\\x90");                 /* U+FDD0 */
        assert_utf8("\xf0\x9f\xbf\xbf", "\\xf0\\x9f\\xbf\\xbf");        /* U+1FFFF */
        assert_utf8("\xef\xb7\xb0", "\xef\xb7\xb0");                    /* U+FDF0: allowed */
}

static void test_fifteen_bad_bytes_fill_the_buffer_and_longer_names_are_cut(void **state) {
        char all_bad[16], expected[COMM_UTF8_MAX];

        (void) state;
        memset(all_bad, 0xff, 15);
        all_bad[15] = '\0';
        expected[0] = '\0';
        for (int i = 0; i < 15; i++)
                strcat(expected, "\\xff");
        assert_int_equal(strlen(expected), COMM_UTF8_MAX - 1);
        assert_utf8(all_bad, expected);
        /* Nothing past the 15th byte is read, as the kernel keeps no more. */
        assert_utf8("0123456789abcdefgh", "0123456789abcde");
}

static void test_log_text_escapes_control_characters_too(void **state) {
        (void) state;
        assert_log("new\nline", "new\\x0aline");
        assert_log("\x1b[31mred", "\\x1b[31mred");
        assert_log("tab\there\x7f", "tab\\x09here\\x7f");
        assert_log("ééééééé\xc3", "ééééééé\\xc3");
        assert_log("quote\"comma,", "quote\"comma,");
        assert_log("", "");
}

/* Whether sd-bus takes s as a string argument. An unauthenticated bus on one end of a socket pair
 * is enough to build messages. */
static bool sd_bus_takes(sd_bus *bus, const char *s) {
        sd_bus_message *m = NULL;
        int r;

        assert_true(sd_bus_message_new_signal(bus, &m, "/a", "a.b", "C") >= 0);
        r = sd_bus_message_append(m, "s", s);
        sd_bus_message_unref(m);
        return r >= 0;
}

static void test_random_names_always_make_strings_sd_bus_takes(void **state) {
        /* Lead bytes, continuation bytes and ASCII, so that good and bad sequences both occur. */
        static const unsigned char pool[] = {
                'a', '\n', 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xc3,
                0xdf, 0xe0, 0xe3, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xf8, 0xfe, 0xff,
        };
        GRand *rand = g_rand_new_with_seed(17);
        sd_bus *bus = NULL;
        int fds[2], n_valid = 0;

        (void) state;
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
        assert_true(sd_bus_new(&bus) >= 0);
        assert_true(sd_bus_set_fd(bus, fds[0], fds[0]) >= 0);
        assert_true(sd_bus_start(bus) >= 0);
        for (int k = 0; k < 200000; k++) {
                char comm[16], buf[COMM_UTF8_MAX];
                int n = g_rand_int_range(rand, 0, 16);

                for (int i = 0; i < n; i++)
                        comm[i] = (char) pool[g_rand_int_range(rand, 0, sizeof(pool))];
                comm[n] = '\0';
                comm_to_utf8(comm, buf);
                assert_true(sd_bus_takes(bus, buf));
                if (sd_bus_takes(bus, comm)) {
                        assert_string_equal(buf, comm);
                        n_valid++;
                }
        }
        assert_true(n_valid > 1000);            /* the pool makes good names too, not only bad ones */
        sd_bus_close_unref(bus);                /* no flush: nobody answers the authentication */
        close(fds[1]);
        g_rand_free(rand);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_valid_names_pass_unchanged),
                cmocka_unit_test(test_control_characters_pass_unchanged_to_the_bus),
                cmocka_unit_test(test_a_character_cut_by_the_kernel_is_escaped),
                cmocka_unit_test(test_invalid_bytes_are_escaped_one_by_one),
                cmocka_unit_test(test_noncharacters_that_sd_bus_refuses_are_escaped),
                cmocka_unit_test(test_fifteen_bad_bytes_fill_the_buffer_and_longer_names_are_cut),
                cmocka_unit_test(test_log_text_escapes_control_characters_too),
                cmocka_unit_test(test_random_names_always_make_strings_sd_bus_takes),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
