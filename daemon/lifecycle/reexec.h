/* reexec.h: pmapid replaces its own image with the binary installed at the path it was started
 * from (an upgrade; `systemctl reload pmapid`; SIGHUP) and keeps its state (handover.h). The order
 * keeps every call: the bus name is released first, so no new call is routed here; the calls
 * routed before are served to the end (with any the caller lookup still holds); then the state is
 * saved and the exec carries it, with every counter fd, to the new image, which takes the name
 * back. A client that calls in the gap finds no owner of the name (libpmapi waits for one) or, on
 * the system bus, waits for the activated name. If the exec fails, this image takes the name back
 * and serves on with its state. */
#pragma once

#include <systemd/sd-bus.h>

#include "manager.h"

/* Where the new image finds the blob: the fd number, in the environment across the exec. */
#define REEXEC_ENV "PMAPID_HANDOVER_FD"

/* The binary and arguments to run again, read at start: the path behind /proc/self/exe now, before
 * an upgrade can replace the file. */
int reexec_remember(char **argv);

/* What a planned handover does first (here and fd-store.h): gives the bus name up, serves every
 * call routed here before, and hands on the fork records read. */
void reexec_quiesce(Manager *m, sd_bus *bus);
/* Takes the name back after a handover that did not happen. */
int reexec_resume(Manager *m, sd_bus *bus);

/* Re-executes (does not return) or fails (<0) with this image serving again. */
int reexec(Manager *m, sd_bus *bus);

/* In a new image: restores the state a previous image handed over, if any (1), or 0. The variable
 * is removed from the environment either way. */
int reexec_restore(Manager *m);
