/* local-share.h: the pages pmapid shares with a thread that reads and switches its own context's
 * counters in process (include/internal/local-page.h says what they hold and why): a read-only
 * page that says whether the handle is still the context's, and a page the thread writes with its
 * own switches. Both are sealed memfds made when the thread asks (OpenLocal) and sent to it; pmapid
 * keeps only its maps (no fd), and clears `valid` when the context goes, so that a handle the
 * thread still holds falls back to the bus. A thread that asks again gets new pages. */
#pragma once

#include <stdbool.h>

#include "context.h"

/* New pages for c (the old ones, if any, are taken in and invalidated): *ret_page and *ret_state
 * are the caller's to send and close. -EOPNOTSUPP for a context without a private leader. */
int local_share_open(Context *c, int *ret_page, int *ret_state);
/* The context's time base changed (a reset, or one the thread made, taken in): the page says so,
 * inside the seqlock, for the thread's own reads of its counted time. */
void local_share_publish_base(Context *c);
/* The handle no longer reads this context: valid = 0, inside the seqlock. */
void local_share_invalidate(Context *c);
/* Invalidates and unmaps: the context is freed, or pmapid re-executes (the new image makes new
 * pages when the thread asks again). The caller takes the thread's last switches in first
 * (context_sync_local). */
void local_share_close(Context *c);
