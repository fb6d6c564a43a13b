/* manager-dbus-catalog.c: the Manager's catalog methods: the events pm_init lists (GetEvents), the
 * predefined event groups (GetGroups) and the derived metrics the tools show (GetMetrics). */
#include "macro.h"
#include "manager-dbus.h"

/* pm_init and the tools' catalog calls: where OnlyGroups is set, the catalog is the service too;
 * elsewhere it names nobody and anyone may read it. */
static int catalog_caller(sd_bus_message *m, Manager *manager, sd_bus_error *error) {
        Caller caller;

        return manager->policy.only.n > 0 ? manager_bus_caller(m, manager, error, &caller) : 0;
}

int method_get_events(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        Manager *manager = userdata;
        const EventTable *t = manager->events;
        int r;

        r = catalog_caller(m, manager, error);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "su", t->pmu_name, (uint32_t) t->n_counters);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(iusss)");
        if (r < 0)
                return r;
        for (size_t i = 0; i < t->n_events; i++) {
                const Event *e = &t->events[i];
                r = sd_bus_message_append(reply, "(iusss)", e->id, (uint32_t) e->status, e->short_name,
                                          e->long_name, e->description);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

/* pm_init(PM_GET_GROUPS): the predefined event groups this machine offers (event-groups.c). */
int method_get_groups(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        Manager *manager = userdata;
        const EventTable *t = manager->events;
        int r;

        r = catalog_caller(m, manager, error);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(isssai)");
        for (size_t i = 0; r >= 0 && i < t->n_groups; i++) {
                const EventGroup *g = &t->groups[i];

                r = sd_bus_message_open_container(reply, 'r', "isssai");
                if (r >= 0)
                        r = sd_bus_message_append(reply, "isss", g->id, g->def->short_name, g->def->long_name,
                                                  g->def->description);
                if (r >= 0)
                        r = sd_bus_message_append_array(reply, 'i', g->events, sizeof(g->events));
                if (r >= 0)
                        r = sd_bus_message_close_container(reply);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

/* The derived metrics whose events this machine counts (daemon/core/events/metrics.c), for the tools. */
int method_get_metrics(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        Manager *manager = userdata;
        int r;

        r = catalog_caller(m, manager, error);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(sssssd)");
        for (size_t i = 0; r >= 0 && i < n_metric_defs; i++) {
                const MetricDef *d = &metric_defs[i];
                if (event_table_has_metric(manager->events, d))
                        r = sd_bus_message_append(reply, "(sssssd)", d->name, d->description, d->numerator,
                                                  d->denominator ? d->denominator : "", d->unit, d->scale);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}
