/* manager-dbus.h: the org.pmapi.PerfMon1.Manager interface on /org/pmapi/PerfMon1. Its vtable is in
 * manager-dbus.c; the group-scope handlers are in manager-dbus-group.c. */
#pragma once

#include "manager.h"

int manager_bus_register(Manager *m, sd_bus *bus);

/* Shared by the handlers. */
int manager_bus_read_target(sd_bus_message *m, Manager *manager, Caller *ret_caller, pid_t *ret_pid,
                            pid_t *ret_tid);
/* Reads the (mode, events) arguments; a malformed array sets error. */
int manager_bus_read_program(sd_bus_message *m, sd_bus_error *error, Program *ret);
int manager_bus_reply_program(sd_bus_message *m, const Program *p);

/* The group scope (manager-dbus-group.c). */
int method_set_group_program(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_get_group_program(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_delete_group_program(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_start_group(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_stop_group(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_reset_group_data(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_get_group_data(sd_bus_message *m, void *userdata, sd_bus_error *error);
