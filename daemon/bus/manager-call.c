/* manager-call.c: what every handler of the Manager's methods does with a call: who calls (from the
 * bus, within the log budget of refusals), which thread or context it names, its program's
 * arguments and checks, the core's errors as D-Bus errors, and the replies of data, programs and
 * times. Below every scope's handlers: none of them is here. */
#include <inttypes.h>
#include <stdio.h>

#include "bus-errors.h"
#include "bus-names.h"
#include "clock.h"
#include "log.h"
#include "macro.h"
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
