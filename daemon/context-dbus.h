/* context-dbus.h: live contexts as objects /org/pmapi/PerfMon1/thread/<tid> (read-only). */
#pragma once

#include "manager.h"

int context_bus_register(Manager *m, sd_bus *bus);
