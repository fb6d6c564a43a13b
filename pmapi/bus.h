/* bus.h: libpmapi's one connection to pmapid on the system bus, shared by all threads behind a
 * lock and replaced in a forked child. */
#pragma once

#include <systemd/sd-bus.h>

#include "macro.h"

/* Calls method on the Manager with arguments appended by types/...; returns 0 or a PM_E* code.
 * ret_reply may be NULL. */
int bus_call(const char *method, sd_bus_message **ret_reply, const char *types, ...);
/* The same, with the first-party target (getpid(), gettid()) as the first two arguments. */
int bus_call_self(const char *method, sd_bus_message **ret_reply, const char *types, ...);
/* Drops a reply of bus_call*(). Use it instead of sd_bus_message_unref(): a reply holds a reference on
 * the shared connection, which only the connection's lock protects. */
sd_bus_message *bus_reply_unref(sd_bus_message *reply);
DEFINE_FREEP(sd_bus_message, bus_reply_unref);
