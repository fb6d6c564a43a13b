/* reply-mx.h: the argument and reply shapes of the multi-set calls (_mx, _mm; pm_set_program_mx(3)),
 * shared by every scope, as reply.h is for the single-set calls. A program goes on the bus as
 * (i slice_ms, b multi_mode, a(iai) sets), a set being (mode, events); a read comes back as
 * (a(axtt) sets, t timestamp[, i members, u flags], u rounds), a set being (raw counts, enabled ns,
 * running ns). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "pmapi.h"
#include "reply.h"

/* Checks prog before any bus call (PM_EFAULT, PM_ENOTINIT, PM_EMXSETS, PM_EMXSLICE, then each set
 * against the installed catalog as call_set_program() does: PM_EEVENT) and calls
 * method(target, slice_ms, multi_mode, sets). An _mx program sends its one mode in every set. */
int call_set_program_mx(const char *method, CallTarget t, const pm_prog_mx_t *prog);
int call_set_program_mm(const char *method, CallTarget t, const pm_prog_mm_t *prog);
/* Calls method on the target and hands its (slice_ms, multi_mode, sets) reply to prog: events_set
 * or prog_set malloc'd for the caller to free; an _mx program takes set 0's mode. On every error
 * but PM_EFAULT, the set array is NULL and the number of sets 0. */
int call_get_program_mx(const char *method, CallTarget t, pm_prog_mx_t *prog);
int call_get_program_mm(const char *method, CallTarget t, pm_prog_mm_t *prog);

/* What every data read does first: PM_EFAULT for a NULL data, else data->accu_set NULL and
 * nb_accu_mx 0 (so that an error leaves nothing to free), then PM_ENOTINIT before pm_init. */
int begin_data_mx(pm_data_mx_t *data);
/* Calls method on the target and reads its data reply (with members and flags when group) into
 * data and time (may be NULL), as reply_read_data_mx() does. */
int call_get_data_mx(const char *method, CallTarget t, bool group, pm_data_mx_t *data,
                     timebasestruct_t *time);
/* Reads a (sets, timestamp[, members, flags], rounds) reply into data (accu_set malloc'd, for the
 * caller to free; ginfo zero unless group) and time (may be NULL). On error data->accu_set is NULL
 * and nb_accu_mx 0; the rest of data, and time, are not changed. */
int reply_read_data_mx(sd_bus_message *reply, bool group, pm_data_mx_t *data, timebasestruct_t *time);

/* The pieces of the program calls, for the unit test. */
typedef struct MxSet {
        int32_t mode;
        int32_t events[MAX_COUNTERS];
} MxSet;

/* A program of several sets as it travels: from a pm_prog_mx_t or pm_prog_mm_t to SetProgramMx,
 * and from GetProgramMx's reply to the caller. The sets past n_sets are zero. */
typedef struct MxProgram {
        int32_t slice_ms;
        bool multi_mode;
        unsigned n_sets;
        MxSet sets[PM_MX_MAX_SETS];
} MxProgram;

/* The arguments of SetProgramMx after the target, for sd_bus_message_append(m, MX_PROGRAM_TYPES,
 * MX_PROGRAM_ARGS(p)): every one of the PM_MX_MAX_SETS sets is passed, and sd-bus reads the first
 * n_sets of them, leaving the rest unread (as C allows of variable arguments). */
#define MX_PROGRAM_TYPES "iba(iai)"
#define MX_SET_ARGS(p, k)                                                                       \
        (p)->sets[k].mode, (unsigned) MAX_COUNTERS, (p)->sets[k].events[0], (p)->sets[k].events[1], \
        (p)->sets[k].events[2], (p)->sets[k].events[3], (p)->sets[k].events[4],               \
        (p)->sets[k].events[5], (p)->sets[k].events[6], (p)->sets[k].events[7]
#define MX_PROGRAM_ARGS(p)                                                                      \
        (p)->slice_ms, (int) (p)->multi_mode, (p)->n_sets,                                      \
        MX_SET_ARGS(p, 0), MX_SET_ARGS(p, 1), MX_SET_ARGS(p, 2), MX_SET_ARGS(p, 3),            \
        MX_SET_ARGS(p, 4), MX_SET_ARGS(p, 5), MX_SET_ARGS(p, 6), MX_SET_ARGS(p, 7),            \
        MX_SET_ARGS(p, 8), MX_SET_ARGS(p, 9), MX_SET_ARGS(p, 10), MX_SET_ARGS(p, 11),          \
        MX_SET_ARGS(p, 12), MX_SET_ARGS(p, 13), MX_SET_ARGS(p, 14), MX_SET_ARGS(p, 15)
_Static_assert(MAX_COUNTERS == 8 && PM_MX_MAX_SETS == 16, "MX_PROGRAM_ARGS spells out 16 sets of 8 events");

/* The checks and layout of call_set_program_mx() and _mm, without the call. */
int mx_program_from_mx(const pm_prog_mx_t *prog, MxProgram *ret);
int mx_program_from_mm(const pm_prog_mm_t *prog, MxProgram *ret);
/* Reads a (slice_ms, multi_mode, sets) reply into ret: 1 to PM_MX_MAX_SETS sets of MAX_COUNTERS
 * events, or PM_EDAEMON. */
int reply_read_program_mx(sd_bus_message *reply, MxProgram *ret);
/* p's sets into prog, as a malloc'd array; an _mx program takes set 0's mode. Returns 0 or
 * PM_ENOMEM; prog is not changed on error. */
int mx_program_to_mx(const MxProgram *p, pm_prog_mx_t *prog);
int mx_program_to_mm(const MxProgram *p, pm_prog_mm_t *prog);
