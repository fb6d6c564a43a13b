/* caller-lookup.h: pmapid learns who a new connection is without waiting for the bus. The first
 * calls of a sender whose credentials are unknown are held, the bus is asked for them
 * (GetConnectionCredentials) without blocking, and the held calls go on to their handlers, in
 * their order, once the answer is in the caller cache. A synchronous query would stop pmapid's
 * one loop until the bus answered, and a bus busy with one user's flood answers late: everyone
 * else waited that long (measured: a new client's first call took a second under 64 x 128 calls
 * in flight). A sender may have CALLER_LOOKUP_MAX_HELD calls held; past that they are refused. */
#pragma once

#include <glib.h>
#include <systemd/sd-bus.h>

#include "caller-cache.h"

#define CALLER_LOOKUP_MAX_HELD 256

typedef struct CallerLookup {
        sd_bus *bus;
        CallerCache *cache;             /* not owned */
        sd_bus_slot *filter;
        GHashTable *held;               /* sender -> GQueue* of calls (each holds a ref) */
        GHashTable *released;           /* calls handed back to sd-bus for dispatch (a set) */
} CallerLookup;

int caller_lookup_new(sd_bus *bus, CallerCache *cache, CallerLookup **ret);
CallerLookup *caller_lookup_free(CallerLookup *l);
/* Senders whose calls wait for their credentials (a re-exec serves them before it goes). */
size_t caller_lookup_n_waiting(const CallerLookup *l);
