/* prog-text.h: a program (pm_prog_t) in words, both ways: the event list and mode words the tools
 * take on their command lines, and the names they print. Event names come from the catalog that
 * pm_init() returned, so they are exactly those pmapid offers on this machine. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "pmapi.h"

#define PROG_TEXT_ERROR_MAX 256

/* The event with this id, or this short or long name (compared without case), or perf's raw code
 * rNNN of a PMU event (pmapid ends such an event's description with "(raw: rNNN)"), in pm_init's
 * list for counter c; NULL when there is none. */
const pm_events_t *prog_text_event_by_id(const pm_info_t *info, int counter, int id);
const pm_events_t *prog_text_event_by_name(const pm_info_t *info, int counter, const char *name);
/* "verified", "unverified" or "caveat" for an event's status. */
const char *prog_text_status_name(int status);

/* spec: "NAME_OR_ID,..." with one word per counter from counter 0, "-" for COUNT_NOTHING; counters
 * it does not reach are COUNT_NOTHING. A number is taken as an id as it is (libpmapi checks it).
 * Returns 0, or -EINVAL with a message for the user in error. */
int prog_text_parse_events(const pm_info_t *info, const char *spec, int events[MAX_COUNTERS],
                           char error[static PROG_TEXT_ERROR_MAX]);
/* spec: comma-separated words (user, kernel, count, process, no-inherit) or numbers (0x10), or'ed.
 * Returns 0, or -EINVAL with a message in error. */
int prog_text_parse_mode(const char *spec, int *ret_mode, char error[static PROG_TEXT_ERROR_MAX]);
/* The counting modes of -u, -k and --mode (pmapi-tools(7)): --mode's list exactly (user and/or
 * kernel, not with -u or -k); else user mode, and kernel mode too with -k; with none of them,
 * none_mode. Returns 0, or -EINVAL with a message in error. */
int prog_text_resolve_mode(bool user, bool kernel, const char *mode, int none_mode, int *ret_mode,
                           char error[static PROG_TEXT_ERROR_MAX]);
/* The mode's words, comma-separated ("user,count"; "none" for 0), bits without a word as one hex
 * number at the end; truncated to size. */
char *prog_text_format_mode(int mode, char *buf, size_t size);

/* The words and their bits, for the tools that print modes as JSON members. */
typedef struct ModeWord {
        const char *word;               /* on command lines and in text */
        const char *json_name;          /* the same as a JSON member name, which jq reads as .name */
        int bit;
} ModeWord;
extern const ModeWord prog_text_mode_words[];
extern const size_t prog_text_n_mode_words;
