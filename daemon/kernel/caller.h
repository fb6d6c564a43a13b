/* caller.h: who is calling (bus credentials only, never arguments), whether a thread is the
 * caller's, and the kernel's perf_event_paranoid policy applied to the caller. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>
#include "thread-pin.h"

#define CALLER_MAX_GROUPS 32

typedef struct Caller {
        pid_t pid;
        uid_t euid;
        gid_t egid;                     /* for the access rule's group check; (gid_t) -1 if unknown */
        /* Supplementary groups: those the bus reported for the connection that the process still
         * holds (access-policy.h); at most CALLER_MAX_GROUPS, the rest not seen (no grant, never
         * more). */
        gid_t groups[CALLER_MAX_GROUPS];
        unsigned n_groups;
        bool egid_vouched;              /* egid was among the bus's groups: it may grant too */
} Caller;

/* Brings c to what the kernel says of its process now, at every call (caller-cache.c): -ESTALE if
 * it runs as another effective user than the one that connected (a privilege drop ends the
 * connection's rights; libpmapi then reconnects as who it is now); its effective gid as it is now
 * (no longer vouched by the bus if it changed); of the bus's groups only those it still holds, so
 * a group given up grants nothing. Groups only ever go: a pid reused meanwhile grants nothing
 * either. pin is the caller's pidfd, checked again after. The groups are read only when want_groups
 * (the policy names groups): then from /proc (~11 µs); otherwise the ids come from the pidfd with
 * one ioctl where the kernel has PIDFD_GET_INFO (6.13), from /proc before. */
int caller_follow_process(Caller *c, int pin, bool want_groups);
/* Whether gid is one of the caller's groups for the policy: a supplementary group, or its primary
 * group where the bus vouched for it (not one a set-group-ID program took after connecting). */
bool caller_in_group(const Caller *c, gid_t gid);

/* The broker vouches for the sender's PID and EUID as they were when it connected; nothing else
 * is trusted. The process behind that PID is pinned with a pidfd (*ret_pin, the caller's to keep
 * and close) and must still run with that EUID: otherwise -ESTALE, the connection's process is
 * gone (a forked child holds the connection of an exited parent, its PID given to another process)
 * or became another user. The broker does not say the sender's primary group: its egid is read
 * from /proc/<pid>/status under the pin. Asked once per connection (caller-cache.c), which then
 * checks the pin at every call. */
int caller_from_message(sd_bus_message *m, Caller *ret, int *ret_pin);
/* The same from the PID, EUID and supplementary groups the bus gave for a connection
 * (GetConnectionCredentials; groups may be NULL: none known). */
int caller_from_creds(pid_t pid, uid_t euid, const gid_t *groups, size_t n_groups, Caller *ret, int *ret_pin);
/* What the kernel says of process pid's identity now (/proc/<pid>/status, one read). */
typedef struct ProcIds {
        uid_t euid;
        gid_t egid;
        gid_t groups[CALLER_MAX_GROUPS * 4];    /* beyond: not seen, so never granting */
        unsigned n_groups;
} ProcIds;

/* -ESRCH if pid is gone. Read it under a pin. */
int proc_read_ids(pid_t pid, ProcIds *ret);

/* Pins thread tid of process pid (thread-pin.h). -ESRCH if tid is not a live thread of pid. The pin
 * says "the thread the caller meant"; check it again with thread_pin_alive() after acting, since a
 * tid may be reused between the two looks. */
int thread_pin(pid_t pid, pid_t tid, int *ret_pidfd);
/* The PPid of process pid from /proc, or -1 if it is gone. */
pid_t proc_parent_pid(pid_t pid);

/* /proc/sys/kernel/perf_event_paranoid; an unreadable value counts as the most restrictive. */
int perf_event_paranoid(void);

typedef enum CountVerdict {
        COUNT_ALLOWED,
        COUNT_DENIED,                   /* no unprivileged perf at all (paranoid >= 3) */
        COUNT_KERNEL_DENIED,            /* user mode yes, kernel mode no */
        _COUNT_VERDICT_MAX,
        _COUNT_VERDICT_INVALID = -EINVAL,
} CountVerdict;

/* May a caller count its own thread in the mode asked? Root always; otherwise what the kernel
 * would allow that caller with perf_event_open: user mode with paranoid <= 2, kernel mode with
 * paranoid <= 1, and kernel mode of events the owner sees anyway (getrusage, /proc) whatever the
 * setting. Capabilities are not trusted: they cannot be read safely through the bus. */
CountVerdict caller_may_count(uid_t euid, int paranoid, bool wants_kernel, bool owner_may_count_kernel);
