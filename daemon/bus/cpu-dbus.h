/* cpu-dbus.h: the CPUs of the system-wide context as objects /org/pmapi/PerfMon1/cpu/<n>
 * (read-only), while one exists. */
#pragma once

#include "manager.h"

int cpu_bus_register(Manager *m, sd_bus *bus);
