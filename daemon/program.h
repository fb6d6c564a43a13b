/* program.h: what a client asks a context to count (AIX pm_prog_t: a mode word and one event id
 * per counter), the checks AIX makes on it for the thread scope, and its perf encoding. Pure: no
 * system calls. */
#pragma once

#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event-table.h"
#include "pmapi.h"

typedef struct Program {
        uint32_t mode;                  /* pm_mode_t.w as the client gave it */
        int32_t events[MAX_COUNTERS];   /* event id or COUNT_NOTHING per counter */
} Program;

typedef enum ProgramError {
        PROGRAM_OK,
        PROGRAM_UNKNOWN_EVENT,          /* an id the catalog does not have */
        PROGRAM_INVALID_MODE,           /* a mode bit the scope does not take */
        PROGRAM_CONFLICTING_MODE,       /* proctree with no_inherit, or with a process group */
        PROGRAM_THRESHOLD,
        PROGRAM_HYPERVISOR,
        PROGRAM_EVENT_GROUPS,
        PROGRAM_NO_EVENTS,              /* every counter is COUNT_NOTHING */
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

/* Checks a program for a thread context; on PROGRAM_UNKNOWN_EVENT *ret_counter names the counter. */
ProgramError program_check_thread(const Program *p, const EventTable *t, int *ret_counter);
/* The same for a group: PM_PROCESS makes a process group there, which PM_PROCTREE contradicts. */
ProgramError program_check_group(const Program *p, const EventTable *t, int *ret_counter);
/* The same for the system scope: PM_NO_INHERIT and PM_PROCESS are not allowed. */
ProgramError program_check_system(const Program *p, const EventTable *t, int *ret_counter);
bool program_proctree(const Program *p);
/* Whether threads created by a thread with this program get a context (not PM_NO_INHERIT). */
bool program_inherits(const Program *p);
bool program_counts_kernel(const Program *p);
bool program_counts_on_start(const Program *p);
/* p with its count bit set to a current state, as get_program reports it. */
Program program_with_count(const Program *p, bool counting);
/* Whether every event of a checked program is one the owner may count in kernel mode. */
bool program_owner_may_count_kernel(const Program *p, const EventTable *t);
/* Perf attributes for a checked program: one group, leader first and disabled. */
void program_encode(const Program *p, const EventTable *t, ProgramEncoding *ret);
/* Spreads group values (encoding order) over the counters; unused counters read 0. */
void program_spread_values(const ProgramEncoding *enc, const uint64_t *values, int64_t accu[MAX_COUNTERS]);
