/* caller-cache.h: bus credentials of connected clients, keyed by unique bus name. Asking the broker
 * for a sender's credentials is a synchronous round trip; a unique name is never reused and its
 * PID and EUID are fixed when it connects, so they are asked once per connection and forgotten when
 * the broker says the connection is gone. The process behind the PID is pinned at that first call;
 * every later call checks the pin, and once that process has exited the connection gets -ESTALE,
 * whoever holds it now. Every call also reads who the process is now (caller_follow_process): one
 * that runs as another effective user than the one that connected gets -ESTALE too, and its
 * effective gid and groups are those it holds now. */
#pragma once

#include <glib.h>
#include <systemd/sd-bus.h>

#include "caller.h"

typedef struct CallerCache {
        GHashTable *by_name;            /* unique name -> CallerEntry* (caller-cache.c) */
        sd_bus_slot *match;
} CallerCache;

int caller_cache_new(sd_bus *bus, CallerCache **ret);
CallerCache *caller_cache_free(CallerCache *c);
/* want_groups: the caller's supplementary groups matter (the access policy names groups). */
int caller_cache_get(CallerCache *c, sd_bus_message *m, bool want_groups, Caller *ret);
/* Whether sender's credentials are known (caller-lookup.h asks the bus for them without waiting). */
bool caller_cache_knows(CallerCache *c, const char *sender);
/* The PID, EUID and supplementary groups the bus gave for sender; its first call pins it. */
int caller_cache_put_creds(CallerCache *c, const char *sender, pid_t pid, uid_t euid, const gid_t *groups,
                           size_t n_groups);
