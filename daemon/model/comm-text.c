/* comm-text.c: see comm-text.h. glib decodes one character at a time (it refuses overlong forms,
 * surrogates and code points past U+10FFFF); the noncharacters are checked here, because sd-bus 252
 * refuses them (its unichar_is_valid()) while glib and the D-Bus specification accept them. */
#include <glib.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm-text.h"
#include "context.h"

_Static_assert(COMM_TEXT_BYTES_MAX == CONTEXT_COMM_MAX - 1, "a stored name fits the escaped text");

static bool is_noncharacter(gunichar c) {
        return (c >= 0xFDD0 && c <= 0xFDEF) || (c & 0xFFFE) == 0xFFFE;
}

/* The length of the character at p (n bytes left) that may go out as it is, or 0. */
static size_t char_length(const char *p, size_t n, bool escape_controls) {
        unsigned char b = (unsigned char) *p;
        gunichar c;

        if (b < 0x80)
                return escape_controls && (b < 0x20 || b == 0x7f) ? 0 : 1;
        c = g_utf8_get_char_validated(p, (gssize) n);
        if (c == (gunichar) -1 || c == (gunichar) -2 || is_noncharacter(c))
                return 0;
        return (size_t) g_unichar_to_utf8(c, NULL);     /* overlong forms were refused: the same length */
}

/* The first n bytes of comm escaped into buf (4 n + 1 bytes). */
static char *escape_n(const char *comm, size_t n, char *buf, bool escape_controls) {
        size_t out = 0;

        for (size_t i = 0; i < n;) {
                size_t len = char_length(comm + i, n - i, escape_controls);

                if (len == 0) {
                        /* One byte only: what follows a stray byte may start a good character. */
                        (void) snprintf(buf + out, 5, "\\x%02x", (unsigned char) comm[i]);
                        out += 4;
                        i++;
                } else {
                        memcpy(buf + out, comm + i, len);
                        out += len;
                        i += len;
                }
        }
        buf[out] = '\0';
        return buf;
}

static const char *escape(const char *comm, char buf[static COMM_UTF8_MAX], bool escape_controls) {
        return escape_n(comm, strnlen(comm, COMM_TEXT_BYTES_MAX), buf, escape_controls);
}

char *text_to_utf8_dup(const char *text, bool escape_controls) {
        size_t n = strlen(text);
        char *buf = malloc(4 * n + 1);

        return buf ? escape_n(text, n, buf, escape_controls) : NULL;
}

const char *comm_to_utf8(const char *comm, char buf[static COMM_UTF8_MAX]) {
        return escape(comm, buf, /* escape_controls= */ false);
}

const char *comm_to_log(const char *comm, char buf[static COMM_UTF8_MAX]) {
        return escape(comm, buf, /* escape_controls= */ true);
}
