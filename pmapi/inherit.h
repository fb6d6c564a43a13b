/* inherit.h: AIX inheritance on the library side. New threads created with pthread_create(), and
 * children created with fork(), ask pmapid for their creator's PM state before any user code runs.
 * The library asks only when it knows the creator has a context that passes its state on; pmapid
 * decides, and attaches other new threads late from perf fork records. */
#pragma once

#include <stdbool.h>

/* The calling thread now has (or no longer has) a context whose state new threads inherit. */
void inherit_note_thread(bool inherits);
/* Every thread of this process is now (or no longer) in a process group that new threads join. */
void inherit_note_process(bool inherits);
