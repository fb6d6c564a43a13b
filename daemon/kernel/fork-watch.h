/* fork-watch.h: which thread created each new thread or process on the machine, and what threads
 * are called. The netlink process connector reports only the creator's process
 * (task->real_parent), never the creating thread, which AIX inheritance needs; perf's own
 * PERF_RECORD_FORK side-band records carry it (ptid), and PERF_RECORD_COMM records carry each new
 * name. One dummy perf event per online CPU feeds a ring buffer each; this module drains them and
 * hands the records to two handlers. It knows nothing about contexts. CPUs that come online after
 * fork_watch_new() are not watched. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

typedef struct ForkWatch ForkWatch;

/* Called once per new task, in kernel time order across CPUs: pid/tid of the new task, ppid/ptid of
 * the creating task (ptid is the creating THREAD). time_ns is CLOCK_MONOTONIC. The order holds within
 * one drain; a record the kernel is writing while a drain runs comes with the next one. The handler
 * must not free the ForkWatch; a fork_watch_flush() from inside it does nothing. */
typedef void (*ForkWatchHandler)(pid_t pid, pid_t tid, pid_t ppid, pid_t ptid, uint64_t time_ns,
                                 void *userdata);

/* A thread's name changed: an exec, prctl(PR_SET_NAME), pthread_setname_np. comm is what the
 * kernel reported (at most FORK_WATCH_COMM_MAX - 1 bytes), time_ns CLOCK_MONOTONIC. Called in kernel
 * order with the fork records. */
#define FORK_WATCH_COMM_MAX 16
typedef void (*ForkWatchCommHandler)(pid_t pid, pid_t tid, const char *comm, uint64_t time_ns,
                                     void *userdata);

/* A task exited (PERF_RECORD_EXIT), at CLOCK_MONOTONIC time_ns, in kernel order with the others. */
typedef void (*ForkWatchExitHandler)(pid_t pid, pid_t tid, uint64_t time_ns, void *userdata);
/* The kernel lost records (a ring overflowed): exits and births among them went unseen. n_lost 0:
 * a ring was full and then quiet for FORK_WATCH_QUIET_USEC, so a loss may be there that the kernel
 * has not yet reported (it reports with the next record on that CPU). */
typedef void (*ForkWatchLostHandler)(uint64_t n_lost, void *userdata);
#define FORK_WATCH_QUIET_USEC (50 * 1000)

/* Needs CAP_PERFMON (or root): -EACCES/-EPERM come back unchanged so the daemon can log and run
 * without thread-creation tracking. */
int fork_watch_new(sd_event *event, ForkWatchHandler handler, void *userdata, ForkWatch **ret);
/* Lazy, the handlers run up to FORK_WATCH_LAZY_USEC after a record (or at fork_watch_flush()), and
 * the rings are not polled: for a daemon to whom a late record costs nothing (the kernel counts new
 * threads from their birth, heirs.h). Otherwise (the start) every record wakes the watch. */
#define FORK_WATCH_LAZY_USEC (20 * 1000)
void fork_watch_set_lazy(ForkWatch *w, bool lazy);
ForkWatch *fork_watch_free(ForkWatch *w);

/* Records are only produced while enabled (the daemon enables it while any context exists). Starts
 * disabled. Disabling drops records not yet delivered: nobody is left to want them. */
int fork_watch_set_enabled(ForkWatch *w, bool enabled);

/* Drains every CPU's buffer now and calls the handler (the daemon calls this before answering a call
 * whose answer depends on recent thread creations). The kernel writes a record before clone() returns
 * to the creator, so a creation the caller already knows about is always seen; where a ring was
 * nearly full, a loss the kernel has not yet reported is reported now (the lost handler, n_lost 0). */
void fork_watch_flush(ForkWatch *w);

/* Names are dropped until a handler is set. */
void fork_watch_set_comm_handler(ForkWatch *w, ForkWatchCommHandler handler, void *userdata);
/* Exits are dropped until a handler is set; lost may be NULL. */
void fork_watch_set_exit_handler(ForkWatch *w, ForkWatchExitHandler exited, ForkWatchLostHandler lost,
                                 void *userdata);
/* Drains every CPU's buffer now but hands on only the COMM records; fork records wait for the next
 * turn of the event loop. For a caller that must not see contexts attached under it (a thread's
 * exit handler that wants its last name), and safe wherever fork_watch_flush() is. */
void fork_watch_flush_comm(ForkWatch *w);

/* A handover to pmapid's next image (handover.h): the dummy event of each CPU watched (at most max
 * of them in ret_cpus/ret_fds, their number returned; they stay w's) and whether they run. Call
 * fork_watch_flush() first: records read but not yet handed on would be lost. */
size_t fork_watch_fds(const ForkWatch *w, unsigned *ret_cpus, int *ret_fds, size_t max);
/* In ret_cpus, the lazy ring of a CPU (fork-watch.c) has this bit set. */
#define FORK_WATCH_LAZY_RING 0x80000000u
bool fork_watch_enabled(const ForkWatch *w);
/* The watch again, on the events and rings fork_watch_fds() gave: records written meanwhile are
 * read from where the old image stopped. Takes the fds, even on failure. */
int fork_watch_adopt(sd_event *event, ForkWatchHandler handler, void *userdata, const unsigned *cpus,
                     const int *fds, size_t n, bool enabled, ForkWatch **ret);

/* Records lost by the kernel since start (PERF_RECORD_LOST), for logging / tests. */
uint64_t fork_watch_n_lost(const ForkWatch *w);
