/* cpu-dbus.c: each CPU a system-wide context counts (or counted, before it went offline) is an
 * object an admin can browse with busctl: its current data, whether its counters are open now, and
 * the context's owner, events and state: /org/pmapi/PerfMon1/cpu/<n> for the context that counts
 * every process, /org/pmapi/PerfMon1/proctree/<pid>/cpu/<n> for pid's process tree (a cgroup
 * context's CPUs are below its object, cgroup-dbus.h). Visible to
 * root and to the owner's uid. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-names.h"
#include "cgroup-dbus.h"
#include "context-dbus.h"
#include "cpu-dbus.h"
#include "macro.h"
#include "sets-dbus.h"

static bool visible(sd_bus *bus, Manager *m, const SystemContext *s) {
        return s && bus_current_caller_may_see(bus, m, s->owner_uid, s->owner_uid);
}

/* A decimal number with no sign, no leading zero and nothing after it (up to the next '/' when
 * rest is given), or -1. */
static long parse_number(const char *p, const char **rest) {
        char *end;
        long v;

        if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9'))
                return -1;
        v = strtol(p, &end, 10);
        if (rest)
                *rest = end;
        else if (*end != '\0')
                return -1;
        return v;
}

/* /cpu/<n>: the every-process context's CPU n; /proctree/<pid>/cpu/<n>: a process tree's;
 * /cgroup/<id>/<pid>/cpu/<n>: a cgroup context's. */
static SystemContext *context_of_path(Manager *m, const char *path, const char **ret_cpu) {
        const char *rest;
        long pid;
        SystemContext *s;

        s = cgroup_bus_context_of_path(m, path, &rest);
        if (s) {
                if (strncmp(rest, "/cpu/", 5) != 0)
                        return NULL;
                *ret_cpu = rest + 5;
                return s;
        }

        if (strncmp(path, PMAPI_CPU_PREFIX "/", strlen(PMAPI_CPU_PREFIX "/")) == 0) {
                *ret_cpu = path + strlen(PMAPI_CPU_PREFIX "/");
                return m->systems->every_process;
        }
        if (strncmp(path, PMAPI_PROCTREE_PREFIX "/", strlen(PMAPI_PROCTREE_PREFIX "/")) != 0)
                return NULL;
        pid = parse_number(path + strlen(PMAPI_PROCTREE_PREFIX "/"), &rest);
        if (pid <= 0 || pid > INT32_MAX || strncmp(rest, "/cpu/", 5) != 0)
                return NULL;
        s = system_owners_get(m->systems, (pid_t) pid);
        if (!s || !s->tree)
                return NULL;
        *ret_cpu = rest + 5;
        return s;
}

static int cpu_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                    sd_bus_error *error) {
        Manager *m = userdata;
        const char *id = NULL;
        SystemContext *s = context_of_path(m, path, &id);
        long cpu;

        (void) interface, (void) error;
        if (!visible(bus, m, s))
                return 0;
        cpu = parse_number(id, NULL);
        if (cpu < 0 || (size_t) cpu >= s->n_cpus || !s->cpus[cpu].counted)
                return 0;
        *found = &s->cpus[cpu];
        return 1;
}

/* The object paths of the counted CPUs of every context the caller may see. */
static int cpu_enumerate(sd_bus *bus, const char *path, void *userdata, char ***nodes, sd_bus_error *error) {
        Manager *m = userdata;
        size_t n_list = 0, n = 0, max = 1;
        _cleanup_free_ SystemContext **list = system_owners_all(m->systems, &n_list);
        char **l;

        (void) path, (void) error;
        if (!list)
                return -ENOMEM;
        for (size_t i = 0; i < n_list; i++)
                max += list[i]->n_cpus;
        l = calloc(max, sizeof(char *));
        if (!l)
                return -ENOMEM;
        for (size_t i = 0; i < n_list; i++)
                for (size_t cpu = 0; !list[i]->cgroup_id && visible(bus, m, list[i]) && cpu < list[i]->n_cpus;
                     cpu++) {
                        int k;
                        if (!list[i]->cpus[cpu].counted)
                                continue;
                        k = list[i]->tree ? asprintf(&l[n], PMAPI_PROCTREE_PREFIX "/%d/cpu/%zu",
                                                     (int) list[i]->owner_pid, cpu)
                                          : asprintf(&l[n], PMAPI_CPU_PREFIX "/%zu", cpu);
                        if (k < 0) {
                                for (size_t j = 0; j < n; j++)
                                        free(l[j]);
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

        (void) bus, (void) path, (void) interface;
        r = system_read_cpu(c->system, c->cpu, accu);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "Reading CPU %u failed: %m", c->cpu);
        if (strcmp(property, "Data") != 0)
                return bus_append_time(reply, property, accu);
        return sd_bus_message_append_array(reply, 'x', accu, ACCT_COUNTS_SIZE);
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
        return bus_append_events(reply, s->events, &s->program);
}

/* The event sets of a multiplexed program (one for a pm_prog_t), its slice, and each set's times. */
static int property_get_sets(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        SystemCpu *c = userdata;
        Program p = system_get_program(c->system);
        SetSource src = { set_source_read_system_cpu, c->system, c->cpu };

        (void) bus, (void) path, (void) interface;
        return bus_append_sets_property(reply, property, &p, &src, error);
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
        SD_BUS_PROPERTY("TimeEnabled", "t", property_get_data, 0, 0),
        SD_BUS_PROPERTY("TimeRunning", "t", property_get_data, 0, 0),
        SD_BUS_PROPERTY("SliceMs", "u", property_get_sets, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Sets", "a(iai)", property_get_sets, 0, 0),
        SD_BUS_PROPERTY("SetTimes", "a(tt)", property_get_sets, 0, 0),
        SD_BUS_VTABLE_END
};

int cpu_bus_register(Manager *m, sd_bus *bus) {
        int r;

        r = sd_bus_add_fallback_vtable(bus, NULL, PMAPI_CPU_PREFIX, PMAPI_CPU_INTERFACE, cpu_vtable, cpu_find, m);
        if (r < 0)
                return r;
        r = sd_bus_add_fallback_vtable(bus, NULL, PMAPI_PROCTREE_PREFIX, PMAPI_CPU_INTERFACE, cpu_vtable, cpu_find, m);
        if (r < 0)
                return r;
        r = sd_bus_add_fallback_vtable(bus, NULL, PMAPI_CGROUP_PREFIX, PMAPI_CPU_INTERFACE, cpu_vtable, cpu_find, m);
        if (r < 0)
                return r;
        r = sd_bus_add_node_enumerator(bus, NULL, PMAPI_CPU_PREFIX, cpu_enumerate, m);
        if (r < 0)
                return r;
        return sd_bus_add_node_enumerator(bus, NULL, PMAPI_PROCTREE_PREFIX, cpu_enumerate, m);
}
