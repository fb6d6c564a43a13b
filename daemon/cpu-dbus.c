/* cpu-dbus.c: each CPU the system-wide context counts (or counted, before it went offline) is an
 * object an admin can browse with busctl: its current data, whether its counters are open now, and
 * the context's owner, events and state. Visible to root and to the owner's uid. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-names.h"
#include "context-dbus.h"
#include "cpu-dbus.h"
#include "macro.h"

static bool visible(sd_bus *bus, Manager *m) {
        return m->system && bus_current_caller_may_see(bus, m, m->system->owner_uid, m->system->owner_uid);
}

static int cpu_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                    sd_bus_error *error) {
        Manager *m = userdata;
        const char *id;
        char *end;
        unsigned long cpu;

        (void) interface, (void) error;
        if (strncmp(path, PMAPI_CPU_PREFIX "/", strlen(PMAPI_CPU_PREFIX "/")) != 0 || !visible(bus, m))
                return 0;
        id = path + strlen(PMAPI_CPU_PREFIX "/");
        if (*id < '0' || *id > '9' || (id[0] == '0' && id[1] != '\0'))
                return 0;
        cpu = strtoul(id, &end, 10);
        if (*end != '\0' || cpu >= m->system->n_cpus || !m->system->cpus[cpu].counted)
                return 0;
        *found = &m->system->cpus[cpu];
        return 1;
}

static int cpu_enumerate(sd_bus *bus, const char *path, void *userdata, char ***nodes, sd_bus_error *error) {
        Manager *m = userdata;
        size_t n = 0;
        char **l;

        (void) path, (void) error;
        l = calloc((m->system ? m->system->n_cpus : 0) + 1, sizeof(char *));
        if (!l)
                return -ENOMEM;
        for (size_t cpu = 0; visible(bus, m) && cpu < m->system->n_cpus; cpu++) {
                if (!m->system->cpus[cpu].counted)
                        continue;
                if (asprintf(&l[n], PMAPI_CPU_PREFIX "/%zu", cpu) < 0) {
                        for (size_t i = 0; i < n; i++)
                                free(l[i]);
                        free(l);
                        return -ENOMEM;
                }
                n++;
        }
        *nodes = l;
        return 0;
}

static int property_get_data(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        SystemCpu *c = userdata;
        AcctVector accu;
        int r;

        (void) bus, (void) path, (void) interface, (void) property;
        r = system_read_cpu(c->system, c->cpu, accu);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "Reading CPU %u failed: %m", c->cpu);
        return sd_bus_message_append_array(reply, 'x', accu, sizeof(accu));
}

static int property_get_scalar(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        SystemCpu *c = userdata;
        const SystemContext *s = c->system;

        (void) bus, (void) path, (void) interface, (void) error;
        if (strcmp(property, "Cpu") == 0)
                return sd_bus_message_append(reply, "u", (uint32_t) c->cpu);
        if (strcmp(property, "Online") == 0)
                return sd_bus_message_append(reply, "b", (int) system_cpu_open(s, c->cpu));
        if (strcmp(property, "OwnerPid") == 0)
                return sd_bus_message_append(reply, "i", (int32_t) s->owner_pid);
        if (strcmp(property, "OwnerUid") == 0)
                return sd_bus_message_append(reply, "u", (uint32_t) s->owner_uid);
        if (strcmp(property, "ProcessTree") == 0)
                return sd_bus_message_append(reply, "b", (int) (s->tree != NULL));
        if (strcmp(property, "Counting") == 0)
                return sd_bus_message_append(reply, "b", (int) s->counting);
        return sd_bus_message_append(reply, "i", (int32_t) system_get_program(s).mode);
}

static int property_get_events(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        const SystemContext *s = ((SystemCpu *) userdata)->system;

        (void) bus, (void) path, (void) interface, (void) error;
        if (strcmp(property, "EventNames") == 0)
                return bus_append_event_names(reply, s->events, &s->program);
        return sd_bus_message_append_array(reply, 'i', s->program.events, sizeof(s->program.events));
}

static const sd_bus_vtable cpu_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Cpu", "u", property_get_scalar, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Online", "b", property_get_scalar, 0, 0),
        SD_BUS_PROPERTY("OwnerPid", "i", property_get_scalar, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("OwnerUid", "u", property_get_scalar, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("ProcessTree", "b", property_get_scalar, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Counting", "b", property_get_scalar, 0, 0),
        SD_BUS_PROPERTY("Mode", "i", property_get_scalar, 0, 0),
        SD_BUS_PROPERTY("Events", "ai", property_get_events, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("EventNames", "as", property_get_events, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Data", "ax", property_get_data, 0, 0),
        SD_BUS_VTABLE_END
};

int cpu_bus_register(Manager *m, sd_bus *bus) {
        int r;

        r = sd_bus_add_fallback_vtable(bus, NULL, PMAPI_CPU_PREFIX, PMAPI_CPU_INTERFACE, cpu_vtable, cpu_find, m);
        if (r < 0)
                return r;
        return sd_bus_add_node_enumerator(bus, NULL, PMAPI_CPU_PREFIX, cpu_enumerate, m);
}
