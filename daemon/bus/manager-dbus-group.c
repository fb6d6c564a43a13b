/* manager-dbus-group.c: the group scope (thread-scope.h). Every method names a thread (pid, tid), of
 * the caller's own process (_mygroup) or one the caller may trace (_group), and acts on that
 * thread's group, with that thread as the "calling thread" of AIX's rules (docs/design.md, "Group
 * accounting", and A1-A5). */
#include "log.h"
#include "thread-scope.h"

static int find(Manager *manager, ScopeTarget *s) {
        return manager_get_group(manager, &s->t.caller, s->t.pid, s->t.tid, &s->context, &s->group, &s->t.refusal);
}

static int set(Manager *manager, BusTarget *t, const Program *p) {
        return manager_set_group_program(manager, &t->caller, t->pid, t->tid, p, &t->refusal);
}

static Program get_program(const ScopeTarget *s) {
        return group_get_program(s->group);
}

static void delete_program(Manager *manager, const ScopeTarget *s) {
        if (s->t.pid != s->t.caller.pid)
                log_info("Group %u of thread %d of pid %d deleted by pid %d uid %u.", s->group->id, (int) s->t.tid,
                         (int) s->t.pid, (int) s->t.caller.pid, (unsigned) s->t.caller.euid);
        manager_delete_group(manager, s->group);
}

/* The named thread's context is the "calling thread" of the group's start, stop and reset. */
static int start(const ScopeTarget *s) {
        return group_start(s->group, s->context);
}

static int stop(const ScopeTarget *s) {
        return group_stop(s->group, s->context);
}

static int reset(const ScopeTarget *s) {
        return group_reset(s->group, s->context);
}

static const Program *read_program(const ScopeTarget *s, uid_t *ret_owner) {
        *ret_owner = s->group->owner_uid;
        return &s->group->program;
}

static int read_counts(const ScopeTarget *s, AcctVector ret) {
        return group_read(s->group, ret);
}

static SetSource sets(const ScopeTarget *s, size_t *ret_n_sets) {
        *ret_n_sets = group_n_sets(s->group);
        return (SetSource) { set_source_read_group, s->group, 0 };
}

/* The sum over members: its longest member's time, which the group keeps. */
static uint64_t longest_enabled(const ScopeTarget *s, const AcctVector *v, size_t n_sets) {
        (void) v;
        (void) n_sets;
        return group_longest_enabled(s->group);
}

/* The members, and the group's flags (consistent, partial). */
static int append_data(sd_bus_message *reply, const ScopeTarget *s) {
        return sd_bus_message_append(reply, "iu", (int32_t) s->group->n_members, (uint32_t) group_info_flags(s->group));
}

static int append_data_mx(sd_bus_message *reply, const void *userdata) {
        return append_data(reply, userdata);
}

const ThreadScope thread_scope_group = {
        .find = find,
        .check = program_check_group,
        .set = set,
        .get_program = get_program,
        .delete = delete_program,
        .start = start,
        .stop = stop,
        .reset = reset,
        .read_program = read_program,
        .read = read_counts,
        .sets = sets,
        .longest_enabled = longest_enabled,
        .append_data = append_data,
        .append_data_mx = append_data_mx,
        .flush_births = true,
};

const sd_bus_vtable thread_scope_group_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("SetGroupProgram", SD_BUS_ARGS("i", pid, "i", tid, "i", mode, "ai", events),
                                SD_BUS_NO_RESULT, thread_scope_set_program, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetGroupProgram", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("i", mode, "ai", events),
                                thread_scope_get_program, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("DeleteGroupProgram", SD_BUS_ARGS("i", pid, "i", tid), SD_BUS_NO_RESULT,
                                thread_scope_delete_program, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("StartGroup", SD_BUS_ARGS("i", pid, "i", tid), SD_BUS_RESULT("t", timestamp_ns),
                                thread_scope_start, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("StopGroup", SD_BUS_ARGS("i", pid, "i", tid), SD_BUS_RESULT("t", timestamp_ns),
                                thread_scope_stop, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ResetGroupData", SD_BUS_ARGS("i", pid, "i", tid), SD_BUS_NO_RESULT,
                                thread_scope_reset_data, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetGroupData", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("ax", data, "t", timestamp_ns, "i", members, "u", flags,
                                              "t", enabled_ns, "t", running_ns),
                                thread_scope_get_data, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetGroupProgramMx",
                                SD_BUS_ARGS("i", pid, "i", tid, "i", slice_ms, "b", multi_mode, "a(iai)", sets),
                                SD_BUS_NO_RESULT, thread_scope_set_program_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetGroupProgramMx", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("i", slice_ms, "b", multi_mode, "a(iai)", sets),
                                thread_scope_get_program_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetGroupDataMx", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("a(axtt)", sets, "t", timestamp_ns, "i", members, "u", flags,
                                              "u", rounds),
                                thread_scope_get_data_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END
};
