/* prog-text.c: see prog-text.h. Parsing only: nothing here talks to pmapid. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "macro.h"
#include "prog-text.h"

/* Bit values: include/pmapi.h. The names are the lower-case AIX ones, PM_NO_INHERIT spelled with a
 * hyphen as command-line words usually are. */
const ModeWord prog_text_mode_words[] = {
        { "user",       "user",       PM_USER },
        { "kernel",     "kernel",     PM_KERNEL },
        { "count",      "count",      PM_COUNT },
        { "process",    "process",    PM_PROCESS },
        { "no-inherit", "no_inherit", PM_NO_INHERIT },
};
const size_t prog_text_n_mode_words = ELEMENTSOF(prog_text_mode_words);

const pm_events_t *prog_text_event_by_id(const pm_info_t *info, int counter, int id) {
        if (counter < 0 || counter >= info->maxpmcs)
                return NULL;
        for (int i = 0; i < info->maxevents[counter]; i++)
                if (info->list_events[counter][i].event_id == id)
                        return &info->list_events[counter][i];
        return NULL;
}

/* perf's raw syntax, rNNN (hex): the event whose description pmapid ends with "(raw: rNNN)". */
static const pm_events_t *event_by_raw_code(const pm_info_t *info, int counter, const char *name) {
        char tail[64];
        size_t n = strlen(name);

        if (n < 2 || n > 40 || (name[0] != 'r' && name[0] != 'R') || strspn(name + 1, "0123456789abcdefABCDEF") != n - 1)
                return NULL;
        (void) snprintf(tail, sizeof(tail), "(raw: r%s)", name + 1);
        for (int i = 0; i < info->maxevents[counter]; i++) {
                const char *d = info->list_events[counter][i].description;
                size_t l = d ? strlen(d) : 0;

                if (l >= strlen(tail) && strcasecmp(d + l - strlen(tail), tail) == 0)
                        return &info->list_events[counter][i];
        }
        return NULL;
}

const pm_events_t *prog_text_event_by_name(const pm_info_t *info, int counter, const char *name) {
        if (counter < 0 || counter >= info->maxpmcs)
                return NULL;
        for (int i = 0; i < info->maxevents[counter]; i++)
                if (strcasecmp(info->list_events[counter][i].short_name, name) == 0)
                        return &info->list_events[counter][i];
        /* pmlist shows the long names too (perf::PAGE-FAULTS); a name it shows is a name that works. */
        for (int i = 0; i < info->maxevents[counter]; i++) {
                const char *l = info->list_events[counter][i].long_name;
                if (l && strcasecmp(l, name) == 0)
                        return &info->list_events[counter][i];
        }
        return event_by_raw_code(info, counter, name);
}

const char *prog_text_status_name(int status) {
        switch (status) {
        case PM_VERIFIED:
                return "verified";
        case PM_CAVEAT:
                return "caveat";
        case PM_UNVERIFIED:
                return "unverified";
        default:
                return "unknown";
        }
}

/* A whole word as an int (decimal, 0x hex or 0 octal), or false. */
static bool parse_int(const char *word, long min, long max, int *ret) {
        char *end;
        long v;

        errno = 0;
        v = strtol(word, &end, 0);
        if (errno != 0 || end == word || *end != '\0' || v < min || v > max)
                return false;
        *ret = (int) v;
        return true;
}

int prog_text_parse_events(const pm_info_t *info, const char *spec, int events[MAX_COUNTERS],
                           char error[static PROG_TEXT_ERROR_MAX]) {
        _cleanup_free_ char *copy = strdup(spec);
        int parsed[MAX_COUNTERS];
        char *word, *next;
        int c = 0;

        if (!copy) {
                snprintf(error, PROG_TEXT_ERROR_MAX, "out of memory");
                return -ENOMEM;
        }
        for (int k = 0; k < MAX_COUNTERS; k++)
                parsed[k] = COUNT_NOTHING;
        /* strsep, not strtok: an empty word between two commas is an error, not skipped. */
        for (next = copy; (word = strsep(&next, ",")); c++) {
                const pm_events_t *e;

                if (c >= MAX_COUNTERS) {
                        snprintf(error, PROG_TEXT_ERROR_MAX, "at most %d events, one per counter",
                                 MAX_COUNTERS);
                        return -EINVAL;
                }
                if (*word == '\0') {
                        snprintf(error, PROG_TEXT_ERROR_MAX, "no event for counter %d (use '-' for none)", c);
                        return -EINVAL;
                }
                if (strcmp(word, "-") == 0 || parse_int(word, INT_MIN, INT_MAX, &parsed[c]))
                        continue;
                e = prog_text_event_by_name(info, c, word);
                if (!e) {
                        snprintf(error, PROG_TEXT_ERROR_MAX,
                                 "unknown event '%.64s' for counter %d ('pmlist -c %d' lists those it takes)",
                                 word, c, c);
                        return -EINVAL;
                }
                parsed[c] = e->event_id;
        }
        memcpy(events, parsed, sizeof(parsed));
        return 0;
}

int prog_text_parse_mode(const char *spec, int *ret_mode, char error[static PROG_TEXT_ERROR_MAX]) {
        _cleanup_free_ char *copy = strdup(spec);
        char *word, *next;
        int mode = 0;

        if (!copy) {
                snprintf(error, PROG_TEXT_ERROR_MAX, "out of memory");
                return -ENOMEM;
        }
        for (next = copy; (word = strsep(&next, ",")); ) {
                bool found = false;
                int bits;

                for (size_t i = 0; i < prog_text_n_mode_words && !found; i++)
                        if (strcasecmp(word, prog_text_mode_words[i].word) == 0) {
                                mode |= prog_text_mode_words[i].bit;
                                found = true;
                        }
                if (found)
                        continue;
                if (!parse_int(word, 0, UINT_MAX, &bits)) {
                        snprintf(error, PROG_TEXT_ERROR_MAX,
                                 "unknown mode '%.64s' (user, kernel, count, process, no-inherit "
                                 "or a number)", word);
                        return -EINVAL;
                }
                mode |= bits;
        }
        *ret_mode = mode;
        return 0;
}

int prog_text_resolve_mode(bool user, bool kernel, const char *mode, int none_mode, int *ret_mode,
                           char error[static PROG_TEXT_ERROR_MAX]) {
        int bits;

        if (mode && (user || kernel)) {
                snprintf(error, PROG_TEXT_ERROR_MAX, "--mode and -u/-k exclude each other");
                return -EINVAL;
        }
        if (mode) {
                if (prog_text_parse_mode(mode, &bits, error) < 0 || bits == 0 || (bits & ~(PM_USER | PM_KERNEL))) {
                        snprintf(error, PROG_TEXT_ERROR_MAX, "invalid --mode '%.64s' (user, kernel or user,kernel)",
                                 mode);
                        return -EINVAL;
                }
                *ret_mode = bits;
        } else if (user || kernel)
                *ret_mode = PM_USER | (kernel ? PM_KERNEL : 0);
        else
                *ret_mode = none_mode;
        return 0;
}

/* Appends ",text" (or "text" first) to buf, keeping o within it: what does not fit is cut. */
static size_t append(char *buf, size_t size, size_t o, const char *text) {
        int n;

        if (o + 1 >= size)
                return o;
        n = snprintf(buf + o, size - o, "%s%s", o ? "," : "", text);
        if (n < 0)
                return o;
        return o + (size_t) n < size ? o + (size_t) n : size - 1;
}

char *prog_text_format_mode(int mode, char *buf, size_t size) {
        unsigned rest = (unsigned) mode;
        size_t o = 0;

        if (size == 0)
                return buf;
        buf[0] = '\0';
        if (mode == 0)
                (void) append(buf, size, 0, "none");
        for (size_t i = 0; i < prog_text_n_mode_words; i++) {
                unsigned bit = (unsigned) prog_text_mode_words[i].bit;
                if (rest & bit) {
                        rest &= ~bit;
                        o = append(buf, size, o, prog_text_mode_words[i].word);
                }
        }
        if (rest) {
                char hex[16];
                snprintf(hex, sizeof(hex), "0x%x", rest);
                (void) append(buf, size, o, hex);
        }
        return buf;
}
