/* manager-dbus-members.c: the Manager's GetGroupMembers: one row per member of a thread's group,
 * live or dead, with the member's own counts, for tools that show where a group's counts came from
 * (pmcount --per-thread). Live members are read now; dead ones are the records their deaths left
 * (group.h). The access rules are GetGroupData's. */
#include "caller.h"
#include "macro.h"
#include "manager-comm.h"
#include "manager-dbus.h"

static int append_member(sd_bus_message *reply, pid_t pid, pid_t tid, const char *comm, bool alive,
                         const AcctVector counts) {
        int r;

        r = sd_bus_message_open_container(reply, 'r', "iisbax");
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "iisb", (int32_t) pid, (int32_t) tid, comm, (int) alive);
        if (r < 0)
                return r;
        r = sd_bus_message_append_array(reply, 'x', counts, sizeof(AcctVector));
        if (r < 0)
                return r;
        return sd_bus_message_close_container(reply);
}

static int append_members(sd_bus_message *reply, Group *g) {
        int r;

        r = sd_bus_message_open_container(reply, 'a', "(iisbax)");
        if (r < 0)
                return r;
        for (size_t i = 0; i < g->n_live; i++) {
                Context *c = g->live[i];
                AcctVector counts;

                r = context_read(c, counts);
                if (r < 0)
                        return r;
                /* A thread whose exit is not handled yet: its counts are final already. */
                r = append_member(reply, c->pid, c->tid, c->comm, c->pidfd < 0 || thread_pin_alive(c->pidfd),
                                  counts);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < g->n_records; i++) {
                const GroupMemberRecord *rec = &g->records[i];

                r = append_member(reply, rec->pid, rec->tid, rec->comm, false, rec->counts);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_message_append(reply, "u", g->n_records_dropped);
}

int method_get_group_members(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        Manager *manager = userdata;
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
        r = manager_get_group(manager, &t.caller, t.pid, t.tid, &c, &g, &t.refusal);
        if (r >= 0)
                r = manager_check_read(manager, &t.caller, &g->program, g->owner_uid);
        if (r < 0)
                return manager_bus_fail(m, manager, error, r, &t);
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = append_members(reply, g);
        if (r < 0)
                return manager_bus_fail(m, manager, error, r, &t);
        return sd_bus_send(NULL, reply, NULL);
}
