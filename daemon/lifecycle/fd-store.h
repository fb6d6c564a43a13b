/* fd-store.h: pmapid's state across a stop and start by its service manager (`systemctl restart
 * pmapid`, a package upgrade's restart), through systemd's file descriptor store
 * (FileDescriptorStoreMax= in pmapid.service): at SIGTERM pmapid hands its state blob (handover.h)
 * and every fd it names to the service manager (sd_pid_notify_with_fds, "FDSTORE=1"), which keeps
 * them while the service restarts and passes them to the next pmapid ($LISTEN_FDS, named in
 * $LISTEN_FDNAMES: FD_STORE_STATE_NAME for the blob, FD_STORE_FD_NAME for the others, a short
 * name because the list of names is one environment string of at most 128 KiB). The new pmapid
 * finds each fd by its key, whatever order they come in. When the service is stopped for good,
 * systemd closes what it kept, and the counters with it. A crash stores nothing: its contexts are
 * lost (clients get PM_ERESTARTED). */
#pragma once

#include <stdbool.h>
#include <systemd/sd-bus.h>

#include "manager.h"

#define FD_STORE_STATE_NAME "pmapid-state"
#define FD_STORE_FD_NAME "p"

/* Whether to store at SIGTERM: --fd-store, or systemd (254 and later) says the store is on
 * ($FDSTORE), and a service manager listens ($NOTIFY_SOCKET). */
bool fd_store_wanted(bool option);

/* Quiesces (reexec.h), saves and hands everything to the store. pmapid then exits. */
int fd_store_push(Manager *m, sd_bus *bus);

/* In a new pmapid: restores the state the store passed, if any (1), or 0. */
int fd_store_restore(Manager *m);
