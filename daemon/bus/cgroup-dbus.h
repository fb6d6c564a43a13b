/* cgroup-dbus.h: each cgroup context as an object an admin can browse with busctl,
 * /org/pmapi/PerfMon1/cgroup/<cgroup id>/<owner pid>, with its CPUs below it (.../cpu/<n>, the Cpu
 * interface, cpu-dbus.c). Visible to root and to the owner's uid. */
#pragma once

#include "manager.h"

/* The cgroup context at /cgroup/<id>/<pid>, with *ret_rest what follows it in path ("" or "/..."),
 * or NULL. */
SystemContext *cgroup_bus_context_of_path(Manager *m, const char *path, const char **ret_rest);
/* The object path of cgroup context s (a new string), or NULL when out of memory. */
char *cgroup_bus_path(const SystemContext *s);
int cgroup_bus_register(Manager *m, sd_bus *bus);
