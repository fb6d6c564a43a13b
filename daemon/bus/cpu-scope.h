/* cpu-scope.h: the Manager's scopes whose contexts count on every CPU, a process's own: the system
 * scope (every task: AIX's pm_*_mysystem... calls) and the cgroup scope (its tasks: AIX's _wp).
 * What differs between them is one CpuScope; the methods are made once, from it (cpu-scope.c), and
 * each scope lists them in a vtable of its own on the Manager's path and interface, whose userdata
 * is its CpuScopeBinding. A new scope of this kind is one table and one vtable. */
#pragma once

#include <systemd/sd-bus.h>

#include "manager.h"

typedef struct CpuScope {
        /* Reads the call's target arguments (the system scope has none, a cgroup its id), then the
         * caller, and finds the caller's context there; a refusal is logged within the caller's
         * budget and sets a D-Bus error. ret_id: the cgroup id (0 for the system scope). */
        int (*resolve)(sd_bus_message *m, Manager *manager, sd_bus_error *error, Caller *ret_caller,
                       uint64_t *ret_id, SystemContext **ret);
        /* Reads the target arguments only (the set methods find no context: they make one). */
        int (*read_target)(sd_bus_message *m, uint64_t *ret_id);
        int (*set)(Manager *manager, const Caller *caller, uint64_t id, const Program *p);
        int (*start)(Manager *manager, const Caller *caller, SystemContext *s);
        void (*delete)(Manager *manager, SystemContext *s);
        /* The D-Bus error of the core's r, logging refusals as resolve does. */
        int (*fail)(sd_bus_message *m, Manager *manager, sd_bus_error *error, const Caller *caller, uint64_t id,
                    int r);
        bool reports_removed;           /* GetData says whether the cgroup was removed */
} CpuScope;

typedef struct CpuScopeBinding {
        Manager *manager;
        const CpuScope *scope;
} CpuScopeBinding;

extern const CpuScope cpu_scope_system, cpu_scope_cgroup;
extern const sd_bus_vtable cpu_scope_system_vtable[], cpu_scope_cgroup_vtable[];

/* The methods, each with a CpuScopeBinding as userdata. */
int cpu_scope_set_program(sd_bus_message *m, void *userdata, sd_bus_error *error);
int cpu_scope_set_program_mx(sd_bus_message *m, void *userdata, sd_bus_error *error);
int cpu_scope_get_program(sd_bus_message *m, void *userdata, sd_bus_error *error);
int cpu_scope_get_program_mx(sd_bus_message *m, void *userdata, sd_bus_error *error);
int cpu_scope_delete_program(sd_bus_message *m, void *userdata, sd_bus_error *error);
int cpu_scope_start(sd_bus_message *m, void *userdata, sd_bus_error *error);
int cpu_scope_stop(sd_bus_message *m, void *userdata, sd_bus_error *error);
int cpu_scope_reset_data(sd_bus_message *m, void *userdata, sd_bus_error *error);
int cpu_scope_get_data(sd_bus_message *m, void *userdata, sd_bus_error *error);
int cpu_scope_get_data_mx(sd_bus_message *m, void *userdata, sd_bus_error *error);
int cpu_scope_get_cpu_data(sd_bus_message *m, void *userdata, sd_bus_error *error);
int cpu_scope_get_cpu_data_mx(sd_bus_message *m, void *userdata, sd_bus_error *error);

/* Registers both scopes' vtables on the Manager's object. */
int cpu_scopes_register(Manager *manager, sd_bus *bus);
