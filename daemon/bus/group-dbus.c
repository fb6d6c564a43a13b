/* group-dbus.c: each live counting group is an object an admin can browse with busctl: who owns
 * it, its kind, members, consistency, counting state and events. Properties only; changes go
 * through the Manager's group methods. Visible to root, the owner uid and the uid of its threads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-names.h"
#include "context-dbus.h"
#include "group-dbus.h"
#include "macro.h"
#include "sets-dbus.h"

static int group_find(sd_bus *bus, const char *path, const char *interface, void *userdata,
                      void **found, sd_bus_error *error) {
        Manager *m = userdata;
        const char *id;
        char *end;
        unsigned long v;
        Group *g;

        (void) interface, (void) error;
        if (strncmp(path, PMAPI_GROUP_PREFIX "/", strlen(PMAPI_GROUP_PREFIX "/")) != 0)
                return 0;
        id = path + strlen(PMAPI_GROUP_PREFIX "/");
        if (*id < '1' || *id > '9')
                return 0;
        v = strtoul(id, &end, 10);
        if (*end != '\0' || v > UINT32_MAX)
                return 0;
        g = manager_find_group(m, (unsigned) v);
        if (!g || !bus_current_caller_may_see(bus, m, g->owner_uid, g->target_uid))
                return 0;
        *found = g;
        return 1;
}

static int group_enumerate(sd_bus *bus, const char *path, void *userdata, char ***nodes,
                           sd_bus_error *error) {
        Manager *m = userdata;
        GHashTableIter it;
        gpointer value;
        char **l;
        size_t n = 0;

        (void) path, (void) error;
        l = calloc(g_hash_table_size(m->groups) + 1, sizeof(char *));
        if (!l)
                return -ENOMEM;
        g_hash_table_iter_init(&it, m->groups);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                Group *g = value;
                if (!bus_current_caller_may_see(bus, m, g->owner_uid, g->target_uid))
                        continue;
                if (asprintf(&l[n], PMAPI_GROUP_PREFIX "/%u", g->id) < 0) {
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

static int property_get_live_members(sd_bus *bus, const char *path, const char *interface,
                                     const char *property, sd_bus_message *reply, void *userdata,
                                     sd_bus_error *error) {
        Group *g = userdata;
        int r;

        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        r = sd_bus_message_open_container(reply, 'a', "i");
        if (r < 0)
                return r;
        for (size_t i = 0; i < g->n_live; i++) {
                r = sd_bus_message_append(reply, "i", (int32_t) g->live[i]->tid);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

static int property_get_events(sd_bus *bus, const char *path, const char *interface,
                               const char *property, sd_bus_message *reply, void *userdata,
                               sd_bus_error *error) {
        Group *g = userdata;
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        return bus_append_events(reply, g->live[0]->manager->events, &g->program);
}

static int property_get_event_names(sd_bus *bus, const char *path, const char *interface,
                                    const char *property, sd_bus_message *reply, void *userdata,
                                    sd_bus_error *error) {
        Group *g = userdata;
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        /* A group in the manager's table always has a live member. */
        return bus_append_event_names(reply, g->live[0]->manager->events, &g->program);
}

static int property_get_mode(sd_bus *bus, const char *path, const char *interface,
                             const char *property, sd_bus_message *reply, void *userdata,
                             sd_bus_error *error) {
        Program p = group_get_program(userdata);
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        return sd_bus_message_append(reply, "i", (int32_t) p.mode);
}

static int property_get_bool(sd_bus *bus, const char *path, const char *interface,
                             const char *property, sd_bus_message *reply, void *userdata,
                             sd_bus_error *error) {
        Group *g = userdata;
        bool v = strcmp(property, "Counting") == 0 ? g->counting :
                 strcmp(property, "Consistent") == 0 ? g->consistent : g->process;
        (void) bus, (void) path, (void) interface, (void) error;
        return sd_bus_message_append(reply, "b", (int) v);
}

/* The group's counted time: its members' (live and dead) added up, by the rules of its counts. */
static int property_get_times(sd_bus *bus, const char *path, const char *interface, const char *property,
                              sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        AcctVector accu;
        int r;

        (void) bus, (void) path, (void) interface;
        r = group_read(userdata, accu);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "Reading the group's counters failed: %m");
        return bus_append_time(reply, property, accu);
}

/* The event sets of a multiplexed program (one for a pm_prog_t), its slice, and each set's times. */
static int property_get_sets(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Group *g = userdata;
        Program p = group_get_program(g);
        SetSource src = { set_source_read_group, g, 0 };

        (void) bus, (void) path, (void) interface;
        return bus_append_sets_property(reply, property, &p, &src, error);
}

static const sd_bus_vtable group_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Id", "u", NULL, offsetof(Group, id), SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("ProcessId", "i", NULL, offsetof(Group, pid), SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("OwnerUid", "u", NULL, offsetof(Group, owner_uid), SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Process", "b", property_get_bool, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Members", "u", NULL, offsetof(Group, n_members), 0),
        SD_BUS_PROPERTY("LiveMembers", "ai", property_get_live_members, 0, 0),
        SD_BUS_PROPERTY("Consistent", "b", property_get_bool, 0, 0),
        SD_BUS_PROPERTY("ThreadsMissed", "u", NULL, offsetof(Group, n_missed), 0),
        SD_BUS_PROPERTY("Counting", "b", property_get_bool, 0, 0),
        SD_BUS_PROPERTY("Mode", "i", property_get_mode, 0, 0),
        SD_BUS_PROPERTY("Events", "ai", property_get_events, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("EventNames", "as", property_get_event_names, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("TimeEnabled", "t", property_get_times, 0, 0),
        SD_BUS_PROPERTY("TimeRunning", "t", property_get_times, 0, 0),
        SD_BUS_PROPERTY("SliceMs", "u", property_get_sets, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Sets", "a(iai)", property_get_sets, 0, 0),
        SD_BUS_PROPERTY("SetTimes", "a(tt)", property_get_sets, 0, 0),
        SD_BUS_VTABLE_END
};

int group_bus_register(Manager *m, sd_bus *bus) {
        int r;

        r = sd_bus_add_fallback_vtable(bus, NULL, PMAPI_GROUP_PREFIX, PMAPI_GROUP_INTERFACE,
                                       group_vtable, group_find, m);
        if (r < 0)
                return r;
        return sd_bus_add_node_enumerator(bus, NULL, PMAPI_GROUP_PREFIX, group_enumerate, m);
}
