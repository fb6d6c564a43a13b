/* program.h: what a client asks a context to count (AIX pm_prog_t: a mode word and one event id
 * per counter), the checks AIX makes on it for the thread scope, and its perf encoding. Pure: no
 * system calls. */
#pragma once

#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event-catalog.h"
#include "pmapi.h"

/* One set of events: a mode word and one event id per counter (AIX pm_prog_t). */
typedef struct ProgramSet {
        uint32_t mode;                  /* pm_mode_t.w as the client gave it */
        int32_t events[MAX_COUNTERS];   /* event id or COUNT_NOTHING per counter */
} ProgramSet;

/* pm_prog_t is one set; pm_prog_mx_t/pm_prog_mm_t up to PM_MX_MAX_SETS of them, each its own perf
 * group, all switched together. mode and events are set 0's (the union): every rule that AIX takes
 * from "the program" (proctree, inheritance, the count bit) reads them. n_sets 0 means 1, so that a
 * Program made as before ({ .mode, .events }) is a single set. */
typedef struct Program {
        union {
                struct {
                        uint32_t mode;
                        int32_t events[MAX_COUNTERS];
                };
                ProgramSet sets[PM_MX_MAX_SETS];
        };
        uint32_t n_sets;
        uint32_t slice_ms;              /* _mx/_mm: as the client gave it; 0 for a pm_prog_t */
        bool multi_mode;                /* _mm: each set has its own mode */
} Program;

typedef enum ProgramError {
        PROGRAM_OK,
        PROGRAM_UNKNOWN_EVENT,          /* an id the catalog does not have */
        PROGRAM_INVALID_MODE,           /* a mode bit the scope does not take */
        PROGRAM_CONFLICTING_MODE,       /* proctree with no_inherit, or with a process group */
        PROGRAM_THRESHOLD,
        PROGRAM_HYPERVISOR,
        PROGRAM_FOREIGN_LAYOUT,         /* a mode word built for another bit-field layout (mode-layout.h) */
        PROGRAM_UNKNOWN_GROUP,          /* is_group with a group id the catalog does not offer */
        PROGRAM_NO_EVENTS,              /* every counter is COUNT_NOTHING */
        PROGRAM_BAD_SLICE,              /* a multi-set slice outside PM_MX_SLICE_MIN..MAX ms */
        PROGRAM_BAD_SETS,               /* no set, or more than the configured maximum */
        PROGRAM_SET_MODES_DISAGREE,     /* _mx sets with different modes; _mm ones with different
                                         * proctree, count, process or no_inherit bits */
        _PROGRAM_ERROR_MAX,
        _PROGRAM_ERROR_INVALID = -EINVAL,
} ProgramError;

/* The counters a program uses, in counter order: slot[i] is the pm_data_t.accu index of the i-th
 * perf event of the group. */
typedef struct ProgramEncoding {
        struct perf_event_attr attrs[MAX_COUNTERS];
        int slot[MAX_COUNTERS];
        size_t n_events;
} ProgramEncoding;

/* The number of sets (1 for a pm_prog_t), and set k as a single-set program. */
size_t program_n_sets(const Program *p);
Program program_set(const Program *p, size_t k);
/* An _mx/_mm program (a slice, whatever its number of sets): raw counts, read through pmapid. */
bool program_multi_set(const Program *p);
/* AIX's nb_mx_round for a time enabled: how many times slice * sets fits in it (0 for a pm_prog_t). */
uint32_t program_rounds(const Program *p, uint64_t enabled_ns);
/* The events of every set: the perf events (and fds) a context of p holds. */
size_t program_n_events(const Program *p, const EventTable *t);
/* The events a set counts: its own, or with mode.b.is_group those of the group events[0] names
 * (COUNT_NOTHING everywhere, and false, for a group the catalog does not offer). */
#define MODE_IS_GROUP_BIT 0x20u
bool program_set_events(const ProgramSet *s, const EventTable *t, int32_t ret[MAX_COUNTERS]);
/* A multi-set program's shape: 1..max_sets sets, its slice, and its sets' modes (every set's the
 * same for _mx; for _mm the same proctree, count, process and no_inherit bits: each is the
 * context's or group's, not a set's). PROGRAM_OK for a single set. Each set is
 * then checked as a program of its own by the scope's check below. */
ProgramError program_check_sets(const Program *p, size_t max_sets);
/* Checks a program for a thread context; on PROGRAM_UNKNOWN_EVENT *ret_counter names the counter
 * (set * MAX_COUNTERS + counter for a multi-set program). */
ProgramError program_check_thread(const Program *p, const EventTable *t, int *ret_counter);
/* The same for a group: PM_PROCESS makes a process group there, which PM_PROCTREE contradicts. */
ProgramError program_check_group(const Program *p, const EventTable *t, int *ret_counter);
/* The same for the system scope: PM_NO_INHERIT and PM_PROCESS are not allowed. */
ProgramError program_check_system(const Program *p, const EventTable *t, int *ret_counter);
bool program_proctree(const Program *p);
/* Whether threads created by a thread with this program get a context (not PM_NO_INHERIT). */
bool program_inherits(const Program *p);
/* Whether some set counts in kernel mode. */
bool program_counts_kernel(const Program *p);
bool program_counts_on_start(const Program *p);
/* p with its count bit (in every set) set to a current state, as get_program reports it. */
Program program_with_count(const Program *p, bool counting);
/* Whether every event of a checked program is one the owner may count in kernel mode. */
bool program_owner_may_count_kernel(const Program *p, const EventTable *t);
/* Perf attributes for a checked program's set 0 (program_set() for the others): one group, leader
 * first and disabled. */
void program_encode(const Program *p, const EventTable *t, ProgramEncoding *ret);
/* Spreads group values (encoding order) over the counters; unused counters read 0. */
void program_spread_values(const ProgramEncoding *enc, const uint64_t *values, int64_t accu[MAX_COUNTERS]);
