/* missed.h: the threads that should have joined a counting group and could not (a per-user or
 * total limit, pmapid out of fds, the kernel refusing their counters), so that the group counts a
 * thread's miss once however many ways it was tried (its fork record, then its library's Inherit),
 * and so that the thread itself, asking for its context, is told why it has none. A thread is known
 * by its pin identity (thread_pin_id(): a pidfs inode, or its start time and tid), never by its
 * tid alone. Bounded: past MISSED_MAX threads, misses are no longer
 * remembered (the group still counts them, perhaps twice: it is marked partial either way). */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define MISSED_MAX 65536

typedef struct MissedThreads MissedThreads;

MissedThreads *missed_new(void);
MissedThreads *missed_free(MissedThreads *t);
/* Thread tid of pid (pinned by pidfd: its identity) missed group group_id for error (a negative
 * errno). False if this miss was recorded already. */
bool missed_add(MissedThreads *t, pid_t pid, pid_t tid, int pidfd, unsigned group_id, int error);
/* The group thread tid of pid missed, and why, if it is the thread that did. */
bool missed_find(MissedThreads *t, pid_t pid, pid_t tid, unsigned *ret_group, int *ret_error);
/* The thread exited, or its group went. */
void missed_forget_tid(MissedThreads *t, pid_t pid, pid_t tid);
void missed_forget_group(MissedThreads *t, unsigned group_id);
size_t missed_count(const MissedThreads *t);
