/* program.c: AIX's rules for a program in the thread, group and system scopes and its perf
 * encoding. Mode bits the thread scope takes: user, kernel, count, no_inherit, runlatch (excludes
 * the idle task: a no-op for a thread, which never is it), nointerrupt (counting is never
 * interrupted on Linux), and proctree and process, which change nothing there: a thread program
 * follows the tree through inheritance already, and AIX's pm_set_program_mythread page lists
 * process (IPM and Jikes RVM set proctree, old Paradyn process, and all ran on AIX). The group
 * scope takes the same, process there making a process group; the system scope takes proctree and
 * neither no_inherit nor process. A bit is refused only where honouring it is impossible or where
 * accepting it would count something other than what the caller asked: bits that contradict each
 * other (proctree follows new threads and processes, no_inherit and a process group do not). */
#include <string.h>

#include "mode-layout.h"
#include "program.h"

#define MODE_THRESHOLD_BITS  (0xfc000000u | 0x2000000u | 0x400000u)    /* threshold, thresh_res, thresh_hres */
#define MODE_HYPERVISOR_BIT  0x800000u
#define MODE_RUNLATCH_BIT    0x1000000u
#define MODE_NOINTERRUPT_BIT 0x200000u
#define MODE_THREAD_BITS     (PM_COUNT | PM_USER | PM_KERNEL | PM_NO_INHERIT | PM_PROCTREE | PM_PROCESS | \
                              MODE_RUNLATCH_BIT | MODE_NOINTERRUPT_BIT)
/* The system scope: no inheritance switch (a CPU has no children), proctree instead. */
#define MODE_SYSTEM_BITS     (PM_COUNT | PM_USER | PM_KERNEL | PM_PROCTREE | MODE_RUNLATCH_BIT | \
                              MODE_NOINTERRUPT_BIT)

bool program_set_events(const ProgramSet *s, const EventTable *t, int32_t ret[MAX_COUNTERS]) {
        const EventGroup *g;

        if (!(s->mode & MODE_IS_GROUP_BIT)) {
                memcpy(ret, s->events, sizeof(s->events));
                return true;
        }
        g = event_table_find_group(t, s->events[0]);
        if (g)
                memcpy(ret, g->events, sizeof(g->events));
        else
                for (int c = 0; c < MAX_COUNTERS; c++)
                        ret[c] = COUNT_NOTHING;
        return g != NULL;
}

static ProgramError program_check(const Program *p, const EventTable *t, uint32_t allowed_bits,
                                  uint32_t conflicts_with_proctree, int *ret_counter) {
        int32_t events[MAX_COUNTERS];
        size_t n_used = 0;

        /* Before the threshold check: such a word's threshold bits are its user or count bits. */
        if (mode_layout_foreign(p->mode))
                return PROGRAM_FOREIGN_LAYOUT;
        if (p->mode & MODE_THRESHOLD_BITS)
                return PROGRAM_THRESHOLD;
        if (p->mode & MODE_HYPERVISOR_BIT)
                return PROGRAM_HYPERVISOR;
        if (p->mode & ~(allowed_bits | MODE_IS_GROUP_BIT))
                return PROGRAM_INVALID_MODE;
        if ((p->mode & PM_PROCTREE) && (p->mode & (PM_NO_INHERIT | conflicts_with_proctree)))
                return PROGRAM_CONFLICTING_MODE;
        if (!program_set_events(&p->sets[0], t, events)) {
                if (ret_counter)
                        *ret_counter = p->events[0];    /* the group id, for the message */
                return PROGRAM_UNKNOWN_GROUP;
        }
        for (int c = 0; c < MAX_COUNTERS; c++) {
                if (events[c] == COUNT_NOTHING)
                        continue;
                /* A counter past the PMU's (maxpmcs) lists no event. */
                if (c >= (int) t->n_counters || !event_table_find(t, events[c])) {
                        if (ret_counter)
                                *ret_counter = c;
                        return PROGRAM_UNKNOWN_EVENT;
                }
                n_used++;
        }
        return n_used > 0 ? PROGRAM_OK : PROGRAM_NO_EVENTS;
}

size_t program_n_sets(const Program *p) {
        return p->n_sets <= 1 ? 1 : p->n_sets < PM_MX_MAX_SETS ? p->n_sets : PM_MX_MAX_SETS;
}

bool program_multi_set(const Program *p) {
        return program_n_sets(p) > 1 || p->slice_ms > 0;   /* an _mx program of one set too */
}

uint32_t program_rounds(const Program *p, uint64_t enabled_ns) {
        uint64_t round_ns = (uint64_t) p->slice_ms * 1000000u * program_n_sets(p), n;

        if (round_ns == 0)
                return 0;
        n = enabled_ns / round_ns;
        return n > UINT32_MAX ? UINT32_MAX : (uint32_t) n;
}

size_t program_n_events(const Program *p, const EventTable *t) {
        size_t n = 0;

        for (size_t k = 0; k < program_n_sets(p); k++) {
                int32_t events[MAX_COUNTERS];

                (void) program_set_events(&p->sets[k], t, events);
                for (int c = 0; c < MAX_COUNTERS; c++)
                        n += events[c] != COUNT_NOTHING;
        }
        return n;
}

Program program_set(const Program *p, size_t k) {
        Program r = {};

        r.sets[0] = p->sets[k < program_n_sets(p) ? k : 0];
        return r;
}

ProgramError program_check_sets(const Program *p, size_t max_sets) {
        /* _mm: what a context or group has once, not per set, must be the same in every set. */
        const uint32_t agree = p->multi_mode ? (uint32_t) (PM_PROCTREE | PM_COUNT | PM_PROCESS | PM_NO_INHERIT) :
                                               UINT32_MAX;

        if (p->n_sets <= 1 && p->slice_ms == 0 && !p->multi_mode)
                return PROGRAM_OK;      /* a pm_prog_t */
        if (p->n_sets < 1 || p->n_sets > max_sets || p->n_sets > PM_MX_MAX_SETS)
                return PROGRAM_BAD_SETS;
        if (p->slice_ms < PM_MX_SLICE_MIN || p->slice_ms > PM_MX_SLICE_MAX)
                return PROGRAM_BAD_SLICE;
        for (size_t k = 1; k < p->n_sets; k++)
                if ((p->sets[k].mode & agree) != (p->sets[0].mode & agree))
                        return PROGRAM_SET_MODES_DISAGREE;
        return PROGRAM_OK;
}

/* Every set by the scope's rules; the first error wins, naming set * MAX_COUNTERS + counter. */
static ProgramError program_check_each(const Program *p, const EventTable *t, uint32_t allowed_bits,
                                       uint32_t conflicts_with_proctree, int *ret_counter) {
        for (size_t k = 0; k < program_n_sets(p); k++) {
                Program one = program_set(p, k);
                int counter = 0;
                ProgramError e = program_check(&one, t, allowed_bits, conflicts_with_proctree, &counter);

                if (e != PROGRAM_OK) {
                        /* A counter is named with its set; a group by its id alone. */
                        if (ret_counter)
                                *ret_counter = e == PROGRAM_UNKNOWN_GROUP ? counter : (int) k * MAX_COUNTERS + counter;
                        return e;
                }
        }
        return PROGRAM_OK;
}

ProgramError program_check_thread(const Program *p, const EventTable *t, int *ret_counter) {
        return program_check_each(p, t, MODE_THREAD_BITS, 0, ret_counter);
}

ProgramError program_check_group(const Program *p, const EventTable *t, int *ret_counter) {
        return program_check_each(p, t, MODE_THREAD_BITS, PM_PROCESS, ret_counter);
}

ProgramError program_check_system(const Program *p, const EventTable *t, int *ret_counter) {
        return program_check_each(p, t, MODE_SYSTEM_BITS, 0, ret_counter);
}

bool program_proctree(const Program *p) {
        return p->mode & PM_PROCTREE;
}

bool program_inherits(const Program *p) {
        return !(p->mode & PM_NO_INHERIT);
}

bool program_counts_kernel(const Program *p) {
        for (size_t k = 0; k < program_n_sets(p); k++)
                if (p->sets[k].mode & PM_KERNEL)
                        return true;
        return false;
}

bool program_counts_on_start(const Program *p) {
        return p->mode & PM_COUNT;
}

Program program_with_count(const Program *p, bool counting) {
        Program r = *p;

        for (size_t k = 0; k < program_n_sets(p); k++)
                r.sets[k].mode = counting ? (r.sets[k].mode | PM_COUNT) : (r.sets[k].mode & ~(uint32_t) PM_COUNT);
        return r;
}

bool program_owner_may_count_kernel(const Program *p, const EventTable *t) {
        for (size_t k = 0; k < program_n_sets(p); k++) {
                int32_t events[MAX_COUNTERS];

                if (!program_set_events(&p->sets[k], t, events))
                        return false;
                for (int c = 0; c < MAX_COUNTERS; c++) {
                        const Event *e;
                        if (events[c] == COUNT_NOTHING)
                                continue;
                        e = event_table_find(t, events[c]);
                        if (!e || !e->owner_may_count_kernel)
                                return false;
                }
        }
        return true;
}

void program_encode(const Program *p, const EventTable *t, ProgramEncoding *ret) {
        ProgramEncoding enc = {};
        int32_t events[MAX_COUNTERS];

        (void) program_set_events(&p->sets[0], t, events);
        for (int c = 0; c < MAX_COUNTERS; c++) {
                const Event *e;
                struct perf_event_attr *a;

                if (events[c] == COUNT_NOTHING)
                        continue;
                e = event_table_find(t, events[c]);
                a = &enc.attrs[enc.n_events];
                *a = e->attr;
                a->size = sizeof(*a);
                a->disabled = enc.n_events == 0;        /* the leader switches the whole group */
                a->exclude_user = !(p->mode & PM_USER);
                a->exclude_kernel = !(p->mode & PM_KERNEL);
                a->exclude_hv = 1;
                a->exclude_idle = !!(p->mode & MODE_RUNLATCH_BIT);     /* a thread is never the idle task */
                a->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                                 PERF_FORMAT_TOTAL_TIME_RUNNING;
                enc.slot[enc.n_events++] = c;
        }
        *ret = enc;
}

void program_spread_values(const ProgramEncoding *enc, const uint64_t *values, int64_t accu[MAX_COUNTERS]) {
        memset(accu, 0, sizeof(int64_t) * MAX_COUNTERS);
        for (size_t i = 0; i < enc->n_events; i++)
                accu[enc->slot[i]] = (int64_t) values[i];
}
