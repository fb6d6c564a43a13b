/* group-dbus.h: live groups as objects /org/pmapi/PerfMon1/group/<id> (read-only). */
#pragma once

#include "manager.h"

int group_bus_register(Manager *m, sd_bus *bus);
