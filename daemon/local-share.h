/* local-share.h: the page pmapid shares with a thread that reads its own context's counters in
 * process (include/internal/local-page.h says what it holds and why). One sealed memfd per context,
 * made when the thread first asks (OpenLocal); pmapid keeps a writable map and clears `valid` when
 * the context goes, so a handle the thread still holds falls back to the bus. */
#pragma once

#include <stdbool.h>

#include "context.h"

/* The context's page, made on first use: *ret_memfd is pmapid's (the bus dups it into the reply).
 * -EOPNOTSUPP for a context without a private leader (counter.h). */
int local_share_open(Context *c, int *ret_memfd);
/* The handle no longer reads this context: valid = 0, inside the seqlock. */
void local_share_invalidate(Context *c);
/* Invalidates, unmaps and closes: the context is freed, or pmapid re-executes (the new image makes
 * new pages; the thread opens a new handle at its next read). */
void local_share_close(Context *c);
