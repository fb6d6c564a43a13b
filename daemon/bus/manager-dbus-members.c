/* manager-dbus-members.c: the Manager's GetGroupMembers and GetGroupMembersPage: one row per
 * member of a thread's group, live or dead, with the member's own counts, for tools that show where
 * a group's counts came from (pmcount --per-thread). Live members are read now; dead ones are the
 * records their deaths left (group.h). The access rules are GetGroupData's. A group may have tens
 * of thousands of members, and pmapid serves one call at a time: a page holds at most
 * MEMBERS_PAGE_MAX rows, so that one caller's reads of a large group keep everyone else waiting
 * about a millisecond at a time rather than the whole group's worth. A name goes out escaped
 * (comm-text.h): one that is not valid UTF-8 would make sd-bus refuse the whole reply. */
#include "caller.h"
#include "comm-text.h"
#include "macro.h"
#include "manager-comm.h"
#include "manager-dbus.h"

static int append_member(sd_bus_message *reply, pid_t pid, pid_t tid, const char *comm, bool alive,
                         const AcctVector counts) {
        char text[COMM_UTF8_MAX];
        int r;

        r = sd_bus_message_open_container(reply, 'r', "iisbax");
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "iisb", (int32_t) pid, (int32_t) tid, comm_to_utf8(comm, text),
                                  (int) alive);
        if (r < 0)
                return r;
        r = sd_bus_message_append_array(reply, 'x', counts, ACCT_COUNTS_SIZE);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(reply);
}

/* Rows first .. first + n - 1 of the group: the live members, then the dead ones' records. */
static int append_members(sd_bus_message *reply, Group *g, size_t first, size_t n) {
        size_t total = g->n_live + g->n_records;
        int r;

        r = sd_bus_message_open_container(reply, 'a', "(iisbax)");
        if (r < 0)
                return r;
        for (size_t i = first; i < total && i - first < n; i++) {
                if (i < g->n_live) {
                        Context *c = g->live[i];
                        AcctVector counts;

                        r = context_read(c, counts);
                        if (r < 0)
                                return r;
                        /* A thread whose exit is not handled yet: its counts are final already. */
                        r = append_member(reply, c->pid, c->tid, c->comm,
                                          c->pidfd < 0 || thread_pin_alive(c->pidfd), counts);
                } else {
                        const GroupMemberRecord *rec = &g->records[i - g->n_live];
                        r = append_member(reply, rec->pid, rec->tid, rec->comm, false, rec->counts);
                }
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_message_append(reply, "u", g->n_records_dropped);
}

/* Reads (pid, tid) and, when paged, (first, max); replies with those rows, and with the number of
 * rows in all when paged. */
static int get_members(sd_bus_message *m, Manager *manager, sd_bus_error *error, bool paged) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        uint32_t first = 0, max = UINT32_MAX;
        BusTarget t;
        Context *c;
        Group *g;
        int r;

        /* New threads are members by now, and every name the kernel reported is applied. */
        if (manager->fork_watch)
                fork_watch_flush(manager->fork_watch);
        r = manager_bus_read_target(m, manager, error, &t);
        if (r < 0)
                return r;
        if (paged) {
                r = sd_bus_message_read(m, "uu", &first, &max);
                if (r < 0)
                        return r;
                max = MIN(max, (uint32_t) MEMBERS_PAGE_MAX);
        }
        r = manager_get_group(manager, &t.caller, t.pid, t.tid, &c, &g, &t.refusal);
        if (r >= 0)
                r = manager_check_read(manager, &t.caller, &g->program, g->owner_uid);
        if (r < 0)
                return manager_bus_fail(m, manager, error, r, &t);
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = append_members(reply, g, first, max);
        if (r >= 0 && paged)
                r = sd_bus_message_append(reply, "uu", (uint32_t) (g->n_live + g->n_records), g->n_missed);
        if (r < 0)
                return manager_bus_fail(m, manager, error, r, &t);
        return sd_bus_send(NULL, reply, NULL);
}

int method_get_group_members(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return get_members(m, userdata, error, false);
}

int method_get_group_members_page(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return get_members(m, userdata, error, true);
}
