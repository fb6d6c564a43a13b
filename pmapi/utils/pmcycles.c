/* pmcycles: the processor's nominal speed in MHz, as AIX's pmcycles prints it ("This machine runs
 * at N MHz"; -m: each online CPU), read the way pm_cycles(3) reads it (../cycles.c). -d: Linux has
 * no decrementer, so it names the kernel's clock source instead. Its options, the output file and
 * the exit statuses follow man/pmapi-tools.7; the contract is man/pmcycles.1. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu-list.h"
#include "cycles.h"
#include "json-writer.h"
#include "macro.h"
#include "tool-usage.h"

#define CLOCKSOURCE "/sys/devices/system/clocksource/clocksource0/current_clocksource"

typedef struct Options {
        bool each_cpu;                  /* -m */
        bool decrementer;               /* -d */
        bool verbose;                   /* -v: where each number came from */
        bool json;                      /* -j */
        const char *output;             /* -o FILE, or NULL for stdout */
} Options;

/* One CPU's speed, or known == false. */
typedef struct Speed {
        unsigned cpu;
        bool known;
        uint64_t hz;
        CyclesSource source;
} Speed;

static void help(void) {
        printf("Usage: pmcycles [-m] [-d] [-v] [-j] [-o FILE]\n\n"
               "Print the processor's nominal speed in MHz, as pm_cycles(3) reads it.\n\n"
               "Options:\n"
               "  -m --each-cpu       The speed of each online CPU\n"
               "  -d --decrementer    Also the clock source (Linux has no decrementer)\n"
               "  -v --verbose        Also the file each number was read from\n"
               "  -j --json           One JSON document\n"
               "  -o --output=FILE    Write to FILE instead of standard output\n"
               "  -h --help           Show this help\n"
               "  -V --version        Show the version\n\n"
               "Exit status: 0 success, 1 failed (a speed unknown, output unwritable),\n"
               "2 bad usage. See pmcycles(1) and pmapi-tools(7).\n");
}

#define usage_error(...) tool_usage_error("pmcycles", __VA_ARGS__)

/* Returns 0 to run, 1 when --help or --version was answered, -EINVAL after a usage message. */
static int parse_argv(int argc, char *argv[], Options *o) {
        static const struct option options[] = {
                { "each-cpu",    no_argument,       NULL, 'm' },
                { "decrementer", no_argument,       NULL, 'd' },
                { "verbose",     no_argument,       NULL, 'v' },
                { "json",        no_argument,       NULL, 'j' },
                { "output",      required_argument, NULL, 'o' },
                { "help",        no_argument,       NULL, 'h' },
                { "version",     no_argument,       NULL, 'V' },
                {}
        };
        int c;

        /* The leading ':' makes getopt quiet, as usage_error() speaks. */
        while ((c = getopt_long(argc, argv, ":mdvjo:hVM", options, NULL)) >= 0)
                switch (c) {
                case 'm':
                        o->each_cpu = true;
                        break;
                case 'd':
                        o->decrementer = true;
                        break;
                case 'v':
                        o->verbose = true;
                        break;
                case 'j':
                        o->json = true;
                        break;
                case 'o':
                        if (*optarg == '\0')
                                return usage_error("-o needs a file name");
                        o->output = optarg;
                        break;
                case 'M':
                        return usage_error("AIX's -M (the measured speed) is not supported: perf stat -e "
                                           "cycles or turbostat(8) measure it");
                case 'h':
                        help();
                        return 1;
                case 'V':
                        printf("pmcycles (pmapi) %s\n", PMAPI_VERSION);
                        return 1;
                default:
                        return tool_option_error("pmcycles", c, argv);
                }
        if (optind < argc)
                return usage_error("unexpected argument '%s'", argv[optind]);
        return 0;
}

static Speed read_speed(unsigned cpu) {
        Speed s = { .cpu = cpu };

        s.known = cycles_read("/", cpu, &s.hz, &s.source) >= 0;
        return s;
}

/* AIX prints whole MHz: the nearest one. */
static unsigned long long to_mhz(uint64_t hz) {
        return (hz + 500000) / 1000000;
}

/* Each online CPU's speed into a fresh array. */
static int read_each_cpu(Speed **ret, size_t *ret_n) {
        _cleanup_free_ bool *online = NULL;
        _cleanup_free_ Speed *speeds = NULL;
        size_t n_possible, n = 0;
        int r;

        r = cpu_list_n_possible(&n_possible);
        if (r < 0)
                return r;
        r = cpu_list_read(CPU_LIST_ONLINE, n_possible, &online);
        if (r < 0)
                return r;
        speeds = calloc(n_possible, sizeof(Speed));
        if (!speeds)
                return -ENOMEM;
        for (size_t cpu = 0; cpu < n_possible; cpu++)
                if (online[cpu])
                        speeds[n++] = read_speed((unsigned) cpu);
        *ret = TAKE_PTR(speeds);
        *ret_n = n;
        return 0;
}

/* The clock source's name without its newline, or NULL. */
static char *read_clocksource(void) {
        _cleanup_free_ char *line = NULL;
        FILE *f = fopen(CLOCKSOURCE, "re");
        size_t size = 0;
        ssize_t n;

        if (!f)
                return NULL;
        n = getline(&line, &size, f);
        (void) fclose(f);               /* read only */
        if (n <= 0)
                return NULL;
        line[strcspn(line, "\n")] = '\0';
        return TAKE_PTR(line);
}

/* Each speed missing, on stderr whatever the format; true if none is. */
static bool check_known(const Speed *speeds, size_t n) {
        bool all = true;

        for (size_t i = 0; i < n; i++)
                if (!speeds[i].known) {
                        fprintf(stderr, "pmcycles: the speed of CPU %u is unknown: it has no cpufreq, and "
                                "/proc/cpuinfo gives no MHz for it\n", speeds[i].cpu);
                        all = false;
                }
        return all;
}

static void print_speed(FILE *out, const Options *o, const char *what, const Speed *s) {
        _cleanup_free_ char *path = NULL;

        if (!s->known)
                return;         /* main() said so on stderr */
        fprintf(out, "%s runs at %llu MHz", what, to_mhz(s->hz));
        if (o->verbose && (path = cycles_source_path("/", s->cpu, s->source))) {
                fprintf(out, " (from %s", path);
                if (s->source == CYCLES_SOURCE_CPUINFO)
                        fprintf(out, ", processor %u", s->cpu);
                fputc(')', out);
        }
        fputc('\n', out);
}

static void print_text(FILE *out, const Options *o, const Speed *speeds, size_t n, const char *clocksource) {
        if (!o->each_cpu)
                print_speed(out, o, "This machine", &speeds[0]);
        else
                for (size_t i = 0; i < n; i++) {
                        char what[32];

                        (void) snprintf(what, sizeof(what), "CPU %u", speeds[i].cpu);
                        print_speed(out, o, what, &speeds[i]);
                }
        if (o->decrementer)
                fprintf(out, "Linux has no decrementer: the clock source is %s\n", clocksource ?: "unknown");
}

static void json_speed(JsonWriter *w, const Speed *s) {
        if (!s->known) {
                json_null(w, "hz");
                json_null(w, "mhz");
                json_null(w, "source");
                return;
        }
        json_uint(w, "hz", s->hz);
        json_uint(w, "mhz", to_mhz(s->hz));
        json_string(w, "source", cycles_source_to_string(s->source));
}

static int print_json(FILE *out, const Options *o, const Speed *machine, const Speed *speeds, size_t n,
                      const char *clocksource) {
        JsonWriter w;

        json_writer_init(&w, out);
        json_open_object(&w, NULL);
        json_uint(&w, "cpu", machine->cpu);
        json_speed(&w, machine);
        if (o->each_cpu) {
                json_open_array(&w, "cpus");
                for (size_t i = 0; i < n; i++) {
                        json_open_object(&w, NULL);
                        json_uint(&w, "cpu", speeds[i].cpu);
                        json_speed(&w, &speeds[i]);
                        json_close_object(&w);
                }
                json_close_array(&w);
        }
        if (o->decrementer)
                json_string(&w, "clocksource", clocksource);
        json_close_object(&w);
        return json_writer_finish(&w);
}

static void fclosep(FILE **f) {
        if (*f && *f != stdout)
                (void) fclose(*f);      /* the output was flushed and checked before */
}

int main(int argc, char *argv[]) {
        _cleanup_(fclosep) FILE *out = NULL;
        _cleanup_free_ Speed *speeds = NULL;
        _cleanup_free_ char *clocksource = NULL;
        Options o = {};
        Speed machine;
        size_t n = 0;
        bool all_known;
        int r;

        tool_setup_locale();
        r = parse_argv(argc, argv, &o);
        if (r < 0)
                return TOOL_EXIT_USAGE;
        if (r > 0)
                return fflush(stdout) == 0 ? EXIT_SUCCESS : TOOL_EXIT_FAILED;

        out = o.output ? fopen(o.output, "we") : stdout;
        if (!out) {
                fprintf(stderr, "pmcycles: cannot open '%s' for writing: %m\n", o.output);
                return TOOL_EXIT_FAILED;
        }
        /* The machine's speed is pm_cycles()'s: the first online CPU's. */
        machine = read_speed(cycles_first_cpu("/"));
        if (o.each_cpu) {
                r = read_each_cpu(&speeds, &n);
                if (r < 0) {
                        fprintf(stderr, "pmcycles: cannot read the online CPUs: %s\n", strerror(-r));
                        return TOOL_EXIT_FAILED;
                }
                all_known = check_known(speeds, n);
        } else
                all_known = check_known(&machine, 1);
        if (o.decrementer)
                clocksource = read_clocksource();

        if (o.json)
                r = print_json(out, &o, &machine, speeds, n, clocksource);
        else {
                print_text(out, &o, o.each_cpu ? speeds : &machine, n, clocksource);
                r = fflush(out) == 0 && !ferror(out) ? 0 : -EIO;
        }
        if (r >= 0 && out != stdout && fclose(TAKE_PTR(out)) != 0)
                r = -errno;
        if (r < 0) {
                fprintf(stderr, "pmcycles: cannot write the output: %s\n", strerror(-r));
                return TOOL_EXIT_FAILED;
        }
        return all_known ? EXIT_SUCCESS : TOOL_EXIT_FAILED;
}
