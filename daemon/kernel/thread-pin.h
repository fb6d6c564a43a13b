/* thread-pin.h: a pin of one thread, the kernel's promise that what pmapid checked about a tid is
 * still about the same thread, whatever kernel pmapid runs on.
 *
 * Where the kernel has thread pidfds (pidfd_open(tid, PIDFD_THREAD), Linux 6.9) a pin is one: it
 * polls readable when the thread exits, and its pidfs inode names the thread for the boot.
 * Before 6.9 a pin is a directory fd of /proc/<tid>/task/<tid>. The kernel ties it to that task's
 * struct pid: once the thread is gone nothing resolves under it, even after its tid is given to a
 * new thread, which gets a struct pid of its own. Such a pin does not poll, so pmapid learns of
 * exits from its fork watch (perf EXIT records), and the thread's identity is its start time
 * (stat's starttime, 10 ms ticks) with its tid: two threads with one tid in one tick would need the
 * kernel's whole pid space to wrap within 10 ms. Either kind keeps the guarantee the callers rely
 * on: a pin that says alive is the thread that was pinned. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef enum ThreadPinKind {
        THREAD_PIN_PIDFD,               /* PIDFD_THREAD pidfds: Linux 6.9 and later */
        THREAD_PIN_PROCFS,              /* /proc/<tid>/task/<tid> directory fds: any kernel */
        _THREAD_PIN_KIND_MAX,
        _THREAD_PIN_KIND_INVALID = -1,
} ThreadPinKind;

/* Chooses the kind once for the process: thread pidfds where this kernel has them, /proc otherwise.
 * PMAPID_THREAD_PINS=procfs in the environment chooses /proc on any kernel (the tests run both kinds
 * on one machine). Returns the kind, or -errno when neither works (no /proc). */
int thread_pins_init(void);
ThreadPinKind thread_pins_kind(void);
const char *thread_pin_kind_name(ThreadPinKind k);
/* Whether a pin polls readable at its thread's exit (sd_event_add_io on it tells the exit). */
bool thread_pins_poll(void);

/* Pins thread tid (of any process): an fd, or -1 with errno (ESRCH: no such thread; EMFILE, ENFILE:
 * out of fds). */
int thread_pin_open(pid_t tid);
/* Whether the pinned thread still runs (not exited, not a zombie). */
bool thread_pin_alive(int pin);
/* The pinned thread's identity for the boot, the same for every pin of that thread and different
 * from any other thread's; 0 if it cannot be read (the thread is gone). */
uint64_t thread_pin_id(int pin);

/* Whether the process a process pidfd (pidfd_open(pid, 0), any kernel since 5.3) names still runs. */
bool process_pin_alive(int pidfd);

/* Testing only: the kind for the rest of the process. */
void thread_pins_set_kind(ThreadPinKind k);
