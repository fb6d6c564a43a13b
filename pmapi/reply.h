/* reply.h: the argument and reply shapes shared by every scope's calls (program and data). */
#pragma once

#include <systemd/sd-bus.h>

#include "pmapi.h"

/* Checks prog against the installed catalog and calls method(pid, tid, mode, events) for the
 * calling thread. */
int call_set_program(const char *method, const pm_prog_t *prog);
/* Calls method on the calling thread and reads its (mode, events) reply into prog. */
int call_get_program(const char *method, pm_prog_t *prog);
/* Calls method on the calling thread and reads its (data, timestamp[, members, flags]) reply. */
int call_get_data(const char *method, bool group, pm_data_t *data, timebasestruct_t *time);
/* A method on the calling thread without arguments or reply. */
int call_simple(const char *method);
