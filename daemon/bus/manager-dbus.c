/* manager-dbus.c: the Manager interface. Each handler reads its arguments, identifies the caller
 * from the bus, calls one core function and replies; errors become named D-Bus errors in
 * bus-errors.c. Nothing here blocks. */
#include "bus-errors.h"
#include "bus-names.h"
#include <inttypes.h>
#include <stdio.h>

#include "clock.h"
#include "context-dbus.h"
#include "cgroup-dbus.h"
#include "cpu-dbus.h"
#include "group-dbus.h"
#include "log.h"
#include "macro.h"
#include "heirs.h"
#include "cpu-scope.h"
#include "manager-dbus.h"

bool manager_log_budget(Manager *m, uid_t uid, char *suffix, size_t size) {
        uint64_t suppressed;

        if (!log_budget_allow(m->log_budget, uid, now_monotonic_ns() / 1000, &suppressed))
                return false;
        if (suppressed > 0)
                (void) snprintf(suffix, size, " (%" PRIu64 " more refusals of this user not logged)", suppressed);
        else
                suffix[0] = '\0';
        return true;
}

int manager_bus_caller(sd_bus_message *m, Manager *manager, sd_bus_error *error, Caller *ret) {
        int r = caller_cache_get(manager->callers, m, access_policy_names_groups(&manager->policy), ret);
        char more[96];

        /* No identity to charge: connections whose process is gone share one budget. */
        if (r == -ESTALE && manager_log_budget(manager, (uid_t) -1, more, sizeof(more)))
                log_info("Refused %s to bus connection '%s': the process that opened it has exited or runs as "
                         "another user now%s.", sd_bus_message_get_member(m), sd_bus_message_get_sender(m) ?: "-",
                         more);
        if (r < 0)
                return bus_error_caller(error, r);
        if (!access_policy_admits(&manager->policy, ret)) {
                manager->n_refused++;
                if (manager_log_budget(manager, ret->euid, more, sizeof(more)))
                        log_notice("Refused %s to pid %d uid %u: not a member of [Access] OnlyGroups%s.",
                                   sd_bus_message_get_member(m), (int) ret->pid, (unsigned) ret->euid, more);
                return sd_bus_error_set(error, PMAPI_ERROR_ACCESS_DENIED,
                                        "The administrator allows pmapi only to the groups of [Access] OnlyGroups "
                                        "in pmapid.conf; ask to be added to one, or run as root");
        }
        manager_note_grant(manager, ret);
        return 0;
}

int manager_bus_read_target(sd_bus_message *m, Manager *manager, sd_bus_error *error, BusTarget *ret) {
        int32_t pid, tid;
        int r;

        r = sd_bus_message_read(m, "ii", &pid, &tid);
        if (r < 0)
                return r;
        r = manager_bus_caller(m, manager, error, &ret->caller);
        if (r < 0)
                return r;
        ret->pid = pid;
        ret->tid = tid;
        ret->refusal = ACCESS_SELF;
        return 0;
}

int manager_bus_fail(sd_bus_message *m, Manager *manager, sd_bus_error *error, int r, const BusTarget *t) {
        const char *method = sd_bus_message_get_member(m);
        char more[96];

        if (r == -EPERM && !access_allowed(t->refusal)) {
                manager->n_refused++;
                if (manager_log_budget(manager, t->caller.euid, more, sizeof(more)))
                        log_notice("Refused %s on thread %d of pid %d to pid %d uid %u: %s%s.", method, (int) t->tid,
                                   (int) t->pid, (int) t->caller.pid, (unsigned) t->caller.euid,
                                   access_verdict_reason(t->refusal), more);
        } else if ((r == -EDQUOT || r == -ENFILE) && strcmp(method, "Inherit") == 0) {
                /* A new thread over a limit: its group logs it once (manager_group_missed), and
                 * ThreadsMissed counts it; a line per thread would be thousands. */
        } else if (r == -EPERM || r == -EACCES || r == -EDQUOT || r == -ENFILE) {
                if (manager_log_budget(manager, t->caller.euid, more, sizeof(more)))
                        log_info("Refused %s on thread %d of pid %d to pid %d uid %u: %s%s%s.", method, (int) t->tid,
                                 (int) t->pid, (int) t->caller.pid, (unsigned) t->caller.euid,
                                 bus_error_name_from_errno(r),
                                 r == -EPERM ? " (perf_event_paranoid, no [Access] grant)" :
                                 r == -EACCES ? " (perf_event_paranoid, no [Access] KernelModeGroups grant)" : "",
                                 more);
        } else
                log_debug("%s on thread %d of pid %d by pid %d uid %u failed: %s.", method, (int) t->tid,
                          (int) t->pid, (int) t->caller.pid, (unsigned) t->caller.euid,
                          bus_error_name_from_errno(r));
        if (r == -ENODATA) {
                unsigned group;
                int why;

                if (missed_find(manager->missed, t->pid, t->tid, &group, &why))
                        return sd_bus_error_setf(error, PMAPI_ERROR_NOT_ATTACHED, "Thread %d (pid %d) was created in "
                                                 "counting group %u, but pmapid could not count it: %s",
                                                 (int) t->tid, (int) t->pid, group, manager_miss_reason(why));
        }
        return bus_error_target(error, r, t->refusal, t->pid, t->tid);
}

int manager_bus_read_program(sd_bus_message *m, sd_bus_error *error, Program *ret) {
        Program program = {};
        const int32_t *events;
        size_t n_bytes;
        int32_t mode;
        int r;

        r = sd_bus_message_read(m, "i", &mode);
        if (r < 0)
                return r;
        r = sd_bus_message_read_array(m, 'i', (const void **) &events, &n_bytes);
        if (r < 0)
                return r;
        if (n_bytes / sizeof(int32_t) > MAX_COUNTERS)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "At most %d events, one per counter", MAX_COUNTERS);
        program.mode = (uint32_t) mode;
        for (size_t c = 0; c < MAX_COUNTERS; c++)
                program.events[c] = c < n_bytes / sizeof(int32_t) ? events[c] : COUNT_NOTHING;
        *ret = program;
        return 0;
}

int manager_bus_check_sets(Manager *manager, sd_bus_error *error, const Program *p) {
        ProgramError pe = program_check_sets(p, manager->max_sets);

        return pe == PROGRAM_OK ? 0 : bus_error_program(error, pe, 0);
}

int manager_bus_set_program(sd_bus_message *m, void *userdata, sd_bus_error *error, BusProgramReader read) {
        Manager *manager = userdata;
        Program program;
        BusTarget t;
        int counter = -1;
        ProgramError pe;
        int r;

        r = manager_bus_read_target(m, manager, error, &t);
        if (r < 0)
                return r;
        r = read(m, error, &program);
        if (r >= 0)
                r = manager_bus_check_sets(manager, error, &program);
        if (r < 0)
                return r;
        pe = program_check_thread(&program, manager->events, &counter);
        if (pe != PROGRAM_OK)
                return bus_error_program(error, pe, counter);
        r = manager_set_program(manager, &t.caller, t.pid, t.tid, &program, &t.refusal);
        if (r < 0)
                return manager_bus_fail(m, manager, error, r, &t);
        return sd_bus_reply_method_return(m, NULL);
}

static int method_set_program(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return manager_bus_set_program(m, userdata, error, manager_bus_read_program);
}

int manager_bus_message_context(sd_bus_message *m, Manager *manager, sd_bus_error *error, BusTarget *ret_target,
                                Context **ret) {
        int r;

        r = manager_bus_read_target(m, manager, error, ret_target);
        if (r < 0)
                return r;
        r = manager_get_thread(manager, &ret_target->caller, ret_target->pid, ret_target->tid, ret,
                               &ret_target->refusal);
        if (r < 0)
                return manager_bus_fail(m, manager, error, r, ret_target);
        return 0;
}

/* Whether OpenLocal would hand c to the caller of t (manager-dbus-local.c says why these). */
bool manager_bus_local_allowed(const BusTarget *t, const Context *c) {
        return t->pid == t->caller.pid && c->owner_uid == t->caller.euid && !c->group &&
               !program_multi_set(c->program) &&
               (c->private_leader ? c->backend->sibling_fd(c->counters) >= 0 : c->backend == &counter_backend_bpf);
}

int manager_bus_append_times(sd_bus_message *reply, const AcctVector accu) {
        return sd_bus_message_append(reply, "tt", (uint64_t) MAX(accu[ACCT_ENABLED], 0),
                                     (uint64_t) MAX(accu[ACCT_RUNNING], 0));
}

int manager_bus_reply_done(sd_bus_message *m, bool stamped) {
        return stamped ? sd_bus_reply_method_return(m, "t", now_monotonic_ns()) : sd_bus_reply_method_return(m, NULL);
}

int manager_bus_reply_data(sd_bus_message *m, const AcctVector accu, const unsigned *cpu, const bool *removed) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_append_array(reply, 'x', accu, ACCT_COUNTS_SIZE);
        if (r >= 0)
                r = sd_bus_message_append(reply, "t", now_monotonic_ns());
        if (r >= 0 && cpu)
                r = sd_bus_message_append(reply, "u", (uint32_t) *cpu);
        if (r >= 0 && removed)
                r = sd_bus_message_append(reply, "b", (int) *removed);
        if (r >= 0)
                r = manager_bus_append_times(reply, accu);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

int manager_bus_reply_program(sd_bus_message *m, const Program *p) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "i", (int32_t) p->mode);
        if (r < 0)
                return r;
        r = sd_bus_message_append_array(reply, 'i', p->events, sizeof(p->events));
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int method_get_program(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        BusTarget t;
        Context *c;
        Program p;
        int r;

        r = manager_bus_message_context(m, userdata, error, &t, &c);
        if (r < 0)
                return r;
        p = context_get_program(c);
        return manager_bus_reply_program(m, &p);
}

static int method_delete_program(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        BusTarget t;
        Context *c;
        int r;

        r = manager_bus_message_context(m, userdata, error, &t, &c);
        if (r < 0)
                return r;
        if (t.pid != t.caller.pid)
                log_info("Context of thread %d of pid %d deleted by pid %d uid %u.", (int) t.tid, (int) t.pid,
                         (int) t.caller.pid, (unsigned) t.caller.euid);
        manager_delete_context(userdata, c);
        return sd_bus_reply_method_return(m, NULL);
}

typedef int (*ContextOp)(Context *c);

/* op on the message's context; with stamped, the reply is the CLOCK_MONOTONIC time right after it
 * (pm_tstart, pm_tstop). */
static int context_op(sd_bus_message *m, void *userdata, sd_bus_error *error, ContextOp op, bool stamped) {
        BusTarget t;
        Context *c;
        int r;

        r = manager_bus_message_context(m, userdata, error, &t, &c);
        if (r < 0)
                return r;
        r = op(c);
        if (r < 0)
                return manager_bus_fail(m, userdata, error, r, &t);
        return manager_bus_reply_done(m, stamped);
}

static int method_start(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return context_op(m, userdata, error, context_start, true);
}

static int method_stop(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return context_op(m, userdata, error, context_stop, true);
}

static int method_reset_data(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return context_op(m, userdata, error, context_reset, false);
}

static int method_get_data(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        AcctVector accu;
        BusTarget t;
        Context *c;
        int r;

        r = manager_bus_message_context(m, userdata, error, &t, &c);
        if (r < 0)
                return r;
        r = manager_check_read(userdata, &t.caller, c->program, c->owner_uid);
        if (r >= 0)
                r = context_read(c, accu);
        if (r < 0)
                return manager_bus_fail(m, userdata, error, r, &t);
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_append_array(reply, 'x', accu, ACCT_COUNTS_SIZE);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "t", now_monotonic_ns());
        if (r < 0)
                return r;
        /* Whether OpenLocal would hand this caller the context (manager-dbus-local.c): libpmapi
         * asks only then, so that a futile call never lands in what a thread counts. */
        r = sd_bus_message_append(reply, "b", (int) manager_bus_local_allowed(&t, c));
        if (r < 0)
                return r;
        r = manager_bus_append_times(reply, accu);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int method_inherit(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Manager *manager = userdata;
        int32_t ppid, ptid;
        uint64_t created_ns;
        bool attached = false;
        BusTarget t;
        int r;

        r = manager_bus_read_target(m, manager, error, &t);
        if (r < 0)
                return r;
        r = sd_bus_message_read(m, "iit", &ppid, &ptid, &created_ns);
        if (r < 0)
                return r;
        r = manager_inherit(manager, &t.caller, t.pid, t.tid, ppid, ptid, created_ns, &attached);
        if (r < 0)
                return manager_bus_fail(m, manager, error, r, &t);
        return sd_bus_reply_method_return(m, "b", (int) attached);
}

static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("GetEvents", SD_BUS_NO_ARGS,
                                SD_BUS_RESULT("s", processor, "u", counters, "a(iusss)", events),
                                method_get_events, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetGroups", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(isssai)", groups),
                                method_get_groups, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetMetrics", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(sssssd)", metrics),
                                method_get_metrics, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetProgram",
                                SD_BUS_ARGS("i", pid, "i", tid, "i", mode, "ai", events),
                                SD_BUS_NO_RESULT, method_set_program, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetProgram", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("i", mode, "ai", events),
                                method_get_program, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("DeleteProgram", SD_BUS_ARGS("i", pid, "i", tid), SD_BUS_NO_RESULT,
                                method_delete_program, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Start", SD_BUS_ARGS("i", pid, "i", tid), SD_BUS_RESULT("t", timestamp_ns),
                                method_start, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Stop", SD_BUS_ARGS("i", pid, "i", tid), SD_BUS_RESULT("t", timestamp_ns),
                                method_stop, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ResetData", SD_BUS_ARGS("i", pid, "i", tid), SD_BUS_NO_RESULT,
                                method_reset_data, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetData", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("ax", data, "t", timestamp_ns, "b", local, "t", enabled_ns,
                                              "t", running_ns),
                                method_get_data, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("OpenLocal", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("h", counter, "h", page, "h", state),
                                method_open_local, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetProgramMx",
                                SD_BUS_ARGS("i", pid, "i", tid, "i", slice_ms, "b", multi_mode, "a(iai)", sets),
                                SD_BUS_NO_RESULT, method_set_program_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetProgramMx", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("i", slice_ms, "b", multi_mode, "a(iai)", sets),
                                method_get_program_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetDataMx", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("a(axtt)", sets, "t", timestamp_ns, "u", rounds),
                                method_get_data_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetGroupProgramMx",
                                SD_BUS_ARGS("i", pid, "i", tid, "i", slice_ms, "b", multi_mode, "a(iai)", sets),
                                SD_BUS_NO_RESULT, method_set_group_program_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetGroupProgramMx", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("i", slice_ms, "b", multi_mode, "a(iai)", sets),
                                method_get_group_program_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetGroupDataMx", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("a(axtt)", sets, "t", timestamp_ns, "i", members, "u", flags,
                                              "u", rounds),
                                method_get_group_data_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetGroupProgram",
                                SD_BUS_ARGS("i", pid, "i", tid, "i", mode, "ai", events),
                                SD_BUS_NO_RESULT, method_set_group_program, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetGroupProgram", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("i", mode, "ai", events),
                                method_get_group_program, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("DeleteGroupProgram", SD_BUS_ARGS("i", pid, "i", tid), SD_BUS_NO_RESULT,
                                method_delete_group_program, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("StartGroup", SD_BUS_ARGS("i", pid, "i", tid), SD_BUS_RESULT("t", timestamp_ns),
                                method_start_group, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("StopGroup", SD_BUS_ARGS("i", pid, "i", tid), SD_BUS_RESULT("t", timestamp_ns),
                                method_stop_group, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ResetGroupData", SD_BUS_ARGS("i", pid, "i", tid), SD_BUS_NO_RESULT,
                                method_reset_group_data, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetGroupData", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("ax", data, "t", timestamp_ns, "i", members, "u", flags,
                                              "t", enabled_ns, "t", running_ns),
                                method_get_group_data, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListCgroups", SD_BUS_ARGS("s", path, "b", subtree),
                                SD_BUS_RESULT("a(tsb)", cgroups), method_list_cgroups, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetGroupMembers", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("a(iisbax)", members, "u", dropped),
                                method_get_group_members, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetGroupMembersPage", SD_BUS_ARGS("i", pid, "i", tid, "u", first, "u", max),
                                SD_BUS_RESULT("a(iisbax)", members, "u", dropped, "u", total, "u", missed),
                                method_get_group_members_page, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListContexts", SD_BUS_NO_ARGS,
                                SD_BUS_RESULT("a(iiuuisbo)", contexts),
                                method_list_contexts, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ReadContexts", SD_BUS_ARGS("u", after_tid, "u", max),
                                SD_BUS_RESULT("a(iiubuaiaxtt)", contexts, "b", more, "u", resume_after),
                                method_read_contexts, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ReadGroups", SD_BUS_ARGS("u", after_id, "u", max),
                                SD_BUS_RESULT("a(uiuiubaiaxtt)", groups, "b", more, "u", resume_after),
                                method_read_groups, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Inherit",
                                SD_BUS_ARGS("i", pid, "i", tid, "i", parent_pid, "i", parent_tid,
                                            "t", created_ns),
                                SD_BUS_RESULT("b", attached),
                                method_inherit, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END
};

int manager_bus_register(Manager *m, sd_bus *bus) {
        int r;

        r = caller_cache_new(bus, &m->callers);
        if (r < 0)
                return log_error_errno(r, "Failed to watch bus clients: %m");
        r = caller_lookup_new(bus, m->callers, &m->lookup);
        if (r < 0)
                return log_error_errno(r, "Failed to set up caller lookups: %m");
        m->log_budget = log_budget_new();
        m->creation_log_budget = log_budget_new();
        if (!m->log_budget || !m->creation_log_budget)
                return log_error_errno(-ENOMEM, "Out of memory.");
        r = sd_bus_add_object_vtable(bus, NULL, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE,
                                     manager_properties_vtable, m);
        if (r >= 0)
                r = sd_bus_add_object_vtable(bus, NULL, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE,
                                             manager_vtable, m);
        if (r < 0)
                return log_error_errno(r, "Failed to register the Manager object: %m");
        r = cpu_scopes_register(m, bus);
        if (r < 0)
                return log_error_errno(r, "Failed to register the system and cgroup scopes: %m");
        r = context_bus_register(m, bus);
        if (r < 0)
                return log_error_errno(r, "Failed to register the thread objects: %m");
        r = group_bus_register(m, bus);
        if (r < 0)
                return log_error_errno(r, "Failed to register the group objects: %m");
        r = cgroup_bus_register(m, bus);
        if (r < 0)
                return log_error_errno(r, "Failed to register the cgroup objects: %m");
        r = cpu_bus_register(m, bus);
        if (r < 0)
                return log_error_errno(r, "Failed to register the CPU objects: %m");
        return 0;
}
