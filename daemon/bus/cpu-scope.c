/* cpu-scope.c: the methods of the scopes whose contexts count on every CPU (cpu-scope.h), made once
 * from their CpuScope tables: set, get and delete a program (single set or Mx), start, stop, reset,
 * and read the total or one CPU's counts. */
#include "bus-errors.h"
#include "bus-names.h"
#include "cpu-scope.h"
#include "log.h"
#include "macro.h"
#include "manager-dbus.h"
#include "sets-dbus.h"

static int set_program(sd_bus_message *m, const CpuScopeBinding *b, sd_bus_error *error, BusProgramReader read) {
        Program program;
        Caller caller;
        uint64_t id = 0;
        int counter = -1;
        ProgramError pe;
        int r;

        r = b->scope->read_target(m, &id);
        if (r < 0)
                return r;
        r = manager_bus_caller(m, b->manager, error, &caller);
        if (r < 0)
                return r;
        r = read(m, error, &program);
        if (r >= 0)
                r = manager_bus_check_sets(b->manager, error, &program);
        if (r < 0)
                return r;
        pe = program_check_system(&program, b->manager->events, &counter);
        if (pe != PROGRAM_OK)
                return bus_error_program(error, pe, counter);
        r = b->scope->set(b->manager, &caller, id, &program);
        if (r < 0)
                return b->scope->fail(m, b->manager, error, &caller, id, r);
        return sd_bus_reply_method_return(m, NULL);
}

int cpu_scope_set_program(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return set_program(m, userdata, error, manager_bus_read_program);
}

int cpu_scope_set_program_mx(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return set_program(m, userdata, error, manager_bus_read_program_mx);
}

/* The call's context, after its target arguments: 0, or a D-Bus error set. */
typedef struct Target {
        Caller caller;
        uint64_t id;
        SystemContext *s;
} Target;

static int resolve(sd_bus_message *m, const CpuScopeBinding *b, sd_bus_error *error, Target *ret) {
        return b->scope->resolve(m, b->manager, error, &ret->caller, &ret->id, &ret->s);
}

static int fail(sd_bus_message *m, const CpuScopeBinding *b, sd_bus_error *error, const Target *t, int r) {
        return b->scope->fail(m, b->manager, error, &t->caller, t->id, r);
}

/* The context's program, in the reply reply makes (a single set, or the Mx form). */
static int get_program(sd_bus_message *m, const CpuScopeBinding *b, sd_bus_error *error,
                       int (*reply)(sd_bus_message *m, const Program *p)) {
        Target t;
        Program p;
        int r = resolve(m, b, error, &t);

        if (r < 0)
                return r;
        p = system_get_program(t.s);
        return reply(m, &p);
}

int cpu_scope_get_program(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return get_program(m, userdata, error, manager_bus_reply_program);
}

int cpu_scope_get_program_mx(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return get_program(m, userdata, error, manager_bus_reply_program_mx);
}

int cpu_scope_delete_program(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const CpuScopeBinding *b = userdata;
        Target t;
        int r = resolve(m, b, error, &t);

        if (r < 0)
                return r;
        b->scope->delete(b->manager, t.s);
        return sd_bus_reply_method_return(m, NULL);
}

int cpu_scope_start(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const CpuScopeBinding *b = userdata;
        Target t;
        int r = resolve(m, b, error, &t);

        if (r < 0)
                return r;
        r = b->scope->start(b->manager, &t.caller, t.s);
        if (r < 0)
                return fail(m, b, error, &t, r);
        return manager_bus_reply_done(m, true);
}

/* Stop and reset need nothing of the scope but its context. */
static int op(sd_bus_message *m, const CpuScopeBinding *b, sd_bus_error *error, int (*f)(SystemContext *s),
              bool stamped) {
        Target t;
        int r = resolve(m, b, error, &t);

        if (r < 0)
                return r;
        r = f(t.s);
        if (r < 0)
                return fail(m, b, error, &t, r);
        return manager_bus_reply_done(m, stamped);
}

int cpu_scope_stop(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return op(m, userdata, error, system_stop, true);
}

int cpu_scope_reset_data(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return op(m, userdata, error, system_reset, false);
}

int cpu_scope_get_data(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const CpuScopeBinding *b = userdata;
        AcctVector accu;
        Target t;
        int r = resolve(m, b, error, &t);

        if (r < 0)
                return r;
        r = system_read(t.s, accu);
        if (r < 0)
                return fail(m, b, error, &t, r);
        return manager_bus_reply_data(m, accu, NULL, b->scope->reports_removed ? &t.s->cgroup_removed : NULL);
}

int cpu_scope_get_data_mx(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        AcctVector v[PM_MX_MAX_SETS];
        Target t;
        int r = resolve(m, userdata, error, &t);

        if (r < 0)
                return r;
        r = set_source_read_all(&(SetSource) { set_source_read_system, t.s, 0 }, t.s->n_sets, v);
        if (r < 0)
                return fail(m, userdata, error, &t, r);
        return manager_bus_reply_sets(m, &t.s->program, v, system_longest_enabled(t.s), NULL, NULL);
}

/* The context, and the CPU its (id, logical) arguments name, after the target's. */
static int resolve_cpu(sd_bus_message *m, const CpuScopeBinding *b, sd_bus_error *error, Target *ret,
                       unsigned *ret_cpu) {
        uint32_t id;
        int logical, r;

        r = resolve(m, b, error, ret);
        if (r < 0)
                return r;
        r = sd_bus_message_read(m, "ub", &id, &logical);
        if (r < 0)
                return r;
        r = system_cpu_by_id(ret->s, id, logical, ret_cpu);
        return r < 0 ? fail(m, b, error, ret, r) : 0;
}

int cpu_scope_get_cpu_data(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        AcctVector accu;
        unsigned cpu = 0;
        Target t;
        int r = resolve_cpu(m, userdata, error, &t, &cpu);

        if (r < 0)
                return r;
        r = system_read_cpu(t.s, cpu, accu);
        if (r < 0)
                return fail(m, userdata, error, &t, r);
        return manager_bus_reply_data(m, accu, &cpu, NULL);
}

int cpu_scope_get_cpu_data_mx(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        AcctVector v[PM_MX_MAX_SETS];
        unsigned cpu = 0;
        Target t;
        int r = resolve_cpu(m, userdata, error, &t, &cpu);

        if (r < 0)
                return r;
        r = set_source_read_all(&(SetSource) { set_source_read_system_cpu, t.s, cpu }, t.s->n_sets, v);
        if (r < 0)
                return fail(m, userdata, error, &t, r);
        return manager_bus_reply_sets(m, &t.s->program, v, manager_bus_longest_enabled(v, t.s->n_sets), NULL, NULL);
}

int cpu_scopes_register(Manager *manager, sd_bus *bus) {
        /* One Manager per process: its bindings live as long as the bus does. */
        static CpuScopeBinding system, cgroup;
        int r;

        system = (CpuScopeBinding) { manager, &cpu_scope_system };
        cgroup = (CpuScopeBinding) { manager, &cpu_scope_cgroup };
        r = sd_bus_add_object_vtable(bus, NULL, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE, cpu_scope_system_vtable,
                                     &system);
        if (r >= 0)
                r = sd_bus_add_object_vtable(bus, NULL, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE,
                                             cpu_scope_cgroup_vtable, &cgroup);
        return r;
}
