/* context.h: one thread's counting context: its program, its counting state and its counter group.
 * No D-Bus and no event loop here: the manager owns contexts and watches their threads. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "accounting.h"
#include "counter.h"
#include "program.h"

struct Manager;
struct Group;

/* The last changes of a thread's own counting state, so that a thread created at time T inherits
 * the state its creator had at T, even when the creator's next call was handled first. */
#define CONTEXT_STATE_HISTORY 8

/* A thread's name as the kernel keeps it (TASK_COMM_LEN), with its NUL. */
#define CONTEXT_COMM_MAX 16

typedef struct StateChange {
        uint64_t time_ns;               /* CLOCK_MONOTONIC */
        bool counting;                  /* the state from then on */
} StateChange;

/* How a context came to be, for the admin looking at it with busctl. */
typedef enum ContextOrigin {
        CONTEXT_SET_PROGRAM,            /* SetProgram by its own process or a third party */
        CONTEXT_SET_GROUP_PROGRAM,      /* the first member of a group, or a thread a process group took */
        CONTEXT_INHERIT,                /* the new thread asked (libpmapi's pthread_create, fork) */
        CONTEXT_FORK_RECORD,            /* attached by pmapid from a perf fork record */
        _CONTEXT_ORIGIN_MAX,
        _CONTEXT_ORIGIN_INVALID = -EINVAL,
} ContextOrigin;

const char *context_origin_to_string(ContextOrigin o);

/* A multi-set program's sets after the first (_mx/_mm): each its own counter group on the thread,
 * switched, reset and freed with set 0's (which are the context's own fields below). */
typedef struct ContextSet {
        ProgramEncoding encoding;
        CounterGroup *counters;
        CounterTimes time_base;
} ContextSet;

typedef struct Context {
        struct Manager *manager;        /* set by the manager that owns it */
        pid_t pid;
        pid_t tid;
        uid_t owner_uid;                /* euid of the caller that created it */
        uid_t target_uid;               /* euid of the thread when the context was made */
        pid_t creator_pid;              /* the bus caller, or the creating thread's process */
        char comm[CONTEXT_COMM_MAX];    /* the thread's name: its creator's, or read from /proc for a
                                         * context a caller made; then from perf COMM records (exec,
                                         * PR_SET_NAME); "" if unknown */
        ContextOrigin origin;
        const Program *program;         /* as set, shared (program-share.h); the count bit is the
                                         * initial state */
        const ProgramEncoding *encoding;        /* set 0's, shared with the program */
        bool counting;                  /* the thread's own state */
        bool enabled;                   /* the counters run: own state AND the group's */
        bool attached_late;             /* from a fork record, and its library has not called Inherit */
        bool late_heir;                 /* what its thread creates (or its process group's
                                         * non-members) is attached from fork records, not born
                                         * counting: the fork watch must wake at each record */
        StateChange history[CONTEXT_STATE_HISTORY];     /* a ring, newest at next - 1 */
        size_t n_history, next_history;
        struct Group *group;            /* NULL, or the group this thread is a live member of */
        const CounterBackend *backend;
        CounterGroup *counters;
        /* The thread's identity and exit. With pmapid's fork watch running, its EXIT records say when
         * a thread exits and the context keeps no fd for it: thread_ino (thread_pin_id(), unique
         * for the boot) tells the thread from a later one with the same tid. Without the watch, a
         * thread pidfd pins the thread and fires at its exit (thread-pin.h). */
        int pidfd;                      /* -1 if none */
        uint64_t thread_ino;            /* 0 if unknown */
        uint64_t attached_ns;           /* CLOCK_MONOTONIC: an exit record older than this is another's */
        sd_event_source *exit_source;
        size_t group_slot;              /* its index in group->live, while in a group */
        /* Local reads (local-page.h): the counters have a private leader, and once the thread asked
         * (OpenLocal) a page it maps. */
        bool private_leader;
        struct LocalPage *local_page;   /* pmapid's writable map of the page; NULL until asked */
        struct LocalState *local_state; /* the thread's writable page of its own switches */
        uint32_t local_merged;          /* changes of local_state already in history */
        uint32_t local_resets;          /* resets of local_state already taken in */
        CounterTimes time_base;         /* the group's times at its last reset: the kernel keeps them */
        ContextSet *more_sets;          /* sets 1 .. program_n_sets - 1; NULL for a single set */
} Context;

/* Opens the counters (they start at 0) and starts them if the program's count bit is set.
 * Takes ownership of pidfd on success only. */
int context_new(const CounterBackend *backend, const EventTable *events, pid_t pid, pid_t tid,
                uid_t owner_uid, const Program *program, int pidfd, Context **ret);
/* The same with flags: CONTEXT_PRIVATE_LEADER gives the counters a private leader (counter.h) so
 * that the thread may read locally; CONTEXT_STOPPED leaves them stopped whatever the count bit (the
 * caller starts them once the group state is known), the count bit still the initial state. */
#define CONTEXT_PRIVATE_LEADER 1u
#define CONTEXT_STOPPED 2u
int context_new_with(const CounterBackend *backend, const EventTable *events, pid_t pid, pid_t tid,
                     uid_t owner_uid, const Program *program, int pidfd, unsigned flags, Context **ret);
/* A context of a thread born counting in the kernel, about to read itself in process: counters of
 * its own on the thread, with a private leader (counter_bpf_open_local: -EBUSY while the thread
 * runs, -EPERM once a set-id exec sealed it); 0 where it has them. -EOPNOTSUPP for another context
 * without a private leader. */
int context_open_own_counters(Context *c);
/* A context around counters another image of pmapid opened for this program (handover.h): nothing
 * is switched; the caller restores the state fields. counters[k] is set k's group, one per set.
 * Takes the counters and pidfd on success. */
int context_adopt(const CounterBackend *backend, const EventTable *events, pid_t pid, pid_t tid, uid_t owner_uid,
                  const Program *program, CounterGroup **counters, int pidfd, Context **ret);
Context *context_free(Context *c);
int context_start(Context *c);          /* idempotent */
int context_stop(Context *c);           /* idempotent */
/* Brings the counters in line with the thread's and its group's states (after a group change). */
int context_apply_state(Context *c);
int context_reset(Context *c);
/* Records a change of c->counting made outside context_start/stop (group start/stop). */
void context_record_counting(Context *c, bool old_counting);
/* The thread's own counting state at CLOCK_MONOTONIC time t (the state now if t is in the future). */
bool context_counting_at(const Context *c, uint64_t t);
/* The counts and times since the last reset (accounting.h: scaled where the PMU time-shared them;
 * a multi-set program's raw, for the caller to normalise as AIX's _mx asks). Set 0 of a multi-set
 * program; context_read_set() reads any. */
int context_read(Context *c, AcctVector accu);
int context_read_set(Context *c, size_t set, AcctVector accu);
size_t context_n_sets(const Context *c);
/* Set k's counters, encoding and time base (set 0's are the context's own fields). */
CounterGroup *context_set_counters(const Context *c, size_t set);
/* The perf events the context holds over all its sets. */
size_t context_n_events(const Context *c);
/* The program as get_program reports it: the count bit is the current state. */
Program context_get_program(Context *c);
/* The thread's name changed (a perf COMM record): at most CONTEXT_COMM_MAX - 1 bytes are kept. */
void context_set_comm(Context *c, const char *comm);
/* Takes in the switches the thread made itself (local-page.h, LocalState): its state and history. */
void context_sync_local(Context *c);
/* Whether c's thread still runs: its pin says so, or the tid's thread now is the one it was (same
 * thread_pin_id) and has not exited. True when nothing identifies it (unit tests). */
bool context_thread_alive(const Context *c);
/* Reads /proc/<pid>/task/<tid>/comm into c->comm; leaves it alone if the thread is gone. */
int context_read_comm(Context *c);
