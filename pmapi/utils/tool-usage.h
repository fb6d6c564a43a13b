/* tool-usage.h: the conventions the four command-line tools share (man/pmapi-tools.7): how they
 * complain about their command line, all alike ("<tool>: <message>" and "Try '<tool> --help'." on
 * stderr), their exit statuses, the locale they print in, and how they read numbers. */
#pragma once

#include <stdbool.h>

/* Exit statuses of pmlist, pmctl and pmstat without --proctree (0: success). */
#define TOOL_EXIT_FAILED     1          /* pmapid unreachable or refusing, libpmapi failed, output unwritable */
#define TOOL_EXIT_USAGE      2          /* the command line is wrong: an option, an argument, an event name */
#define TOOL_EXIT_INCOMPLETE 3          /* pmlist: no event matches; pmctl: the group's counts are partial */
/* pmcount and pmstat --proctree run a COMMAND and pass its status on; their own, as env(1) and
 * timeout(1) have them: */
#define TOOL_EXIT_PARTIAL    124        /* the counts are partial: threads ran uncounted */
#define TOOL_EXIT_OWN        125        /* the tool itself failed, its command line included */
#define TOOL_EXIT_CANNOT_RUN 126        /* COMMAND was found but could not be executed */
#define TOOL_EXIT_NOT_FOUND  127        /* COMMAND was not found */

/* Prints the complaint; returns -EINVAL for the caller to pass up. */
int tool_usage_error(const char *tool, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* The complaint for getopt_long's ':' (missing argument) and '?' (unknown option) results, from c,
 * optopt and the argument at optind - 1. */
int tool_option_error(const char *tool, int c, char **argv);

/* The user's locale for character widths and the thousands separator (LC_CTYPE, LC_NUMERIC), as
 * perf stat and util-linux use it; numbers in CSV and JSON stay plain whatever it says. */
void tool_setup_locale(void);
/* -x SEP: a non-empty string without a double quote, CR or LF (CSV could not quote it). */
bool tool_separator_valid(const char *sep);
/* A decimal number in [min, max], digits only; false for anything else. */
bool tool_parse_uint(const char *s, unsigned long min, unsigned long max, unsigned *ret);
