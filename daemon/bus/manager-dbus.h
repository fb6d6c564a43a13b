/* manager-dbus.h: the org.pmapi.PerfMon1.Manager interface on /org/pmapi/PerfMon1: what its
 * handlers share (manager-call.c), and the handlers outside the scopes' tables. Its vtables: the
 * catalog, lists and Inherit in manager-dbus.c, the properties in manager-dbus-properties.c, the
 * thread and group scopes' (thread-scope.h) and the system and cgroup scopes' (cpu-scope.h). */
#pragma once

#include "manager.h"

int manager_bus_register(Manager *m, sd_bus *bus);

/* A call naming a thread: who calls (from the bus), which thread (from the arguments), and why the
 * core refused it, if it did. */
typedef struct BusTarget {
        Caller caller;
        pid_t pid;
        pid_t tid;
        AccessVerdict refusal;          /* ACCESS_SELF until the access rule refuses */
} BusTarget;

/* Whether a refusal line for uid fits its log budget (log-budget.h); suffix gets " (N more ...)"
 * when lines of that uid were suppressed before, else "". */
bool manager_log_budget(Manager *m, uid_t uid, char *suffix, size_t size);
/* The caller of m, from the bus (caller-cache.h); a caller that is gone sets CallerGone in error. */
int manager_bus_caller(sd_bus_message *m, Manager *manager, sd_bus_error *error, Caller *ret);
/* Shared by the handlers. Reads the (pid, tid) arguments and the caller's credentials. */
int manager_bus_read_target(sd_bus_message *m, Manager *manager, sd_bus_error *error, BusTarget *ret);
/* Turns the core's error r into the D-Bus error, and logs refusals with caller and target. */
int manager_bus_fail(sd_bus_message *m, Manager *manager, sd_bus_error *error, int r, const BusTarget *t);
/* Reads the (mode, events) arguments; a malformed array sets error. */
int manager_bus_read_program(sd_bus_message *m, sd_bus_error *error, Program *ret);
/* Reads the Mx methods' (slice_ms, multi_mode, a(mode, events) sets) arguments (manager-dbus-mx.c). */
int manager_bus_read_program_mx(sd_bus_message *m, sd_bus_error *error, Program *ret);
/* Replies (slice_ms, multi_mode, a(mode, events) sets). */
int manager_bus_reply_program_mx(sd_bus_message *m, const Program *p);
/* The longest time a set of one target (a thread, a CPU) was enabled: what AIX's rounds are counted
 * over. A group's or a system context's vectors are sums over targets: their scopes say it. */
uint64_t manager_bus_longest_enabled(const AcctVector *v, size_t n_sets);
/* Appends a reply's values of a scope's own (userdata: what the scope says). */
typedef int (*BusAppend)(sd_bus_message *reply, const void *userdata);
/* Replies (a(data, enabled, running), timestamp, [what extra appends], rounds), the rounds over
 * enabled_ns. */
int manager_bus_reply_sets(sd_bus_message *m, const Program *p, const AcctVector *v, uint64_t enabled_ns,
                           BusAppend extra, const void *userdata);
/* Reads a program's arguments: the single set's (manager_bus_read_program) or the Mx form's. */
typedef int (*BusProgramReader)(sd_bus_message *m, sd_bus_error *error, Program *ret);
/* The checks of a program's shape (sets, slice) before the scope's: a D-Bus error and a negative
 * value if it is wrong. */
int manager_bus_check_sets(Manager *manager, sd_bus_error *error, const Program *p);
/* Replies (mode, events). */
int manager_bus_reply_program(sd_bus_message *m, const Program *p);
/* Appends a data reply's last two values: the time the counters were enabled and ran (ns). */
int manager_bus_append_times(sd_bus_message *reply, const AcctVector accu);
/* Replies to a method without data: nothing, or with stamped the CLOCK_MONOTONIC time now. */
int manager_bus_reply_done(sd_bus_message *m, bool stamped);
/* Replies (data, timestamp), then the CPU number when cpu is given, then removed when given, then
 * the times. */
int manager_bus_reply_data(sd_bus_message *m, const AcctVector accu, const unsigned *cpu, const bool *removed);

/* The catalog (manager-dbus-catalog.c). */
int method_get_events(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_get_groups(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_get_metrics(sd_bus_message *m, void *userdata, sd_bus_error *error);
/* manager-dbus-cgroup.c */
int method_list_cgroups(sd_bus_message *m, void *userdata, sd_bus_error *error);
/* The rows of a group's members (manager-dbus-members.c). */
int method_get_group_members(sd_bus_message *m, void *userdata, sd_bus_error *error);
/* The rows a page at a time: at most MEMBERS_PAGE_MAX. */
#define MEMBERS_PAGE_MAX 1024
int method_get_group_members_page(sd_bus_message *m, void *userdata, sd_bus_error *error);
/* A thread's own counters for reads in process (manager-dbus-local.c). */
int method_open_local(sd_bus_message *m, void *userdata, sd_bus_error *error);
/* Whether OpenLocal hands c to this caller: its own process, the owner, no group, a private leader
 * (GetData tells libpmapi so, and OpenLocal checks it). */
bool manager_bus_local_allowed(const BusTarget *t, const Context *c);
/* The admin's list of contexts (manager-dbus-list.c). */
int method_list_contexts(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_read_contexts(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_read_groups(sd_bus_message *m, void *userdata, sd_bus_error *error);

/* The Manager's properties (manager-dbus-properties.c), registered beside its methods. */
extern const sd_bus_vtable manager_properties_vtable[];
