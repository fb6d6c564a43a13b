/* cgroup-dbus.c: see cgroup-dbus.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-names.h"
#include "cgroup-dbus.h"
#include "comm-text.h"
#include "context-dbus.h"
#include "macro.h"

/* A decimal number with no sign and no leading zero, up to the next '/' or the end. */
static bool parse_u64(const char *p, const char **rest, uint64_t *ret) {
        char *end;

        if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9'))
                return false;
        errno = 0;
        *ret = strtoull(p, &end, 10);
        if (errno != 0 || (*end != '/' && *end != '\0'))
                return false;
        *rest = end;
        return true;
}

SystemContext *cgroup_bus_context_of_path(Manager *m, const char *path, const char **ret_rest) {
        const char *rest;
        uint64_t id, pid;

        if (strncmp(path, PMAPI_CGROUP_PREFIX "/", strlen(PMAPI_CGROUP_PREFIX "/")) != 0)
                return NULL;
        if (!parse_u64(path + strlen(PMAPI_CGROUP_PREFIX "/"), &rest, &id) || *rest != '/' ||
            !parse_u64(rest + 1, &rest, &pid) || pid == 0 || pid > INT32_MAX)
                return NULL;
        *ret_rest = rest;
        return system_owners_get_cgroup(m->systems, (pid_t) pid, id);
}

char *cgroup_bus_path(const SystemContext *s) {
        char *p;

        return asprintf(&p, PMAPI_CGROUP_PREFIX "/%" PRIu64 "/%d", s->cgroup_id, (int) s->owner_pid) < 0 ? NULL : p;
}

static int cgroup_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                       sd_bus_error *error) {
        Manager *m = userdata;
        const char *rest = NULL;
        SystemContext *s = cgroup_bus_context_of_path(m, path, &rest);

        (void) interface, (void) error;
        if (!s || *rest != '\0' || !bus_current_caller_may_see(bus, m, s->owner_uid, s->owner_uid))
                return 0;
        *found = s;
        return 1;
}

/* Every cgroup context the caller may see, and the CPUs each counted. */
static int cgroup_enumerate(sd_bus *bus, const char *path, void *userdata, char ***nodes, sd_bus_error *error) {
        Manager *m = userdata;
        size_t n_list = 0, n = 0, max = 1;
        _cleanup_free_ SystemContext **list = system_owners_all(m->systems, &n_list);
        char **l;

        (void) path, (void) error;
        if (!list)
                return -ENOMEM;
        for (size_t i = 0; i < n_list; i++)
                max += 1 + list[i]->n_cpus;
        l = calloc(max, sizeof(char *));
        if (!l)
                return -ENOMEM;
        for (size_t i = 0; i < n_list; i++) {
                SystemContext *s = list[i];
                _cleanup_free_ char *base = NULL;

                if (!s->cgroup_id || !bus_current_caller_may_see(bus, m, s->owner_uid, s->owner_uid))
                        continue;
                base = cgroup_bus_path(s);
                if (!base || !(l[n++] = strdup(base)))
                        goto oom;
                for (size_t cpu = 0; cpu < s->n_cpus; cpu++)
                        if (s->cpus[cpu].counted && asprintf(&l[n++], "%s/cpu/%zu", base, cpu) < 0) {
                                l[--n] = NULL;
                                goto oom;
                        }
        }
        *nodes = l;
        return 0;
oom:
        for (size_t j = 0; j < n; j++)
                free(l[j]);
        free(l);
        return -ENOMEM;
}

static int property_get(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        SystemContext *s = userdata;

        (void) bus, (void) path, (void) interface;
        if (strcmp(property, "Cgroup") == 0)
                return sd_bus_message_append(reply, "t", s->cgroup_id);
        if (strcmp(property, "Path") == 0) {
                _cleanup_free_ char *text = text_to_utf8_dup(s->cgroup_path ? s->cgroup_path : "", false);
                return text ? sd_bus_message_append(reply, "s", text) : -ENOMEM;
        }
        if (strcmp(property, "Removed") == 0)
                return sd_bus_message_append(reply, "b", (int) system_cgroup_removed(s));
        if (strcmp(property, "OwnerPid") == 0)
                return sd_bus_message_append(reply, "i", (int32_t) s->owner_pid);
        if (strcmp(property, "OwnerUid") == 0)
                return sd_bus_message_append(reply, "u", (uint32_t) s->owner_uid);
        if (strcmp(property, "Counting") == 0)
                return sd_bus_message_append(reply, "b", (int) s->counting);
        if (strcmp(property, "Mode") == 0)
                return sd_bus_message_append(reply, "i", (int32_t) system_get_program(s).mode);
        if (strcmp(property, "Events") == 0)
                return bus_append_events(reply, s->events, &s->program);
        if (strcmp(property, "EventNames") == 0)
                return bus_append_event_names(reply, s->events, &s->program);
        {
                AcctVector accu;
                int r = system_read(s, accu);

                if (r < 0)
                        return sd_bus_error_set_errnof(error, r, "Reading the cgroup's counters failed: %m");
                if (strcmp(property, "Data") != 0)
                        return bus_append_time(reply, property, accu);
                return sd_bus_message_append_array(reply, 'x', accu, ACCT_COUNTS_SIZE);
        }
}

static const sd_bus_vtable cgroup_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Cgroup", "t", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Path", "s", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Removed", "b", property_get, 0, 0),
        SD_BUS_PROPERTY("OwnerPid", "i", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("OwnerUid", "u", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Counting", "b", property_get, 0, 0),
        SD_BUS_PROPERTY("Mode", "i", property_get, 0, 0),
        SD_BUS_PROPERTY("Events", "ai", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("EventNames", "as", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Data", "ax", property_get, 0, 0),
        SD_BUS_PROPERTY("TimeEnabled", "t", property_get, 0, 0),
        SD_BUS_PROPERTY("TimeRunning", "t", property_get, 0, 0),
        SD_BUS_VTABLE_END
};

int cgroup_bus_register(Manager *m, sd_bus *bus) {
        int r;

        r = sd_bus_add_fallback_vtable(bus, NULL, PMAPI_CGROUP_PREFIX, PMAPI_CGROUP_INTERFACE, cgroup_vtable,
                                       cgroup_find, m);
        if (r < 0)
                return r;
        return sd_bus_add_node_enumerator(bus, NULL, PMAPI_CGROUP_PREFIX, cgroup_enumerate, m);
}
