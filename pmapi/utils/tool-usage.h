/* tool-usage.h: how the command-line tools complain about their command line, all alike:
 * "<tool>: <message>" and "Try '<tool> --help'." on stderr. */
#pragma once

/* Prints the complaint; returns -EINVAL for the caller to pass up. */
int tool_usage_error(const char *tool, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* The complaint for getopt_long's ':' (missing argument) and '?' (unknown option) results, from c,
 * optopt and the argument at optind - 1. */
int tool_option_error(const char *tool, int c, char **argv);
