/* context-list.c: see context-list.h. One ListContexts call (tool-bus.c), copied out of the reply so
 * that the caller may keep the list after the connection is gone. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "bus-names.h"
#include "context-list.h"
#include "macro.h"
#include "pmapi.h"
#include "tool-bus.h"

ContextList *context_list_free(ContextList *l) {
        if (!l)
                return NULL;
        for (size_t i = 0; i < l->n_entries; i++) {
                free(l->entries[i].origin);
                free(l->entries[i].group_path);
        }
        free(l->entries);
        free(l);
        return NULL;
}

static long group_id_from_path(const char *path) {
        const char *prefix = PMAPI_GROUP_PREFIX "/";
        char *end;
        long id;

        if (strncmp(path, prefix, strlen(prefix)) != 0)
                return -1;
        errno = 0;
        id = strtol(path + strlen(prefix), &end, 10);
        return errno == 0 && *end == '\0' && id >= 0 ? id : -1;
}

/* One (iiuuisbo) into e; returns 1, 0 at the end of the array, or -errno. */
static int read_entry(sd_bus_message *reply, ContextEntry *e) {
        const char *origin, *group;
        int counting, r;

        r = sd_bus_message_read(reply, "(iiuuisbo)", &e->pid, &e->tid, &e->owner_uid, &e->target_uid,
                                &e->creator_pid, &origin, &counting, &group);
        if (r <= 0)
                return r;
        e->counting = counting;
        e->group_id = -1;
        e->origin = strdup(origin);
        if (!e->origin)
                return -ENOMEM;
        if (strcmp(group, "/") != 0) {
                e->group_path = strdup(group);
                if (!e->group_path)
                        return -ENOMEM;
                e->group_id = group_id_from_path(group);
        }
        return 1;
}

static int read_reply(sd_bus_message *reply, ContextList *l) {
        size_t allocated = 0;
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "(iiuuisbo)");
        if (r < 0)
                return r;
        for (;;) {
                if (l->n_entries == allocated) {
                        size_t n = allocated ? allocated * 2 : 16;
                        ContextEntry *p = realloc(l->entries, n * sizeof(ContextEntry));
                        if (!p)
                                return -ENOMEM;
                        l->entries = p;
                        allocated = n;
                }
                /* Counted before it is filled, so that a half-read entry is freed with the list. */
                l->entries[l->n_entries] = (ContextEntry) {};
                r = read_entry(reply, &l->entries[l->n_entries++]);
                if (r <= 0) {
                        if (r == 0)
                                l->n_entries--;
                        return r;
                }
        }
}

int context_list_fetch(ContextList **ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(context_list_freep) ContextList *l = NULL;
        int r;

        r = tool_bus_call("ListContexts", &reply, NULL);
        if (r != 0)
                return r;
        l = calloc(1, sizeof(ContextList));
        if (!l)
                return PM_ENOMEM;
        r = read_reply(reply, l);
        if (r < 0)
                return r == -ENOMEM ? PM_ENOMEM : PM_EDAEMON;
        *ret = TAKE_PTR(l);
        return 0;
}
