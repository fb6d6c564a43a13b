/* context-dbus.h: live contexts as objects /org/pmapi/PerfMon1/thread/<tid> (read-only). */
#pragma once

#include "manager.h"

int context_bus_register(Manager *m, sd_bus *bus);

/* Shared with group-dbus.c: objects are visible to their owner uid and to root. */
bool bus_current_caller_may_see(sd_bus *bus, Manager *manager, uid_t owner_uid);
/* An "as" of the short names of a program's events, "" for COUNT_NOTHING. */
int bus_append_event_names(sd_bus_message *reply, const EventTable *t, const Program *p);
