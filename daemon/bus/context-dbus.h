/* context-dbus.h: live contexts as objects /org/pmapi/PerfMon1/thread/<tid> (read-only). */
#pragma once

#include "manager.h"

int context_bus_register(Manager *m, sd_bus *bus);

/* Shared with group-dbus.c and the list: a context is visible to root, to its owner (who made it)
 * and to the uid of the thread it counts. */
bool bus_current_caller_may_see(sd_bus *bus, Manager *manager, uid_t owner_uid, uid_t target_uid);
bool caller_may_see(const Caller *caller, uid_t owner_uid, uid_t target_uid);
/* An "as" of the short names of a program's events, "" for COUNT_NOTHING. */
int bus_append_event_names(sd_bus_message *reply, const EventTable *t, const Program *p);
/* The event ids a program's first set counts (a group's events with mode.b.is_group), as "ai". */
int bus_append_events(sd_bus_message *reply, const EventTable *t, const Program *p);
/* The TimeEnabled or TimeRunning property (ns) from accu, by the property's name. */
int bus_append_time(sd_bus_message *reply, const char *property, const AcctVector accu);
