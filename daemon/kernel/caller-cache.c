/* caller-cache.c: see caller-cache.h. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caller-cache.h"

/* What the cache keeps of a connection: its caller and the pin of the process behind it; or, until
 * its first call names its caller, only the PID and EUID the bus gave (pin -1). */
typedef struct CallerEntry {
        Caller caller;
        int pin;
} CallerEntry;

static void caller_entry_free(gpointer p) {
        CallerEntry *e = p;

        if (e->pin >= 0)
                close(e->pin);
        free(e);
}

static int on_name_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        CallerCache *c = userdata;
        const char *name, *old_owner, *new_owner;

        (void) error;
        if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0)
                return 0;
        if (name[0] == ':' && new_owner[0] == '\0')
                g_hash_table_remove(c->by_name, name);
        return 0;
}

int caller_cache_new(sd_bus *bus, CallerCache **ret) {
        CallerCache *c = calloc(1, sizeof(*c));
        int r;

        if (!c)
                return -ENOMEM;
        c->by_name = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, caller_entry_free);
        r = sd_bus_match_signal(bus, &c->match, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                "org.freedesktop.DBus", "NameOwnerChanged", on_name_owner_changed, c);
        if (r < 0) {
                caller_cache_free(c);
                return r;
        }
        *ret = c;
        return 0;
}

CallerCache *caller_cache_free(CallerCache *c) {
        if (!c)
                return NULL;
        sd_bus_slot_unref(c->match);
        g_hash_table_destroy(c->by_name);
        free(c);
        return NULL;
}

int caller_cache_get(CallerCache *c, sd_bus_message *m, bool want_groups, Caller *ret) {
        const char *sender = sd_bus_message_get_sender(m);
        CallerEntry *e;
        int r, pin;

        if (!c || !sender) {            /* peer-to-peer: no unique names, ask every time */
                r = caller_from_message(m, ret, &pin);
                if (r >= 0)
                        close(pin);
                return r;
        }
        e = g_hash_table_lookup(c->by_name, sender);
        if (e && e->pin >= 0) {
                /* A connection whose process has exited stays refused until it closes: its PID
                 * may name another process by now. */
                if (!process_pin_alive(e->pin))
                        return -ESTALE;
                /* Who the process is now decides, read under the pin: a drop counts from the next
                 * call, and the connection's rights never outlive its process's. */
                r = caller_follow_process(&e->caller, e->pin, want_groups);
                if (r < 0 || !process_pin_alive(e->pin))
                        return -ESTALE;
                *ret = e->caller;
                return 0;
        }
        if (e) {                        /* the bus told its credentials (caller-lookup.c) */
                r = caller_from_creds(e->caller.pid, e->caller.euid, e->caller.groups, e->caller.n_groups,
                                      &e->caller, &e->pin);
                if (r < 0) {
                        e->pin = -1;
                        return r;
                }
                *ret = e->caller;
                return 0;
        }
        e = calloc(1, sizeof(*e));
        if (!e)
                return -ENOMEM;
        r = caller_from_message(m, &e->caller, &e->pin);
        if (r < 0) {
                free(e);
                return r;
        }
        *ret = e->caller;
        g_hash_table_insert(c->by_name, g_strdup(sender), e);
        return 0;
}

bool caller_cache_knows(CallerCache *c, const char *sender) {
        return g_hash_table_contains(c->by_name, sender);
}

int caller_cache_put_creds(CallerCache *c, const char *sender, pid_t pid, uid_t euid, const gid_t *groups,
                           size_t n_groups) {
        CallerEntry *e;

        if (caller_cache_knows(c, sender))
                return 0;
        e = calloc(1, sizeof(*e));
        if (!e)
                return -ENOMEM;
        *e = (CallerEntry) { .caller = { .pid = pid, .euid = euid, .egid = (gid_t) -1 }, .pin = -1 };
        /* The bus's list until the first call checks it against the process's own. */
        e->caller.n_groups = n_groups < CALLER_MAX_GROUPS ? (unsigned) n_groups : CALLER_MAX_GROUPS;
        memcpy(e->caller.groups, groups, e->caller.n_groups * sizeof(gid_t));
        g_hash_table_insert(c->by_name, g_strdup(sender), e);
        return 0;
}
