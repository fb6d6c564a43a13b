/* inherit.h: AIX inheritance on the library side. New threads created with pthread_create(), and
 * children created with fork(), ask pmapid for their creator's PM state before any user code runs.
 * The library asks only when it knows the creator has a context that passes its state on; pmapid
 * decides, and attaches other new threads late from perf fork records. */
#pragma once

#include <stdbool.h>

#include "inherit-env.h"
#include "pmapi.h"

/* The calling thread now has (or no longer has) a context whose state new threads inherit. Where
 * pmapid inherits inside the kernel (bus_kernel_inherits()), its new threads and children are born
 * counting and the library asks nothing; otherwise they ask before they run. */
void inherit_note_thread(bool inherits);
/* The same for a multi-set program (_mx), whose new threads pmapid never makes in the kernel: they
 * always ask. */
void inherit_note_thread_sets(bool inherits);
/* The calling thread now has program prog, which passes on unless PM_NO_INHERIT: its new threads
 * are born counting where pmapid carries each of its events inside the kernel (its CarriedEvents:
 * software events; a hardware event of CarriedHardwareEvents where its thread's context says its
 * creations are born counting, which costs one bus call), and ask otherwise. */
void inherit_note_program(const pm_prog_t *prog);
/* Every thread of this process is now (or no longer) in a process group that new threads join. */
void inherit_note_process(bool inherits);
