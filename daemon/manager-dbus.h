/* manager-dbus.h: the org.pmapi.PerfMon1.Manager interface on /org/pmapi/PerfMon1. */
#pragma once

#include "manager.h"

int manager_bus_register(Manager *m, sd_bus *bus);
