/* caller-lookup.c: see caller-lookup.h. */
#include <stdlib.h>
#include <string.h>

#include "caller-lookup.h"
#include "log.h"

typedef struct Query {
        CallerLookup *lookup;
        char *sender;
} Query;

static void held_free(gpointer p) {
        GQueue *queue = p;
        sd_bus_message *m;

        while ((m = g_queue_pop_head(queue)))
                sd_bus_message_unref(m);
        g_queue_free(queue);
}

/* UnixUserID, ProcessID and UnixGroupIDs from GetConnectionCredentials' a{sv}. */
static int read_creds(sd_bus_message *reply, pid_t *ret_pid, uid_t *ret_uid, gid_t *ret_groups,
                      size_t *ret_n_groups) {
        uint32_t pid = 0, uid = (uint32_t) -1;
        const char *key;
        int r;

        *ret_n_groups = 0;

        r = sd_bus_message_enter_container(reply, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
                r = sd_bus_message_read(reply, "s", &key);
                if (r < 0)
                        return r;
                if (strcmp(key, "UnixUserID") == 0 || strcmp(key, "ProcessID") == 0)
                        r = sd_bus_message_read(reply, "v", "u", key[0] == 'U' ? &uid : &pid);
                else if (strcmp(key, "UnixGroupIDs") == 0) {
                        const uint32_t *gids;
                        size_t n_bytes;

                        r = sd_bus_message_enter_container(reply, 'v', "au");
                        if (r >= 0)
                                r = sd_bus_message_read_array(reply, 'u', (const void **) &gids, &n_bytes);
                        if (r >= 0) {
                                for (size_t i = 0; i < n_bytes / sizeof(uint32_t) && *ret_n_groups < CALLER_MAX_GROUPS; i++)
                                        ret_groups[(*ret_n_groups)++] = (gid_t) gids[i];
                                r = sd_bus_message_exit_container(reply);
                        }
                } else
                        r = sd_bus_message_skip(reply, "v");
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(reply);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        if (pid == 0 || uid == (uint32_t) -1)
                return -ENODATA;
        *ret_pid = (pid_t) pid;
        *ret_uid = (uid_t) uid;
        return 0;
}

/* The query's slot went: its answer came, or the bus closed first (pmapid stopping). */
static void query_free(void *userdata) {
        Query *q = userdata;

        free(q->sender);
        free(q);
}

static int on_creds(sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Query *q = userdata;
        CallerLookup *l = q->lookup;
        GQueue *queue = g_hash_table_lookup(l->held, q->sender);
        gid_t groups[CALLER_MAX_GROUPS];
        size_t n_groups;
        sd_bus_message *m;
        pid_t pid;
        uid_t uid;

        (void) error;
        /* A sender gone meanwhile: its calls are dropped, nobody waits for their answers. */
        if (queue && !sd_bus_message_is_method_error(reply, NULL) &&
            read_creds(reply, &pid, &uid, groups, &n_groups) >= 0 &&
            caller_cache_put_creds(l->cache, q->sender, pid, uid, groups, n_groups) >= 0)
                while ((m = g_queue_pop_head(queue))) {
                        g_hash_table_add(l->released, m);
                        if (sd_bus_enqueue_for_read(l->bus, m) < 0)
                                g_hash_table_remove(l->released, m);
                        sd_bus_message_unref(m);
                }
        g_hash_table_remove(l->held, q->sender);
        return 0;
}

static int ask(CallerLookup *l, const char *sender) {
        Query *q = calloc(1, sizeof(*q));
        sd_bus_slot *slot = NULL;
        int r;

        if (!q || !(q->sender = strdup(sender))) {
                free(q);
                return -ENOMEM;
        }
        q->lookup = l;
        r = sd_bus_call_method_async(l->bus, &slot, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                     "org.freedesktop.DBus", "GetConnectionCredentials", on_creds, q, "s", sender);
        if (r < 0) {
                query_free(q);
                return r;
        }
        /* The bus owns the slot now and frees the query with it, answered or not. */
        (void) sd_bus_slot_set_destroy_callback(slot, query_free);
        (void) sd_bus_slot_set_floating(slot, 1);
        sd_bus_slot_unref(slot);
        return 0;
}

static int on_message(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        CallerLookup *l = userdata;
        const char *sender = sd_bus_message_get_sender(m);
        GQueue *queue;

        (void) error;
        if (g_hash_table_remove(l->released, m))
                return 0;
        /* Only a bus has a driver to ask; a peer-to-peer peer is asked by caller-cache.c. */
        if (!sender || sd_bus_is_bus_client(l->bus) <= 0 || sd_bus_message_is_method_call(m, NULL, NULL) <= 0 ||
            caller_cache_knows(l->cache, sender))
                return 0;
        queue = g_hash_table_lookup(l->held, sender);
        if (!queue) {
                if (ask(l, sender) < 0)
                        return 0;               /* the handler asks the bus itself */
                queue = g_queue_new();
                g_hash_table_insert(l->held, g_strdup(sender), queue);
        }
        if (g_queue_get_length(queue) >= CALLER_LOOKUP_MAX_HELD) {
                (void) sd_bus_reply_method_errorf(m, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                                  "%d calls of this connection wait for the bus to say who sent "
                                                  "them; wait for their answers", CALLER_LOOKUP_MAX_HELD);
                return 1;
        }
        g_queue_push_tail(queue, sd_bus_message_ref(m));
        return 1;
}

int caller_lookup_new(sd_bus *bus, CallerCache *cache, CallerLookup **ret) {
        CallerLookup *l = calloc(1, sizeof(*l));
        int r;

        if (!l)
                return -ENOMEM;
        l->bus = bus;
        l->cache = cache;
        l->held = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, held_free);
        l->released = g_hash_table_new(g_direct_hash, g_direct_equal);
        r = sd_bus_add_filter(bus, &l->filter, on_message, l);
        if (r < 0) {
                caller_lookup_free(l);
                return r;
        }
        *ret = l;
        return 0;
}

CallerLookup *caller_lookup_free(CallerLookup *l) {
        if (!l)
                return NULL;
        sd_bus_slot_unref(l->filter);
        g_hash_table_destroy(l->held);
        g_hash_table_destroy(l->released);
        free(l);
        return NULL;
}

size_t caller_lookup_n_waiting(const CallerLookup *l) {
        return l ? g_hash_table_size(l->held) : 0;
}
