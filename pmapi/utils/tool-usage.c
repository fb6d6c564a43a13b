/* tool-usage.c: see tool-usage.h. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool-usage.h"

int tool_usage_error(const char *tool, const char *format, ...) {
        va_list ap;

        fprintf(stderr, "%s: ", tool);
        va_start(ap, format);
        vfprintf(stderr, format, ap);
        va_end(ap);
        fprintf(stderr, "\nTry '%s --help'.\n", tool);
        return -EINVAL;
}

int tool_option_error(const char *tool, int c, char **argv) {
        if (c == ':')
                return tool_usage_error(tool, "option '%s' needs an argument", argv[optind - 1]);
        if (optopt)
                return tool_usage_error(tool, "unknown option '-%c'", optopt);
        return tool_usage_error(tool, "unknown option '%s'", argv[optind - 1]);
}

void tool_setup_locale(void) {
        (void) setlocale(LC_CTYPE, "");
        (void) setlocale(LC_NUMERIC, "");
}

bool tool_separator_valid(const char *sep) {
        return *sep != '\0' && !strpbrk(sep, "\"\r\n");
}

bool tool_parse_uint(const char *s, unsigned long min, unsigned long max, unsigned *ret) {
        unsigned long v;
        char *end;

        if (*s < '0' || *s > '9')
                return false;
        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno != 0 || *end != '\0' || v < min || v > max || v > UINT_MAX)
                return false;
        *ret = (unsigned) v;
        return true;
}
