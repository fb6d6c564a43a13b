/* thread-scope.h: the Manager's scopes that name one thread (pid, tid), of the caller's own process
 * (AIX's _mythread, _mygroup) or one the caller may trace (_thread, _group, _pthread, _pgroup): the
 * thread scope (that thread's context) and the group scope (that thread's group, the thread being
 * the "calling thread" of AIX's group rules). What differs between them is one ThreadScope; the
 * methods are made once, from it (thread-scope.c), and each scope lists them in a vtable of its own
 * on the Manager's path and interface, whose userdata is its ThreadScopeBinding. A new scope of this
 * kind is one table and one vtable; cpu-scope.h is the same for the scopes that count per CPU. */
#pragma once

#include <systemd/sd-bus.h>

#include "manager-dbus.h"
#include "sets-dbus.h"

/* A call's target: the named thread, its context and, in the group scope, its group. */
typedef struct ScopeTarget {
        BusTarget t;
        Context *context;
        Group *group;
} ScopeTarget;

typedef struct ThreadScope {
        /* Finds the named thread's context (and group) if the caller may act on it: 0, or a negative
         * errno with t->refusal set where the access rule refused. */
        int (*find)(Manager *manager, ScopeTarget *s);
        /* The checks of each set in the scope, then the set itself (the program passed them). */
        ProgramError (*check)(const Program *p, const EventTable *events, int *ret_counter);
        int (*set)(Manager *manager, BusTarget *t, const Program *p);
        Program (*get_program)(const ScopeTarget *s);
        /* Deletes the target's program, saying so where another process deleted it. */
        void (*delete)(Manager *manager, const ScopeTarget *s);
        int (*start)(const ScopeTarget *s);
        int (*stop)(const ScopeTarget *s);
        int (*reset)(const ScopeTarget *s);
        /* What a read is checked against (manager_check_read): the program and its owner. */
        const Program *(*read_program)(const ScopeTarget *s, uid_t *ret_owner);
        int (*read)(const ScopeTarget *s, AcctVector ret);
        /* The Mx reads: each set's counts, and the enabled time AIX's rounds are counted over. */
        SetSource (*sets)(const ScopeTarget *s, size_t *ret_n_sets);
        uint64_t (*longest_enabled)(const ScopeTarget *s, const AcctVector *v, size_t n_sets);
        /* The data replies' values after the time stamp: GetData's; GetDataMx's, whose userdata is
         * the ScopeTarget (NULL: none). */
        int (*append_data)(sd_bus_message *reply, const ScopeTarget *s);
        BusAppend append_data_mx;
        bool flush_births;              /* reads wait for the fork watch's records: new members */
} ThreadScope;

typedef struct ThreadScopeBinding {
        Manager *manager;
        const ThreadScope *scope;
} ThreadScopeBinding;

extern const ThreadScope thread_scope_thread, thread_scope_group;
extern const sd_bus_vtable thread_scope_thread_vtable[], thread_scope_group_vtable[];

/* The methods, each with a ThreadScopeBinding as userdata. */
int thread_scope_set_program(sd_bus_message *m, void *userdata, sd_bus_error *error);
int thread_scope_set_program_mx(sd_bus_message *m, void *userdata, sd_bus_error *error);
int thread_scope_get_program(sd_bus_message *m, void *userdata, sd_bus_error *error);
int thread_scope_get_program_mx(sd_bus_message *m, void *userdata, sd_bus_error *error);
int thread_scope_delete_program(sd_bus_message *m, void *userdata, sd_bus_error *error);
int thread_scope_start(sd_bus_message *m, void *userdata, sd_bus_error *error);
int thread_scope_stop(sd_bus_message *m, void *userdata, sd_bus_error *error);
int thread_scope_reset_data(sd_bus_message *m, void *userdata, sd_bus_error *error);
int thread_scope_get_data(sd_bus_message *m, void *userdata, sd_bus_error *error);
int thread_scope_get_data_mx(sd_bus_message *m, void *userdata, sd_bus_error *error);

/* Registers both scopes' vtables on the Manager's object. */
int thread_scopes_register(Manager *manager, sd_bus *bus);
