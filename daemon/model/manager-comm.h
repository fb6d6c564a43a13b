/* manager-comm.h: contexts follow their threads' names. A context takes its creator's name when
 * it is inherited (the kernel copies it at clone; inherit.c), or reads it from /proc when a caller
 * makes it (manager.c); after that, perf COMM records from the fork watch (exec,
 * prctl(PR_SET_NAME), pthread_setname_np) update it, so that a dead member's record in its group
 * carries the last name the thread had: a command's main thread is named after the command, not
 * after the program that forked it. */
#pragma once

#include "manager.h"

/* Hands the fork watch's COMM records to the contexts (call once the fork watch exists). */
void manager_watch_comm(Manager *m);
/* Applies the COMM records the kernel has written so far, and nothing else: no context is attached
 * or released under the caller. A no-op without a fork watch. */
void manager_flush_comm(Manager *m);
