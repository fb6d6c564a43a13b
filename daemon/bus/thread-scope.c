/* thread-scope.c: the methods of the scopes that name one thread (thread-scope.h), made once from
 * their ThreadScope tables: set, get and delete a program (single set or Mx), start, stop, reset,
 * and read. */
#include "bus-errors.h"
#include "bus-names.h"
#include "clock.h"
#include "fork-watch.h"
#include "macro.h"
#include "thread-scope.h"

static int set_program(sd_bus_message *m, const ThreadScopeBinding *b, sd_bus_error *error, BusProgramReader read) {
        Program program;
        BusTarget t;
        int counter = -1;
        ProgramError pe;
        int r;

        r = manager_bus_read_target(m, b->manager, error, &t);
        if (r < 0)
                return r;
        r = read(m, error, &program);
        if (r >= 0)
                r = manager_bus_check_sets(b->manager, error, &program);
        if (r < 0)
                return r;
        pe = b->scope->check(&program, b->manager->events, &counter);
        if (pe != PROGRAM_OK)
                return bus_error_program(error, pe, counter);
        r = b->scope->set(b->manager, &t, &program);
        if (r < 0)
                return manager_bus_fail(m, b->manager, error, r, &t);
        return sd_bus_reply_method_return(m, NULL);
}

int thread_scope_set_program(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return set_program(m, userdata, error, manager_bus_read_program);
}

int thread_scope_set_program_mx(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return set_program(m, userdata, error, manager_bus_read_program_mx);
}

/* The call's target after its (pid, tid) arguments: 0, or a D-Bus error set. */
static int resolve(sd_bus_message *m, const ThreadScopeBinding *b, sd_bus_error *error, ScopeTarget *ret) {
        int r;

        *ret = (ScopeTarget) {};
        r = manager_bus_read_target(m, b->manager, error, &ret->t);
        if (r < 0)
                return r;
        r = b->scope->find(b->manager, ret);
        return r < 0 ? manager_bus_fail(m, b->manager, error, r, &ret->t) : 0;
}

/* The target's program, in the reply reply makes (a single set, or the Mx form). */
static int get_program(sd_bus_message *m, const ThreadScopeBinding *b, sd_bus_error *error,
                       int (*reply)(sd_bus_message *m, const Program *p)) {
        ScopeTarget s;
        Program p;
        int r = resolve(m, b, error, &s);

        if (r < 0)
                return r;
        p = b->scope->get_program(&s);
        return reply(m, &p);
}

int thread_scope_get_program(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return get_program(m, userdata, error, manager_bus_reply_program);
}

int thread_scope_get_program_mx(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return get_program(m, userdata, error, manager_bus_reply_program_mx);
}

int thread_scope_delete_program(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const ThreadScopeBinding *b = userdata;
        ScopeTarget s;
        int r = resolve(m, b, error, &s);

        if (r < 0)
                return r;
        b->scope->delete(b->manager, &s);
        return sd_bus_reply_method_return(m, NULL);
}

/* op on the target; with stamped, the reply is the CLOCK_MONOTONIC time right after it (pm_tstart,
 * pm_tstop). */
static int op(sd_bus_message *m, const ThreadScopeBinding *b, sd_bus_error *error,
              int (*f)(const ScopeTarget *s), bool stamped) {
        ScopeTarget s;
        int r = resolve(m, b, error, &s);

        if (r < 0)
                return r;
        r = f(&s);
        if (r < 0)
                return manager_bus_fail(m, b->manager, error, r, &s.t);
        return manager_bus_reply_done(m, stamped);
}

int thread_scope_start(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const ThreadScopeBinding *b = userdata;

        return op(m, b, error, b->scope->start, true);
}

int thread_scope_stop(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const ThreadScopeBinding *b = userdata;

        return op(m, b, error, b->scope->stop, true);
}

int thread_scope_reset_data(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const ThreadScopeBinding *b = userdata;

        return op(m, b, error, b->scope->reset, false);
}

/* The target of a read, which the caller may read: 0, or a D-Bus error set. */
static int resolve_read(sd_bus_message *m, const ThreadScopeBinding *b, sd_bus_error *error, ScopeTarget *ret) {
        const Program *p;
        uid_t owner;
        int r;

        /* Threads created outside libpmapi just before this call are members by now. */
        if (b->scope->flush_births && b->manager->fork_watch)
                fork_watch_flush(b->manager->fork_watch);
        r = resolve(m, b, error, ret);
        if (r < 0)
                return r;
        p = b->scope->read_program(ret, &owner);
        r = manager_check_read(b->manager, &ret->t.caller, p, owner);
        return r < 0 ? manager_bus_fail(m, b->manager, error, r, &ret->t) : 0;
}

int thread_scope_get_data(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const ThreadScopeBinding *b = userdata;
        AcctVector accu;
        ScopeTarget s;
        int r = resolve_read(m, b, error, &s);

        if (r < 0)
                return r;
        r = b->scope->read(&s, accu);
        if (r < 0)
                return manager_bus_fail(m, b->manager, error, r, &s.t);
        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_append_array(reply, 'x', accu, ACCT_COUNTS_SIZE);
        if (r >= 0)
                r = sd_bus_message_append(reply, "t", now_monotonic_ns());
        if (r >= 0)
                r = b->scope->append_data(reply, &s);
        if (r >= 0)
                r = manager_bus_append_times(reply, accu);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

int thread_scope_get_data_mx(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const ThreadScopeBinding *b = userdata;
        AcctVector v[PM_MX_MAX_SETS];
        ScopeTarget s;
        SetSource src;
        Program p;
        size_t n_sets;
        int r = resolve_read(m, b, error, &s);

        if (r < 0)
                return r;
        src = b->scope->sets(&s, &n_sets);
        r = set_source_read_all(&src, n_sets, v);
        if (r < 0)
                return manager_bus_fail(m, b->manager, error, r, &s.t);
        p = b->scope->get_program(&s);
        return manager_bus_reply_sets(m, &p, v, b->scope->longest_enabled(&s, v, n_sets), b->scope->append_data_mx,
                                      &s);
}

int thread_scopes_register(Manager *manager, sd_bus *bus) {
        /* One Manager per process: its bindings live as long as the bus does. */
        static ThreadScopeBinding thread, group;
        int r;

        thread = (ThreadScopeBinding) { manager, &thread_scope_thread };
        group = (ThreadScopeBinding) { manager, &thread_scope_group };
        r = sd_bus_add_object_vtable(bus, NULL, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE,
                                     thread_scope_thread_vtable, &thread);
        if (r >= 0)
                r = sd_bus_add_object_vtable(bus, NULL, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE,
                                             thread_scope_group_vtable, &group);
        return r;
}
