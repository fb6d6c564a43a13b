/* pmlist.c: pmlist, the event catalog as pm_init() returns it, for people and scripts (like AIX's
 * pmlist and `perf list`): its options (man/pmapi-tools.7 sets the letters they share with the
 * other tools), the selection by status (pm_init's filter), counter and name (event-index.c lists
 * each event once, however many counters take it), with -g the predefined event groups instead
 * (pm_init's PM_GET_GROUPS, AIX's pmlist -g), the output file, and the exit statuses. What it
 * prints is in pmlist-show.c and pmlist-groups.c; the contract is man/pmlist.1. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "event-group.h"
#include "json-writer.h"
#include "macro.h"
#include "pmlist.h"
#include "tool-usage.h"

#define ALL_STATUSES (PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT)

typedef enum OutputFormat {
        OUTPUT_TEXT,
        OUTPUT_CSV,
        OUTPUT_JSON,
} OutputFormat;

typedef struct Options {
        int filter;                     /* -f: PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT */
        EventQuery query;               /* -c, -e (its patterns point into argv), --exact */
        bool details;                   /* -d: long names, counters, whole descriptions */
        bool no_headings, raw;          /* -n, --raw */
        OutputFormat format;
        const char *separator;          /* -x SEP; "," otherwise */
        const char *output;             /* -o FILE, or NULL for stdout */
        bool groups;                    /* -g: the event groups instead of the events */
        int group_id;                   /* -g ID, or -1 for every group */
} Options;

static void help(void) {
        printf("Usage: pmlist [-f v,u,c] [-c COUNTER] [-e NAME]... [--exact] [-d] [-n] [--raw]\n"
               "              [--csv|-x SEP|-j|--format=t|c|j] [-o FILE]\n"
               "       pmlist -g [ID] [-f v,u,c] [-d] [-n] [--raw] [--csv|-x SEP|-j|--format=t|c|j]\n"
               "              [-o FILE]\n\n"
               "List the events pmapid offers on this machine, as pm_init(3) returns them:\n"
               "id, short name, status and description, each event once. With -g, list the\n"
               "predefined event groups instead: id, short name, events and description.\n\n"
               "Options:\n"
               "  -f --filter=LIST    Statuses to list: v (verified), u (unverified),\n"
               "                      c (caveat), comma-separated (default: all three)\n"
               "  -c --counter=N      Only the events counter N takes (-1: every counter)\n"
               "  -e --search=NAME    Events whose short or long name contains NAME, in any\n"
               "                      case; may be repeated (any of them)\n"
               "     --exact          With -e: the whole short or long name, in any case\n"
               "  -g --groups[=ID]    The event groups (pmcount -g, pmstat -g count one), or\n"
               "                      group ID alone (-1: every group); with -f, those whose\n"
               "                      every event has a status it names; not with -c, -e\n"
               "  -d --long           Text and CSV: add long names and counters, and do not\n"
               "                      shorten descriptions to the terminal's width\n"
               "  -n --noheadings     Text: no header line and no column titles\n"
               "     --raw            Text: cells one space apart, spaces in them escaped\n"
               "     --csv            CSV (RFC 4180 quoting) with a header row\n"
               "  -x --field-separator=SEP  CSV with SEP between fields\n"
               "  -j --json           One JSON document\n"
               "     --format=FORMAT  t or text (the default), c or csv, j or json\n"
               "  -o --output=FILE    Write the list to FILE instead of standard output\n"
               "  -h --help           Show this help\n"
               "  -V --version        Show the version\n\n"
               "Exit status: 0 success, 1 failed (pmapid unreachable, output unwritable),\n"
               "2 bad usage, 3 no event matches -e (no group has the ID of -g).\n"
               "See pmlist(1) and pmapi-tools(7).\n");
}

#define usage_error(...) tool_usage_error("pmlist", __VA_ARGS__)

/* "v,u,c" or the words "verified,unverified,caveat", in any case and order, or'ed into *filter. */
static int parse_filter(const char *spec, int *filter) {
        static const struct { const char *letter, *word; int bit; } statuses[] = {
                { "v", "verified",   PM_VERIFIED },
                { "u", "unverified", PM_UNVERIFIED },
                { "c", "caveat",     PM_CAVEAT },
        };
        _cleanup_free_ char *copy = strdup(spec);
        char *next = copy, *item;

        if (!copy)
                return -ENOMEM;
        if (*spec == '\0')
                return usage_error("-f needs a status: v, u or c");
        while ((item = strsep(&next, ","))) {
                size_t i;

                for (i = 0; i < ELEMENTSOF(statuses); i++)
                        if (strcasecmp(item, statuses[i].letter) == 0 || strcasecmp(item, statuses[i].word) == 0)
                                break;
                if (i == ELEMENTSOF(statuses))
                        return usage_error("invalid status '%s' in -f '%s': use v (verified), u (unverified) "
                                           "or c (caveat)", item, spec);
                *filter |= statuses[i].bit;
        }
        return 0;
}

/* --format: AIX's -o letters, or the words. */
static int parse_format(const char *spec, OutputFormat *ret) {
        if (strcasecmp(spec, "t") == 0 || strcasecmp(spec, "text") == 0)
                *ret = OUTPUT_TEXT;
        else if (strcasecmp(spec, "c") == 0 || strcasecmp(spec, "csv") == 0)
                *ret = OUTPUT_CSV;
        else if (strcasecmp(spec, "j") == 0 || strcasecmp(spec, "json") == 0)
                *ret = OUTPUT_JSON;
        else if (strcasecmp(spec, "x") == 0 || strcasecmp(spec, "xml") == 0)
                return usage_error("XML output (AIX's -o x) is not supported: use --format=j for JSON");
        else
                return usage_error("invalid output format '%s': use t (text), c (CSV) or j (JSON)", spec);
        return 0;
}

/* -o FILE. AIX's -o took a format letter: a lone t, c, j or x is refused with the new spelling, so
 * that an AIX habit does not quietly write a file named "c" (./c still does). */
static int parse_output(const char *spec, const char **ret) {
        if (*spec == '\0')
                return usage_error("-o needs a file name");
        if (strlen(spec) == 1 && strchr("tcjx", spec[0]))
                return usage_error("-o takes an output file now: AIX's -o %s is --format=%s (a file named "
                                   "'%s': -o ./%s)", spec, spec, spec, spec);
        *ret = spec;
        return 0;
}

/* -x SEP, as perf stat takes it: any non-empty string that CSV can quote around. */
static int parse_separator(const char *spec, const char **ret) {
        if (!tool_separator_valid(spec))
                return usage_error("invalid field separator '%s': a non-empty string without a double quote, "
                                   "CR or LF", spec);
        /* The old -x was the exact search: `pmlist -x -e NAME` would take "-e" as the separator. */
        if (spec[0] == '-' && spec[1] != '\0')
                return usage_error("-x takes a field separator now (perf stat's -x), not '%s': the exact "
                                   "name search is --exact", spec);
        *ret = spec;
        return 0;
}

static int parse_counter(const char *s, int *ret) {
        char *end;
        long v;

        errno = 0;
        v = strtol(s, &end, 10);
        if (*s == '\0' || *end != '\0' || errno != 0 || v < -1 || v >= EVENT_INDEX_COUNTERS_MAX)
                return usage_error("invalid counter '%s': a counter number from 0, or -1 for every counter", s);
        *ret = (int) v;
        return 0;
}

/* -g's ID, in the argument (-gID, --groups=ID) or the next word (-g ID, and AIX's -g -1), which the
 * caller then skips. A word that is no number is not -g's: it is left for the rest of the line. */
static int parse_group(int argc, char *argv[], Options *o) {
        const char *id = optarg;

        o->groups = true;
        o->group_id = -1;
        if (!id && optind < argc && (strcmp(argv[optind], "-1") == 0 || event_group_parse_id(argv[optind], &o->group_id)))
                id = argv[optind++];
        if (!id || strcmp(id, "-1") == 0)
                return 0;
        if (!event_group_parse_id(id, &o->group_id))
                return usage_error("invalid event group '%s': a group id from 0, or -1 for every group", id);
        return 0;
}

/* Fills o, and patterns (room for argc) with the -e arguments; returns 0 to run, 1 when --help or
 * --version was answered, -EINVAL after a usage message (-ENOMEM: none). */
static int parse_argv(int argc, char *argv[], Options *o, char **patterns) {
        enum { ARG_CSV = 0x100, ARG_EXACT, ARG_FORMAT, ARG_RAW };
        static const struct option options[] = {
                { "filter",          required_argument, NULL, 'f' },
                { "counter",         required_argument, NULL, 'c' },
                { "search",          required_argument, NULL, 'e' },
                { "exact",           no_argument,       NULL, ARG_EXACT },
                { "groups",          optional_argument, NULL, 'g' },
                { "long",            no_argument,       NULL, 'd' },
                { "noheadings",      no_argument,       NULL, 'n' },
                { "raw",             no_argument,       NULL, ARG_RAW },
                { "csv",             no_argument,       NULL, ARG_CSV },
                { "field-separator", required_argument, NULL, 'x' },
                { "json",            no_argument,       NULL, 'j' },
                { "format",          required_argument, NULL, ARG_FORMAT },
                { "output",          required_argument, NULL, 'o' },
                { "help",            no_argument,       NULL, 'h' },
                { "version",         no_argument,       NULL, 'V' },
                {}
        };
        int c, r = 0;

        /* The leading ':' makes getopt quiet, as usage_error() speaks. */
        while (r >= 0 && (c = getopt_long(argc, argv, ":f:c:e:g::dnx:jo:hV", options, NULL)) >= 0)
                switch (c) {
                case 'f':
                        r = parse_filter(optarg, &o->filter);
                        break;
                case 'c':
                        r = parse_counter(optarg, &o->query.counter);
                        break;
                case 'e':
                        if (*optarg == '\0')
                                return usage_error("-e needs a name to search for");
                        patterns[o->query.n_patterns++] = optarg;
                        break;
                case ARG_EXACT:
                        o->query.exact = true;
                        break;
                case 'g':
                        r = parse_group(argc, argv, o);
                        break;
                case 'd':
                        o->details = true;
                        break;
                case 'n':
                        o->no_headings = true;
                        break;
                case ARG_RAW:
                        o->raw = true;
                        break;
                case ARG_CSV:
                        o->format = OUTPUT_CSV;
                        o->separator = ",";
                        break;
                case 'x':
                        o->format = OUTPUT_CSV;
                        r = parse_separator(optarg, &o->separator);
                        break;
                case 'j':
                        o->format = OUTPUT_JSON;
                        break;
                case ARG_FORMAT:
                        r = parse_format(optarg, &o->format);
                        break;
                case 'o':
                        r = parse_output(optarg, &o->output);
                        break;
                case 'h':
                        help();
                        return 1;
                case 'V':
                        printf("pmlist (pmapi) %s\n", PMAPI_VERSION);
                        return 1;
                default:
                        return tool_option_error("pmlist", c, argv);
                }
        if (r < 0)
                return r;
        if (optind < argc)
                return usage_error("unexpected argument '%s' (search with -e NAME)", argv[optind]);
        if (o->groups && (o->query.counter != -1 || o->query.n_patterns > 0 || o->query.exact))
                return usage_error("-g lists the event groups: -c, -e and --exact choose events");
        if (o->query.exact && o->query.n_patterns == 0)
                return usage_error("--exact needs -e NAME");
        if ((o->no_headings || o->raw) && o->format != OUTPUT_TEXT)
                return usage_error("-n and --raw shape the text table: CSV and JSON take neither");
        if (o->filter == 0)
                o->filter = ALL_STATUSES;
        return 0;
}

/* "pmlist: no event matches 'a' or 'b'" with what else narrowed the search. */
static int no_match(const Options *o) {
        fputs("pmlist: no event", stderr);
        if (o->filter != ALL_STATUSES)
                fputs(" of the statuses -f selects", stderr);
        if (o->query.counter >= 0)
                fprintf(stderr, " on counter %d", o->query.counter);
        fprintf(stderr, " %s ", o->query.exact ? "is named" : "matches");
        for (size_t i = 0; i < o->query.n_patterns; i++)
                fprintf(stderr, "%s'%s'", i > 0 ? " or " : "", o->query.patterns[i]);
        fputc('\n', stderr);
        return TOOL_EXIT_INCOMPLETE;
}

/* -g ID that pm_init did not list: as an -e that matches nothing. */
static int no_group(int id) {
        fprintf(stderr, "pmlist: no event group has id %d on this machine ('pmlist -g' lists those it has)\n", id);
        return TOOL_EXIT_INCOMPLETE;
}

/* pm_init failed: the reason on stderr, and with --json as a document in the output too. */
static int fail(const Options *o, FILE *out, const char *where, int pm_code) {
        pm_error((char *) where, pm_code);
        if (o->format == OUTPUT_JSON) {
                JsonWriter w;

                json_writer_init(&w, out);
                json_open_object(&w, NULL);
                json_bool(&w, "ok", false);
                json_int(&w, "error", pm_code);
                json_string(&w, "message", pm_strerror(NULL, pm_code));
                json_close_object(&w);
                (void) json_writer_finish(&w);  /* the status says it all if this fails too */
        }
        return TOOL_EXIT_FAILED;
}

static void fclosep(FILE **f) {
        if (*f && *f != stdout)
                (void) fclose(*f);      /* the output was flushed and checked before */
}

/* The exit status once the list was printed (r: 0 or -errno), with -o's file closed and checked. */
static int finish(FILE **out, int r) {
        if (r >= 0 && *out != stdout && fclose(TAKE_PTR(*out)) != 0)
                r = -errno;
        if (r < 0) {
                fprintf(stderr, "pmlist: cannot write the output: %s\n", strerror(-r));
                return TOOL_EXIT_FAILED;
        }
        return EXIT_SUCCESS;
}

/* -g: the groups to print, into l; 0, TOOL_EXIT_INCOMPLETE after saying there is no group ID, or
 * -ENOMEM. */
static int choose_groups(const Options *o, const pm_groups_info_t *groups, Listing *l,
                         const pm_groups_t ***ret_chosen) {
        const pm_groups_t **chosen = calloc(groups->maxgroups > 0 ? (size_t) groups->maxgroups : 1,
                                            sizeof(pm_groups_t *));
        size_t n = 0;

        if (!chosen)
                return -ENOMEM;
        for (int i = 0; groups->event_groups && i < groups->maxgroups; i++)
                if (o->group_id < 0 || groups->event_groups[i].group_id == o->group_id)
                        chosen[n++] = &groups->event_groups[i];
        if (o->group_id >= 0 && n == 0) {
                free(chosen);
                return no_group(o->group_id);
        }
        l->groups = chosen;
        l->n_groups = n;
        *ret_chosen = chosen;
        return 0;
}

int main(int argc, char *argv[]) {
        _cleanup_free_ const pm_groups_t **chosen_groups = NULL;
        _cleanup_free_ IndexedEvent *events = NULL;
        _cleanup_free_ char **patterns = calloc(argc, sizeof(char *));  /* -e: one per argument at most */
        _cleanup_(fclosep) FILE *out = NULL;
        Options o = { .query = { .counter = -1, .patterns = patterns }, .separator = "," };
        pm_info_t info = {};
        pm_groups_info_t groups = {};
        size_t n_events, n = 0;
        Listing l;
        int r;

        tool_setup_locale();
        r = patterns ? parse_argv(argc, argv, &o, patterns) : -ENOMEM;
        if (r == -ENOMEM)
                fputs("pmlist: out of memory\n", stderr);
        if (r < 0)
                return r == -ENOMEM ? TOOL_EXIT_FAILED : TOOL_EXIT_USAGE;
        if (r > 0)
                return fflush(stdout) == 0 ? EXIT_SUCCESS : TOOL_EXIT_FAILED;

        /* Opened first, so that an unwritable file is known before pmapid is asked anything. */
        out = o.output ? fopen(o.output, "we") : stdout;
        if (!out) {
                fprintf(stderr, "pmlist: cannot open '%s' for writing: %m\n", o.output);
                return TOOL_EXIT_FAILED;
        }
        /* With -g, pm_init keeps the groups whose every event has a status of the filter. */
        r = pm_init(o.filter | (o.groups ? PM_GET_GROUPS : 0), &info, &groups);
        if (r != 0)
                return fail(&o, out, "pmlist: pm_init", r);
        if (o.query.counter >= info.maxpmcs) {
                usage_error("counter %d does not exist: this machine has counters 0 to %d", o.query.counter,
                            info.maxpmcs - 1);
                return TOOL_EXIT_USAGE;
        }
        l = (Listing) {
                .processor = info.proc_name,
                .n_counters = info.maxpmcs,
                .counter = o.query.counter,
                .out = out,
                .details = o.details,
                .no_headings = o.no_headings,
                .raw = o.raw,
                .separator = o.separator,
                .info = &info,
        };
        if (o.groups) {
                r = choose_groups(&o, &groups, &l, &chosen_groups);
                if (r == -ENOMEM)
                        return fail(&o, out, "pmlist", PM_ENOMEM);
                if (r > 0)
                        return r;
                r = o.format == OUTPUT_CSV ? pmlist_show_groups_csv(&l) :
                    o.format == OUTPUT_JSON ? pmlist_show_groups_json(&l) : pmlist_show_groups_text(&l);
                return finish(&out, r);
        }
        r = event_index_build(&info, &events, &n_events);
        if (r < 0)
                return fail(&o, out, "pmlist", PM_ENOMEM);
        for (size_t i = 0; i < n_events; i++)
                if (event_index_matches(&events[i], &o.query))
                        events[n++] = events[i];
        if (o.query.n_patterns > 0 && n == 0)
                return no_match(&o);

        l.events = events;
        l.n_events = n;
        switch (o.format) {
        case OUTPUT_CSV:
                r = pmlist_show_csv(&l);
                break;
        case OUTPUT_JSON:
                r = pmlist_show_json(&l);
                break;
        default:
                r = pmlist_show_text(&l);
        }
        return finish(&out, r);
}
