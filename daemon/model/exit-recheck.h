/* exit-recheck.h: a second look at contexts attached while their thread may have been exiting.
 * Where thread exits come from the fork watch's EXIT records, the kernel writes a thread's record
 * early in its exit, before its pin stops saying alive: pmapid can read and drop that record (no
 * context yet) and then attach the thread, pin alive, from its FORK record or a call. Nothing would
 * ever release that context. So each such attach is looked at again a little later
 * (EXIT_RECHECK_DELAY_USEC, past almost any exit's end), and a context whose thread is gone by then
 * is released as at its exit; one whose thread is still in its exit (PF_EXITING: preempted there,
 * a low priority on a busy CPU) is looked at again, for EXIT_RECHECK_MAX_TRIES at most. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#define EXIT_RECHECK_DELAY_USEC (50u * 1000u)
#define EXIT_RECHECK_MAX_TRIES 200      /* 10 s of an exit in progress */

typedef struct ExitRecheck ExitRecheck;

/* check(tid, attached_ns, userdata) is called for each context added, after the delay; it returns
 * true to be called again after another delay (the thread is still exiting). */
typedef bool (*ExitRecheckFn)(pid_t tid, uint64_t attached_ns, void *userdata);

int exit_recheck_new(sd_event *event, ExitRecheckFn check, void *userdata, ExitRecheck **ret);
ExitRecheck *exit_recheck_free(ExitRecheck *r);
/* The context of thread tid attached at attached_ns (its identity with the tid): -ENOMEM only. */
int exit_recheck_add(ExitRecheck *r, pid_t tid, uint64_t attached_ns);
/* Whether thread tid of process pid is in its exit (its /proc stat's PF_EXITING), false if gone or
 * unreadable. */
bool thread_exiting(pid_t pid, pid_t tid);
