/* bus-errors.h: the one place where the core's negative errnos and program check results become
 * named D-Bus errors with a message a person can act on. */
#pragma once

#include <sys/types.h>
#include <systemd/sd-bus.h>

#include "access.h"
#include "program.h"

/* Always returns a negative value, for `return bus_error_thread(...)` in handlers. */
int bus_error_thread(sd_bus_error *error, int r, pid_t pid, pid_t tid);
/* The same, where r may be an access refusal: -EPERM with a denying verdict names the reason. */
int bus_error_target(sd_bus_error *error, int r, AccessVerdict refusal, pid_t pid, pid_t tid);
int bus_error_program(sd_bus_error *error, ProgramError e, int counter);
/* A caller that could not be identified: -ESTALE (caller-cache.h) becomes CallerGone. */
int bus_error_caller(sd_bus_error *error, int r);
/* The D-Bus name an errno maps to (for tests and logs). */
const char *bus_error_name_from_errno(int r);
/* The D-Bus name of a refusal by the access rule. */
const char *bus_error_name_from_refusal(AccessVerdict v);
