/* manager-dbus-thread.c: the thread scope (thread-scope.h). Every method names a thread (pid, tid),
 * the caller's own (_mythread) or one the caller may trace (_thread, _pthread), and acts on that
 * thread's context. */
#include "log.h"
#include "thread-scope.h"

static int find(Manager *manager, ScopeTarget *s) {
        return manager_get_thread(manager, &s->t.caller, s->t.pid, s->t.tid, &s->context, &s->t.refusal);
}

static int set(Manager *manager, BusTarget *t, const Program *p) {
        return manager_set_program(manager, &t->caller, t->pid, t->tid, p, &t->refusal);
}

static Program get_program(const ScopeTarget *s) {
        return context_get_program(s->context);
}

static void delete_program(Manager *manager, const ScopeTarget *s) {
        if (s->t.pid != s->t.caller.pid)
                log_info("Context of thread %d of pid %d deleted by pid %d uid %u.", (int) s->t.tid, (int) s->t.pid,
                         (int) s->t.caller.pid, (unsigned) s->t.caller.euid);
        manager_delete_context(manager, s->context);
}

static int start(const ScopeTarget *s) {
        return context_start(s->context);
}

static int stop(const ScopeTarget *s) {
        return context_stop(s->context);
}

static int reset(const ScopeTarget *s) {
        return context_reset(s->context);
}

static const Program *read_program(const ScopeTarget *s, uid_t *ret_owner) {
        *ret_owner = s->context->owner_uid;
        return s->context->program;
}

static int read_counts(const ScopeTarget *s, AcctVector ret) {
        return context_read(s->context, ret);
}

static SetSource sets(const ScopeTarget *s, size_t *ret_n_sets) {
        *ret_n_sets = context_n_sets(s->context);
        return (SetSource) { set_source_read_context, s->context, 0 };
}

static uint64_t longest_enabled(const ScopeTarget *s, const AcctVector *v, size_t n_sets) {
        (void) s;
        return manager_bus_longest_enabled(v, n_sets);
}

/* Whether OpenLocal would hand this caller the context (manager-dbus-local.c): libpmapi asks only
 * then, so that a futile call never lands in what a thread counts. */
static int append_data(sd_bus_message *reply, const ScopeTarget *s) {
        return sd_bus_message_append(reply, "b", (int) manager_bus_local_allowed(&s->t, s->context));
}

const ThreadScope thread_scope_thread = {
        .find = find,
        .check = program_check_thread,
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
};

const sd_bus_vtable thread_scope_thread_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("SetProgram", SD_BUS_ARGS("i", pid, "i", tid, "i", mode, "ai", events),
                                SD_BUS_NO_RESULT, thread_scope_set_program, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetProgram", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("i", mode, "ai", events),
                                thread_scope_get_program, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("DeleteProgram", SD_BUS_ARGS("i", pid, "i", tid), SD_BUS_NO_RESULT,
                                thread_scope_delete_program, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Start", SD_BUS_ARGS("i", pid, "i", tid), SD_BUS_RESULT("t", timestamp_ns),
                                thread_scope_start, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Stop", SD_BUS_ARGS("i", pid, "i", tid), SD_BUS_RESULT("t", timestamp_ns),
                                thread_scope_stop, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ResetData", SD_BUS_ARGS("i", pid, "i", tid), SD_BUS_NO_RESULT,
                                thread_scope_reset_data, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetData", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("ax", data, "t", timestamp_ns, "b", local, "t", enabled_ns,
                                              "t", running_ns),
                                thread_scope_get_data, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetProgramMx",
                                SD_BUS_ARGS("i", pid, "i", tid, "i", slice_ms, "b", multi_mode, "a(iai)", sets),
                                SD_BUS_NO_RESULT, thread_scope_set_program_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetProgramMx", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("i", slice_ms, "b", multi_mode, "a(iai)", sets),
                                thread_scope_get_program_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetDataMx", SD_BUS_ARGS("i", pid, "i", tid),
                                SD_BUS_RESULT("a(axtt)", sets, "t", timestamp_ns, "u", rounds),
                                thread_scope_get_data_mx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END
};
