/* pmctl-watch.c: `pmctl data -I MS [-c N] PID [TID]`, the counts of a thread or a group read every MS
 * milliseconds and printed as the change since the read before, as `perf stat -I` prints them: a
 * line per counter for people, or one JSON object per read per line (JSON Lines) for programs. It
 * ends after N reads, at SIGINT or SIGTERM (cleanly: what was read is printed), or when the context
 * goes away (a message, and the status of a failed call). The reads keep their own schedule, MS
 * apart from the first, so that a slow read does not shift every later one. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "json-writer.h"
#include "macro.h"
#include "pmctl.h"
#include "prog-text.h"
#include "text-table.h"
#include "tool-usage.h"

#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL

static unsigned long long now_ns(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (unsigned long long) ts.tv_sec * NSEC_PER_SEC + (unsigned long long) ts.tv_nsec;
}

/* Waits until deadline (CLOCK_MONOTONIC ns); false when SIGINT or SIGTERM came first. */
static bool wait_until(int signal_fd, unsigned long long deadline) {
        for (;;) {
                struct pollfd p = { .fd = signal_fd, .events = POLLIN };
                unsigned long long now = now_ns(), left = deadline > now ? deadline - now : 0;
                struct timespec ts = { .tv_sec = left / NSEC_PER_SEC, .tv_nsec = left % NSEC_PER_SEC };
                int r;

                if (left == 0)
                        return true;
                r = ppoll(&p, 1, &ts, NULL);
                if (r > 0)
                        return false;
                if (r < 0 && errno != EINTR)
                        return true;    /* cannot wait: read now rather than spin or stop */
        }
}

typedef struct Watch {
        const Options *o;
        const pm_info_t *info;
        pm_prog_t prog;
        pm_data_t first, last;
        unsigned long long first_ns, last_ns;
} Watch;

static int print_text(const Watch *w, const pm_data_t *d, unsigned long long ns) {
        unsigned long long elapsed = ns - w->first_ns;
        FILE *f = w->o->out;

        for (int c = 0; c < MAX_COUNTERS; c++) {
                const pm_events_t *e = prog_text_event_by_id(w->info, c, w->prog.events[c]);
                char delta[THOUSANDS_MAX];

                if (w->prog.events[c] == COUNT_NOTHING)
                        continue;
                fprintf(f, "%6llu.%09llu %18s  ", elapsed / NSEC_PER_SEC, elapsed % NSEC_PER_SEC,
                        format_thousands(d->accu[c] - w->last.accu[c], delta));
                if (e)
                        fprintf(f, "%s\n", e->short_name);
                else
                        fprintf(f, "%d\n", w->prog.events[c]);
        }
        return fflush(f) == 0 && !ferror(f) ? 0 : -(errno > 0 ? errno : EIO);
}

static int print_json(const Watch *w, const pm_data_t *d, unsigned long long ns) {
        JsonWriter j;

        json_writer_init(&j, w->o->out);
        json_open_object(&j, NULL);
        pmctl_json_target(&j, w->o);
        json_uint(&j, "time_ns", ns);
        json_uint(&j, "elapsed_ns", ns - w->first_ns);
        json_uint(&j, "interval_ns", ns - w->last_ns);
        if (w->o->group) {
                json_int(&j, "members", d->ginfo.members);
                json_bool(&j, "consistent", d->ginfo.flags.b.consistent);
                json_bool(&j, "process", d->ginfo.flags.b.process);
                json_bool(&j, "partial", d->ginfo.flags.b.partial);
        }
        json_open_array(&j, "counters");
        for (int c = 0; c < MAX_COUNTERS; c++) {
                const pm_events_t *e = prog_text_event_by_id(w->info, c, w->prog.events[c]);

                if (w->prog.events[c] == COUNT_NOTHING)
                        continue;
                json_open_object(&j, NULL);
                json_int(&j, "counter", c);
                json_int(&j, "id", w->prog.events[c]);
                json_string(&j, "name", e ? e->short_name : NULL);
                json_int(&j, "value", d->accu[c]);
                json_int(&j, "delta", d->accu[c] - w->last.accu[c]);
                json_close_object(&j);
        }
        json_close_array(&j);
        json_close_object(&j);
        return json_writer_finish(&j);          /* flushed: a reader gets each line as it is read */
}

int pmctl_watch_data(const Options *o, const pm_info_t *info) {
        _cleanup_close_ int signal_fd = -1;
        unsigned long long period = o->interval_ms * NSEC_PER_MSEC, deadline;
        Watch w = { .o = o, .info = info };
        bool partial = false;
        sigset_t stop;
        int r;

        /* SIGINT and SIGTERM end the loop between two reads, never inside one: they are blocked and
         * read from a signalfd while waiting. */
        sigemptyset(&stop);
        sigaddset(&stop, SIGINT);
        sigaddset(&stop, SIGTERM);
        if (sigprocmask(SIG_BLOCK, &stop, NULL) < 0 ||
            (signal_fd = signalfd(-1, &stop, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
                fprintf(stderr, "pmctl: %s: cannot watch for signals: %m\n", o->verb);
                return TOOL_EXIT_FAILED;
        }

        r = pmctl_get_program(o, &w.prog);
        if (r == 0)
                r = pmctl_read(o, &w.first, &w.first_ns);
        if (r != 0)
                return pmctl_fail(o, r);
        w.last = w.first;
        w.last_ns = w.first_ns;
        if (!o->json)
                fprintf(o->out, "%-16s %18s  %s\n", "#           time", "counts", "event");

        deadline = w.first_ns + period;
        for (unsigned n = 0; o->count == 0 || n < o->count; n++) {
                unsigned long long ns, now;
                pm_data_t d;

                if (!wait_until(signal_fd, deadline))
                        break;
                r = pmctl_read(o, &d, &ns);
                if (r != 0)
                        return pmctl_fail(o, r);        /* the context went away, most likely */
                r = o->json ? print_json(&w, &d, ns) : print_text(&w, &d, ns);
                if (r < 0)
                        return pmctl_fail_output(o, r);
                if (pmctl_partial(o, &d) && !partial)
                        fprintf(stderr, "pmctl: %s %d/%d: the group's counts are partial: threads ran "
                                "uncounted (pmapid's limits)\n", o->verb, (int) o->pid, (int) o->tid);
                partial = partial || pmctl_partial(o, &d);
                w.last = d;
                w.last_ns = ns;
                /* A read that took longer than the period skips the reads it overran. */
                deadline += period;
                now = now_ns();
                if (deadline < now)
                        deadline += (now - deadline) / period * period + period;
        }
        return partial ? TOOL_EXIT_INCOMPLETE : 0;
}
