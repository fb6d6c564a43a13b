/* context-dbus.c: each live thread context is an object an admin can browse with busctl: whose
 * thread, who made it (OwnerUid, CreatorPid) and how (Origin). The objects carry properties only;
 * every change goes through the Manager's methods. A caller sees the contexts it owns and those on
 * its own threads; root sees all. A member's Group property is its group's object path
 * ("/" when none). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-names.h"
#include "context-dbus.h"
#include "heirs.h"
#include "macro.h"
#include "sets-dbus.h"

bool caller_may_see(const Caller *caller, uid_t owner_uid, uid_t target_uid) {
        return caller->euid == 0 || caller->euid == owner_uid || caller->euid == target_uid;
}

bool bus_current_caller_may_see(sd_bus *bus, Manager *manager, uid_t owner_uid, uid_t target_uid) {
        sd_bus_message *m = sd_bus_get_current_message(bus);
        Caller caller;

        if (!m || caller_cache_get(manager->callers, m, access_policy_names_groups(&manager->policy), &caller) < 0)
                return false;
        /* OnlyGroups shuts the objects as it shuts the methods. */
        if (manager->policy.only.n > 0 && caller.euid != 0 && !access_policy_admits(&manager->policy, &caller))
                return false;
        return caller_may_see(&caller, owner_uid, target_uid);
}

static int context_find(sd_bus *bus, const char *path, const char *interface, void *userdata,
                        void **found, sd_bus_error *error) {
        Manager *m = userdata;
        const char *id;
        char *end;
        long tid;
        Context *c;

        (void) interface, (void) error;
        if (strncmp(path, PMAPI_THREAD_PREFIX "/", strlen(PMAPI_THREAD_PREFIX "/")) != 0)
                return 0;
        id = path + strlen(PMAPI_THREAD_PREFIX "/");
        tid = strtol(id, &end, 10);
        if (*id == '\0' || *end != '\0' || tid <= 0 || tid > INT32_MAX)
                return 0;
        c = g_hash_table_lookup(m->threads, GINT_TO_POINTER((int) tid));
        if (!c || !bus_current_caller_may_see(bus, m, c->owner_uid, c->target_uid))
                return 0;
        *found = c;
        return 1;
}

static int context_enumerate(sd_bus *bus, const char *path, void *userdata, char ***nodes,
                             sd_bus_error *error) {
        Manager *m = userdata;
        GHashTableIter it;
        gpointer value;
        char **l;
        size_t n = 0;

        (void) path, (void) error;
        l = calloc(g_hash_table_size(m->threads) + 1, sizeof(char *));
        if (!l)
                return -ENOMEM;
        g_hash_table_iter_init(&it, m->threads);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                Context *c = value;
                if (!bus_current_caller_may_see(bus, m, c->owner_uid, c->target_uid))
                        continue;
                if (asprintf(&l[n], PMAPI_THREAD_PREFIX "/%d", (int) c->tid) < 0) {
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

static int property_get_events(sd_bus *bus, const char *path, const char *interface,
                               const char *property, sd_bus_message *reply, void *userdata,
                               sd_bus_error *error) {
        Context *c = userdata;
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        return bus_append_events(reply, c->manager->events, c->program);
}

int bus_append_time(sd_bus_message *reply, const char *property, const AcctVector accu) {
        int64_t v = accu[strcmp(property, "TimeEnabled") == 0 ? ACCT_ENABLED : ACCT_RUNNING];

        return sd_bus_message_append(reply, "t", (uint64_t) (v > 0 ? v : 0));
}

static int property_get_times(sd_bus *bus, const char *path, const char *interface, const char *property,
                              sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        AcctVector accu;
        int r;

        (void) bus, (void) path, (void) interface;
        r = context_read(userdata, accu);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "Reading the thread's counters failed: %m");
        return bus_append_time(reply, property, accu);
}

int bus_append_event_names(sd_bus_message *reply, const EventTable *t, const Program *p) {
        int32_t events[MAX_COUNTERS];
        int r;

        (void) program_set_events(&p->sets[0], t, events);
        r = sd_bus_message_open_container(reply, 'a', "s");
        if (r < 0)
                return r;
        for (int i = 0; i < MAX_COUNTERS; i++) {
                const Event *e = events[i] == COUNT_NOTHING ? NULL : event_table_find(t, events[i]);
                r = sd_bus_message_append(reply, "s", e ? e->short_name : "");
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

int bus_append_events(sd_bus_message *reply, const EventTable *t, const Program *p) {
        int32_t events[MAX_COUNTERS];

        (void) program_set_events(&p->sets[0], t, events);
        return sd_bus_message_append_array(reply, 'i', events, sizeof(events));
}

static int property_get_event_names(sd_bus *bus, const char *path, const char *interface,
                                    const char *property, sd_bus_message *reply, void *userdata,
                                    sd_bus_error *error) {
        Context *c = userdata;
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        return bus_append_event_names(reply, c->manager->events, c->program);
}

static int property_get_group(sd_bus *bus, const char *path, const char *interface,
                              const char *property, sd_bus_message *reply, void *userdata,
                              sd_bus_error *error) {
        Context *c = userdata;
        char p[sizeof(PMAPI_GROUP_PREFIX) + 16];

        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        if (!c->group)
                return sd_bus_message_append(reply, "o", "/");
        (void) snprintf(p, sizeof(p), PMAPI_GROUP_PREFIX "/%u", c->group->id);
        return sd_bus_message_append(reply, "o", p);
}

static int property_get_mode(sd_bus *bus, const char *path, const char *interface,
                             const char *property, sd_bus_message *reply, void *userdata,
                             sd_bus_error *error) {
        Program p = context_get_program(userdata);
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        return sd_bus_message_append(reply, "i", (int32_t) p.mode);
}

static int property_get_counting(sd_bus *bus, const char *path, const char *interface,
                                 const char *property, sd_bus_message *reply, void *userdata,
                                 sd_bus_error *error) {
        Context *c = userdata;
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        context_sync_local(c);
        return sd_bus_message_append(reply, "b", (int) c->counting);
}

static int property_get_origin(sd_bus *bus, const char *path, const char *interface,
                               const char *property, sd_bus_message *reply, void *userdata,
                               sd_bus_error *error) {
        Context *c = userdata;
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        return sd_bus_message_append(reply, "s", context_origin_to_string(c->origin));
}

/* Whether what the thread creates is born counting inside the kernel (heirs.h), rather than
 * attached after the fact: its program passes on, the engine carries it, and no limit refused. */
static int property_get_born_counting(sd_bus *bus, const char *path, const char *interface,
                                      const char *property, sd_bus_message *reply, void *userdata,
                                      sd_bus_error *error) {
        Context *c = userdata;
        Manager *m = c->manager;
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        return sd_bus_message_append(reply, "b", (int) (m && m->heirs && heirs_carries(m->heirs, c->tid) &&
                                                         !c->late_heir));
}

/* The event sets of a multiplexed program (one for a pm_prog_t), its slice, and each set's times. */
static int property_get_sets(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Context *c = userdata;
        Program p = context_get_program(c);
        SetSource src = { set_source_read_context, c, 0 };

        (void) bus, (void) path, (void) interface;
        return bus_append_sets_property(reply, property, &p, &src, error);
}

static const sd_bus_vtable thread_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("ProcessId", "i", NULL, offsetof(Context, pid), SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("ThreadId", "i", NULL, offsetof(Context, tid), SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("OwnerUid", "u", NULL, offsetof(Context, owner_uid), SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("TargetUid", "u", NULL, offsetof(Context, target_uid), SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("CreatorPid", "i", NULL, offsetof(Context, creator_pid), SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Origin", "s", property_get_origin, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Events", "ai", property_get_events, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("EventNames", "as", property_get_event_names, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Mode", "i", property_get_mode, 0, 0),
        SD_BUS_PROPERTY("Counting", "b", property_get_counting, 0, 0),
        SD_BUS_PROPERTY("CreationsBornCounting", "b", property_get_born_counting, 0, 0),
        SD_BUS_PROPERTY("Group", "o", property_get_group, 0, 0),
        SD_BUS_PROPERTY("TimeEnabled", "t", property_get_times, 0, 0),
        SD_BUS_PROPERTY("TimeRunning", "t", property_get_times, 0, 0),
        SD_BUS_PROPERTY("SliceMs", "u", property_get_sets, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Sets", "a(iai)", property_get_sets, 0, 0),
        SD_BUS_PROPERTY("SetTimes", "a(tt)", property_get_sets, 0, 0),
        SD_BUS_VTABLE_END
};

int context_bus_register(Manager *m, sd_bus *bus) {
        int r;

        r = sd_bus_add_fallback_vtable(bus, NULL, PMAPI_THREAD_PREFIX, PMAPI_THREAD_INTERFACE,
                                       thread_vtable, context_find, m);
        if (r < 0)
                return r;
        return sd_bus_add_node_enumerator(bus, NULL, PMAPI_THREAD_PREFIX, context_enumerate, m);
}
