/* manager-dbus-read.c: the Manager's ReadContexts and ReadGroups methods, for monitoring agents
 * (pmdapmapi): every thread context, or every group, with its events and current data, a page of up
 * to 1,024 per call in id order, where a reader would otherwise make two calls per context. A row
 * is in a page exactly when GetData (GetGroupData through one of the group's live members) would
 * answer the caller now: the same access rule and kernel-mode check, applied to each row, with no
 * refusal logged or counted (the caller named no thread). A call makes at most READ_CHECKS_MAX
 * access checks (each may read /proc) and says where the next call resumes, so a caller whose
 * rows are all refused holds pmapid no longer than one who gets a full page. */
#include <stdlib.h>

#include "access.h"
#include "bus-names.h"
#include "counter.h"
#include "fork-watch.h"
#include "context-dbus.h"
#include "macro.h"
#include "manager-dbus.h"

#define READ_PAGE_MAX 1024
#define READ_CHECKS_MAX 1024

/* Whether GetData(c->pid, c->tid) would answer caller; *checks counts the access checks made. */
static bool may_read_context(Manager *m, const Caller *caller, Context *c, int yama, unsigned *checks) {
        (*checks)++;
        return manager_check_context_access(m, caller, c, yama) >= 0 &&
               manager_check_read(m, caller, c->program, c->owner_uid) >= 0;
}

/* Whether GetGroupData through some live member would answer caller. Members are judged one per
 * process (the first live one of it), so a wide group costs a check per process, not per thread. */
static bool may_read_group(Manager *m, const Caller *caller, Group *g, int yama, unsigned *checks) {
        g_autoptr(GHashTable) judged = NULL;

        if (manager_check_read(m, caller, &g->program, g->owner_uid) < 0)
                return false;
        for (size_t i = 0; i < g->n_live; i++) {
                Context *c = g->live[i];
                if (judged && g_hash_table_contains(judged, GINT_TO_POINTER(c->pid)))
                        continue;
                (*checks)++;
                if (manager_check_context_access(m, caller, c, yama) >= 0)
                        return true;
                if (!judged)
                        judged = g_hash_table_new(NULL, NULL);
                g_hash_table_add(judged, GINT_TO_POINTER(c->pid));
        }
        return false;
}

static int append_events(sd_bus_message *reply, const EventTable *t, const Program *p) {
        int32_t events[MAX_COUNTERS];

        (void) program_set_events(&p->sets[0], t, events);
        return sd_bus_message_append_array(reply, 'i', events, sizeof(events));
}

static int append_data(sd_bus_message *reply, const AcctVector accu) {
        int r = sd_bus_message_append_array(reply, 'x', accu, ACCT_COUNTS_SIZE);
        return r < 0 ? r : manager_bus_append_times(reply, accu);
}

static int append_context(sd_bus_message *reply, Manager *m, Context *c) {
        AcctVector accu;
        int r;

        context_sync_local(c);
        r = context_read(c, accu);
        if (r < 0)
                return 0;               /* its counters went with its thread: not in this page */
        r = sd_bus_message_open_container(reply, 'r', "iiubuaiaxtt");
        if (r >= 0)
                r = sd_bus_message_append(reply, "iiubu", (int32_t) c->pid, (int32_t) c->tid,
                                          (uint32_t) c->owner_uid, (int) c->counting,
                                          (uint32_t) (c->group ? c->group->id : 0));
        if (r >= 0)
                r = append_events(reply, m->events, c->program);
        if (r >= 0)
                r = append_data(reply, accu);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r < 0 ? r : 1;
}

static int append_group(sd_bus_message *reply, Manager *m, Group *g) {
        AcctVector accu;
        int r;

        r = group_read(g, accu);
        if (r < 0)
                return 0;
        r = sd_bus_message_open_container(reply, 'r', "uiuiubaiaxtt");
        if (r >= 0)
                r = sd_bus_message_append(reply, "uiuiub", (uint32_t) g->id, (int32_t) g->pid, (uint32_t) g->owner_uid,
                                          (int32_t) g->n_members, (uint32_t) group_info_flags(g), (int) g->counting);
        if (r >= 0)
                r = append_events(reply, m->events, &g->program);
        if (r >= 0)
                r = append_data(reply, accu);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r < 0 ? r : 1;
}

static int compare_keys(const void *a, const void *b) {
        unsigned x = GPOINTER_TO_UINT(*(gconstpointer const *) a), y = GPOINTER_TO_UINT(*(gconstpointer const *) b);
        return (x > y) - (x < y);
}

/* The keys of table above after, sorted. */
static gpointer *keys_after(GHashTable *table, uint32_t after, size_t *ret_n) {
        gpointer *keys = calloc(g_hash_table_size(table) + 1, sizeof(gpointer));
        GHashTableIter it;
        gpointer key;
        size_t n = 0;

        if (!keys)
                return NULL;
        g_hash_table_iter_init(&it, table);
        while (g_hash_table_iter_next(&it, &key, NULL))
                if (GPOINTER_TO_UINT(key) > after)
                        keys[n++] = key;
        qsort(keys, n, sizeof(*keys), compare_keys);
        *ret_n = n;
        return keys;
}

typedef int (*RowAppender)(sd_bus_message *reply, Manager *m, const Caller *caller, int yama, gpointer value,
                           unsigned *checks);

static int append_context_row(sd_bus_message *reply, Manager *m, const Caller *caller, int yama, gpointer value,
                              unsigned *checks) {
        return may_read_context(m, caller, value, yama, checks) ? append_context(reply, m, value) : 0;
}

static int append_group_row(sd_bus_message *reply, Manager *m, const Caller *caller, int yama, gpointer value,
                            unsigned *checks) {
        return may_read_group(m, caller, value, yama, checks) ? append_group(reply, m, value) : 0;
}

/* Reads (after, max), replies (rows, more, resume_after): the rows of table's entries above after,
 * by key, until max rows or READ_CHECKS_MAX checks (the entry that passes it is finished). */
static int reply_page(sd_bus_message *m, Manager *manager, sd_bus_error *error, GHashTable *table,
                      const char *row_type, RowAppender append) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ gpointer *keys = NULL;
        uint32_t after, max, n_rows = 0, resume;
        unsigned checks = 0;
        size_t n = 0, i = 0;
        Caller caller;
        int r, yama;

        r = sd_bus_message_read(m, "uu", &after, &max);
        if (r < 0)
                return r;
        if (max == 0)
                return sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS,
                                        "A page of 0 rows reads nothing; ask for 1 to 1024");
        r = manager_bus_caller(m, manager, error, &caller);
        if (r < 0)
                return r;
        max = MIN(max, READ_PAGE_MAX);
        keys = keys_after(table, after, &n);
        if (!keys)
                return -ENOMEM;
        yama = yama_ptrace_scope();
        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', row_type);
        resume = after;
        /* One fold of the running born threads for the page (counter.h), and one copy of the
         * kernel's maps where it is long. */
        counter_bpf_reads_begin(n >= 64);
        for (; r >= 0 && i < n && n_rows < max && checks < READ_CHECKS_MAX; i++) {
                r = append(reply, manager, &caller, yama, g_hash_table_lookup(table, keys[i]), &checks);
                n_rows += r > 0;
                if (r > 0)
                        resume = GPOINTER_TO_UINT(keys[i]);
        }
        counter_bpf_reads_end();
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        /* The next page starts after the last row of this one (after, without one): an entry the
         * caller was not shown, such as another user's newest context, is not named to it. Only
         * where the checks ran out does it start after the last entry examined, row or not, so that
         * a caller refused READ_CHECKS_MAX rows still moves on: that entry's key is named then. */
        if (r >= 0 && i < n && n_rows < max && i > 0)
                resume = GPOINTER_TO_UINT(keys[i - 1]);
        if (r >= 0)
                r = sd_bus_message_append(reply, "bu", (int) (i < n), resume);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

int method_read_contexts(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Manager *manager = userdata;

        /* Exits already read by the fork watch are handled first (their contexts released). */
        if (manager->fork_watch)
                fork_watch_flush(manager->fork_watch);
        return reply_page(m, manager, error, manager->threads, "(iiubuaiaxtt)", append_context_row);
}

int method_read_groups(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Manager *manager = userdata;

        /* Threads created outside libpmapi just before this call are members by now. */
        if (manager->fork_watch)
                fork_watch_flush(manager->fork_watch);
        return reply_page(m, manager, error, manager->groups, "(uiuiubaiaxtt)", append_group_row);
}
