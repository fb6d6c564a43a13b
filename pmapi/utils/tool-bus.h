/* tool-bus.h: the tools' own calls to pmapid, for what libpmapi has no AIX function for
 * (ListContexts, GetGroupMembers): a connection of their own, and failures as libpmapi's codes. */
#pragma once

#include <stdbool.h>
#include <systemd/sd-bus.h>

/* Calls method on the Manager with arguments appended by types/... (types may be NULL). 0 and the
 * reply, which the caller unrefs, or the PM_E* code of the failure (PMAPI_DEBUG prints it). */
int tool_bus_call(const char *method, sd_bus_message **ret_reply, const char *types, ...);

/* Whether pmapid carries a program of these events (COUNT_NOTHING ignored) inside the kernel, as
 * the calling thread's context was just set with them: it inherits there, and each is in its
 * CarriedEvents (software events) or, where that thread's context says its creations are born
 * counting, in its CarriedHardwareEvents (the PMU had room). False on any error. */
bool tool_bus_kernel_carries(const int *ids, size_t n);
