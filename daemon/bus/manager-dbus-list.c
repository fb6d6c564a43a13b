/* manager-dbus-list.c: the Manager's ListContexts method, for pmctl and for admins: every live
 * context the caller may see (root: all; others: the ones they own and the ones on their threads),
 * in one reply, sorted by thread id so that two listings compare line by line. */
#include <stdio.h>
#include <stdlib.h>

#include "bus-names.h"
#include "context-dbus.h"
#include "macro.h"
#include "manager-dbus.h"

static int compare_tid(const void *a, const void *b) {
        const Context *x = *(Context *const *) a, *y = *(Context *const *) b;
        return (x->tid > y->tid) - (x->tid < y->tid);
}

static int append_context(sd_bus_message *reply, Context *c) {
        char group[sizeof(PMAPI_GROUP_PREFIX) + 16] = "/";

        context_sync_local(c);
        if (c->group)
                (void) snprintf(group, sizeof(group), PMAPI_GROUP_PREFIX "/%u", c->group->id);
        return sd_bus_message_append(reply, "(iiuuisbo)", (int32_t) c->pid, (int32_t) c->tid,
                                     (uint32_t) c->owner_uid, (uint32_t) c->target_uid,
                                     (int32_t) c->creator_pid, context_origin_to_string(c->origin),
                                     (int) c->counting, group);
}

int method_list_contexts(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ Context **list = NULL;
        Manager *manager = userdata;
        GHashTableIter it;
        gpointer value;
        Caller caller;
        size_t n = 0;
        int r;

        (void) error;
        r = manager_bus_caller(m, manager, error, &caller);
        if (r < 0)
                return r;
        list = calloc(manager_n_contexts(manager) + 1, sizeof(*list));
        if (!list)
                return -ENOMEM;
        g_hash_table_iter_init(&it, manager->threads);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                Context *c = value;
                if (caller_may_see(&caller, c->owner_uid, c->target_uid))
                        list[n++] = c;
        }
        qsort(list, n, sizeof(*list), compare_tid);

        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(iiuuisbo)");
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                r = append_context(reply, list[i]);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}
