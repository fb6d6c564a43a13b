/* bus.h: libpmapi's one connection to pmapid on the system bus, shared by all threads behind a
 * lock and replaced in a forked child. */
#pragma once

#include <systemd/sd-bus.h>

/* Calls method on the Manager with arguments appended by types/...; returns 0 or a PM_E* code.
 * ret_reply may be NULL. */
int bus_call(const char *method, sd_bus_message **ret_reply, const char *types, ...);
/* The same, with the first-party target (getpid(), gettid()) as the first two arguments. */
int bus_call_self(const char *method, sd_bus_message **ret_reply, const char *types, ...);
