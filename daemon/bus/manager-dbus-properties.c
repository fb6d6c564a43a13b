/* manager-dbus-properties.c: the Manager's properties (org.pmapi.PerfMon1(5)): its limits, counts
 * and identity, for busctl and the clients. A vtable of its own on the Manager's path and interface,
 * beside manager-dbus.c's methods (sd-bus joins them). */
#include <stddef.h>
#include <string.h>

#include "heirs.h"
#include "macro.h"
#include "manager-dbus.h"
#include "pmu-budget.h"

static gint compare_uids(gconstpointer a, gconstpointer b) {
        guint x = GPOINTER_TO_UINT(a), y = GPOINTER_TO_UINT(b);
        return x < y ? -1 : x > y;
}

static int property_get_root_reserve(sd_bus *bus, const char *path, const char *interface,
                                     const char *property, sd_bus_message *reply, void *userdata,
                                     sd_bus_error *error) {
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        return sd_bus_message_append(reply, "u", (uint32_t) manager_root_reserve(userdata));
}

static int property_get_kernel_inheritance(sd_bus *bus, const char *path, const char *interface,
                                           const char *property, sd_bus_message *reply, void *userdata,
                                           sd_bus_error *error) {
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        return sd_bus_message_append(reply, "b", ((Manager *) userdata)->heirs != NULL);
}

/* The catalog's events a program may hold and still be carried inside the kernel: CarriedEvents,
 * always (software events); CarriedHardwareEvents, where the PMU's share for carried programs has
 * room then (a thread's CreationsBornCounting says). libpmapi asks pmapid for its new threads
 * (Inherit) unless its program's events are carried. */
static int property_get_carried_events(sd_bus *bus, const char *path, const char *interface,
                                       const char *property, sd_bus_message *reply, void *userdata,
                                       sd_bus_error *error) {
        bool hardware = strcmp(property, "CarriedHardwareEvents") == 0;
        Manager *m = userdata;
        int r;

        (void) bus, (void) path, (void) interface, (void) error;
        r = sd_bus_message_open_container(reply, 'a', "i");
        for (size_t i = 0; r >= 0 && m->heirs && i < m->events->n_events; i++) {
                const struct perf_event_attr *a = &m->events->events[i].attr;
                if (heirs_can_carry_event(a) && pmu_budget_is_hardware(a) == hardware)
                        r = sd_bus_message_append(reply, "i", (int32_t) m->events->events[i].id);
        }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int property_get_ambiguous(sd_bus *bus, const char *path, const char *interface, const char *property,
                                  sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;

        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        return sd_bus_message_append(reply, "t", m->heirs ? heirs_ambiguous_slices(m->heirs) : (uint64_t) 0);
}

static int property_get_contexts(sd_bus *bus, const char *path, const char *interface,
                                 const char *property, sd_bus_message *reply, void *userdata,
                                 sd_bus_error *error) {
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        return sd_bus_message_append(reply, "u", (uint32_t) manager_n_contexts(userdata));
}

/* Who holds what: (uid, contexts charged to it, OpenLocal handings outstanding), by uid. Root sees
 * every user's row, another caller its own. */
static int property_get_per_user(sd_bus *bus, const char *path, const char *interface, const char *property,
                                 sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        sd_bus_message *call = sd_bus_get_current_message(bus);
        g_autoptr(GList) uids = NULL;
        GHashTable *handed = handed_ledger_per_uid(m->handed);
        GHashTableIter it;
        gpointer key;
        Caller caller;
        int r;

        (void) path, (void) interface, (void) property, (void) error;
        if (!call || caller_cache_get(m->callers, call, access_policy_names_groups(&m->policy), &caller) < 0)
                caller.euid = (uid_t) -1;       /* nobody's row */
        g_hash_table_iter_init(&it, m->contexts_per_uid);
        while (g_hash_table_iter_next(&it, &key, NULL))
                uids = g_list_prepend(uids, key);
        g_hash_table_iter_init(&it, handed);
        while (g_hash_table_iter_next(&it, &key, NULL))
                if (!g_hash_table_contains(m->contexts_per_uid, key))
                        uids = g_list_prepend(uids, key);
        uids = g_list_sort(uids, compare_uids);
        r = sd_bus_message_open_container(reply, 'a', "(uuu)");
        for (GList *l = uids; r >= 0 && l; l = l->next) {
                uid_t uid = GPOINTER_TO_UINT(l->data);
                if (caller.euid != 0 && caller.euid != uid)
                        continue;
                r = sd_bus_message_append(reply, "(uuu)", (uint32_t) uid,
                                          GPOINTER_TO_UINT(g_hash_table_lookup(m->contexts_per_uid, l->data)),
                                          GPOINTER_TO_UINT(g_hash_table_lookup(handed, l->data)));
        }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int property_get_groups(sd_bus *bus, const char *path, const char *interface,
                               const char *property, sd_bus_message *reply, void *userdata,
                               sd_bus_error *error) {
        Manager *m = userdata;
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        return sd_bus_message_append(reply, "u", (uint32_t) g_hash_table_size(m->groups));
}

static int property_get_version(sd_bus *bus, const char *path, const char *interface,
                                const char *property, sd_bus_message *reply, void *userdata,
                                sd_bus_error *error) {
        (void) bus, (void) path, (void) interface, (void) property, (void) userdata, (void) error;
        return sd_bus_message_append(reply, "s", PMAPI_VERSION);
}

static int property_get_processor(sd_bus *bus, const char *path, const char *interface,
                                  const char *property, sd_bus_message *reply, void *userdata,
                                  sd_bus_error *error) {
        Manager *m = userdata;
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        return sd_bus_message_append(reply, "s", m->events->pmu_name);
}

/* Anyone may see which process holds the system-wide counters, as on AIX the lock holder. */
static int property_get_system_owner(sd_bus *bus, const char *path, const char *interface,
                                     const char *property, sd_bus_message *reply, void *userdata,
                                     sd_bus_error *error) {
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        return sd_bus_message_append(reply, "i", (int32_t) manager_system_owner(userdata));
}

static int property_get_predecessors(sd_bus *bus, const char *path, const char *interface,
                                     const char *property, sd_bus_message *reply, void *userdata,
                                     sd_bus_error *error) {
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        return sd_bus_message_append_strv(reply, ((Manager *) userdata)->predecessors);
}

const sd_bus_vtable manager_properties_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Version", "s", property_get_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("ProcessorName", "s", property_get_processor, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("MaxContextsPerUser", "u", NULL, offsetof(Manager, max_contexts_per_uid),
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("MaxContexts", "u", NULL, offsetof(Manager, max_contexts), SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("ContextCount", "u", property_get_contexts, 0, 0),
        SD_BUS_PROPERTY("ContextsPerUser", "a(uuu)", property_get_per_user, 0, 0),
        SD_BUS_PROPERTY("RootReserve", "u", property_get_root_reserve, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("GroupCount", "u", property_get_groups, 0, 0),
        SD_BUS_PROPERTY("KernelInheritance", "b", property_get_kernel_inheritance, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("CarriedEvents", "ai", property_get_carried_events, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("CarriedHardwareEvents", "ai", property_get_carried_events, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("AmbiguousSlices", "t", property_get_ambiguous, 0, 0),
        SD_BUS_PROPERTY("ThreadsAttachedLate", "t", NULL, offsetof(Manager, n_attached_late), 0),
        SD_BUS_PROPERTY("ThreadsMissed", "t", NULL, offsetof(Manager, n_missed), 0),
        SD_BUS_PROPERTY("CallsRefused", "t", NULL, offsetof(Manager, n_refused), 0),
        SD_BUS_PROPERTY("SystemOwnerPid", "i", property_get_system_owner, 0, 0),
        SD_BUS_PROPERTY("StartedAt", "t", NULL, offsetof(Manager, started_at_usec), SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Predecessors", "as", property_get_predecessors, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_VTABLE_END
};
