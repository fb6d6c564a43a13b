/* workload.h: workloads whose true counts are known, and catalog lookups, shared by the
 * integration tests, the samples' tests and the benchmark. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "pmapi.h"

/* Maps n fresh anonymous pages (no huge pages) and writes one byte to each: exactly n page faults
 * in user mode. Returns 0 or -errno. */
int touch_fresh_pages(size_t n);
/* The id of the event whose short name is name in pm_init's list for counter 0, or -1. */
int find_event_id(const pm_info_t *info, const char *name);
/* A program with event in counter 0, COUNT_NOTHING in the others, and the given mode word. */
void program_one(pm_prog_t *prog, int mode, int event);
/* pm_init(PM_VERIFIED) and a program counting PM_PAGE_FLT on counter 0 and PM_MINOR_FLT on
 * counter 1 with the given mode. Returns 0 or -1. */
int page_fault_program(pm_prog_t *prog, int mode);
/* pmapid's Manager property ThreadsAttachedLate: threads attached from fork records (0 if
 * unreadable). */
/* Whether thread tid of process pid sleeps (state S in /proc): it has left its CPU. */
bool task_sleeps(pid_t pid, pid_t tid);
/* Whether pmapid inherits inside the kernel (its KernelInheritance): new threads born counting. */
bool kernel_inheritance(void);
/* pmapid's CarriedEvents (the events the kernel carries) into ids[0..max-1]; how many it holds. */
size_t carried_events(int32_t *ids, size_t max);
/* pmapid's AmbiguousSlices: slices of born threads that a switch the kernel did not show made
 * ambiguous (a group's total stays exact; two members' rows may trade a few counts). */
uint64_t ambiguous_slices(void);

/* perf stat's count of the calling thread and everything it creates from now: a user-mode page
 * fault counter with perf's own inheritance, or -1. perf_read() reads it (-1 on error). */
int perf_inherit_counter(void);
/* A page-fault counter on the calling thread: with inherit, of everything it creates from now too;
 * user_only: user-mode faults alone. -1 where perf refuses. */
int perf_faults_counter(bool inherit, bool user_only);
long long perf_read(int fd);
/* perf's task clock of thread tid (of this process): the time from each switch onto a CPU to the
 * next switch away, inside the window pmapid's slices measure (they run from switch to switch),
 * so never more than a slice-based task clock over the same time; a read of a running thread is
 * current. An fd, or -1 where perf_event_paranoid refuses it. */
int perf_task_clock_of(pid_t tid);
/* clock_gettime(clock) in nanoseconds. */
long long clock_now_ns(clockid_t clock);

/* A descendant group on the calling thread counting user-mode page faults, beside perf's inherited
 * counter on the same thread: the group's growth over the window is checked against the counter's.
 * open() sets the program and reads the group twice (the second read faults no more), then the
 * counter; close() reads the group, the counter and the group again (a fork write-protected this
 * process's pages: the first read's writes fault inside both windows), and deletes the program.
 * Without perf_optional a refused counter fails open(); with it perf is -1 and p0, p1 stay 0. Each
 * returns 0, or 1 after saying why on stderr. */
typedef struct FaultWindow {
        int perf;
        pm_data_t g0, g1;
        long long p0, p1;
} FaultWindow;
int fault_window_open(FaultWindow *w, bool perf_optional);
int fault_window_close(FaultWindow *w);

/* The kernel's own count of the calling thread's page faults since the thread was created
 * (getrusage RUSAGE_THREAD, minor + major: a new thread's start at 0); -1 on error. */
long long thread_faults(void);

/* A thread's own pm_stop_mythread(), with the kernel's count of its faults just before and just
 * after: where pmapid inherits inside the kernel, what a born thread counted from its first
 * instruction to the stop lies between the two (the stop took effect in between). */
typedef struct KernelView {
        long long before, after;
} KernelView;
int stop_seen_by_kernel(KernelView *k);
uint64_t attached_late(void);
/* A "u" property of pmapid's Manager (ContextCount, RootReserve, ...), or UINT32_MAX if unreadable. */
uint32_t manager_property_u(const char *name);
/* Waits up to timeout_ms until pmapid's Manager reports n contexts; returns 0 or -1. */
int wait_for_context_count(unsigned n, int timeout_ms);
/* The highest online CPU: a workload pinned there is away from CPU 0's daemons. */
int last_online_cpu(void);
/* Runs `taskset -c cpu $PMAPI_TOUCH_PAGES pages` and waits for it: 0 if it touched them all. */
int run_pinned(int cpu, long pages);
/* Stops the system-wide context and reads it: its total, and the sum of counter 0 over every CPU
 * (those never online skipped), read while stopped so that nothing moves in between. 0 or the
 * first PM_E* code. */
int system_stop_and_sum_cpus(pm_data_t *ret_total, long long *ret_sum);

/* A thread born counting (where pmapid inherits inside the kernel) counted its n pages and exactly
 * what the kernel counted of its faults up to the moment its counting stopped, which k brackets.
 * Uses check.h. */
#define CHECK_SEEN_BY_KERNEL(value, n, k)                                                          \
        do {                                                                                       \
                CHECK_RANGE(value, (k).before, (k).after);                                         \
                CHECK((value) >= (long long) (n));                                                 \
        } while (0)
/* The kernel's count now, before and after alike: the last act of a thread that is read without
 * stopping itself, and does nothing that faults before its reader reads it. */
KernelView kernel_view_now(void);
