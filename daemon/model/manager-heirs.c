/* manager-heirs.c: the Manager's side of inheritance inside the kernel (heirs.h): which threads
 * carry (a context whose program passes on: its creations are born counting). The engine starts in
 * manager.c; a born thread becomes a context of its own when pmapid hears of it (inherit.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "heirs.h"
#include "log.h"
#include "manager.h"
#include "pmu-budget.h"

/* Whether the kernel can carry every event of c's program (heirs_can_carry_event). */
static bool carriable(const Context *c) {
        for (size_t i = 0; i < c->encoding->n_events; i++)
                if (!heirs_can_carry_event(&c->encoding->attrs[i]))
                        return false;
        return true;
}

bool manager_register_carrier(Manager *m, const AttachSpec *spec, pid_t tid) {
        ProgramEncoding enc;
        int r;

        if (!m->heirs || spec->born || !program_inherits(spec->program) || program_n_sets(spec->program) != 1)
                return false;
        program_encode(spec->program, m->events, &enc);
        if (pmu_budget_hardware_events(enc.attrs, enc.n_events) == 0)
                return false;   /* its own perf counters count it: no PMU counter is at stake */
        for (size_t i = 0; i < enc.n_events; i++)
                if (!heirs_can_carry_event(&enc.attrs[i]))
                        return false;
        r = heirs_register_carrier(m->heirs, tid, enc.attrs, enc.n_events, spec->group ? spec->group->id : 0,
                                   manager_charged_uid(spec->owner_uid, spec->target_uid, CONTEXT_INHERIT));
        if (r < 0) {
                log_info("Thread %d's program of hardware events is not carried inside the kernel (%s): it and "
                         "its creations are counted by counters of their own, its creations from when pmapid "
                         "attaches them.", (int) tid,
                         r == -ENOSPC ? "the PMU's counters for carried programs are taken ([Limits] CarriedCounters)" :
                         r == -E2BIG ? "too many different events counted at once" : strerror(-r));
                return false;
        }
        return true;
}

void manager_carry(Manager *m, Context *c) {
        bool inherits = program_inherits(c->program);
        int r;

        /* A process group's threads made by non-members join it from their fork records. */
        manager_set_late_heir(m, c, inherits && c->group && c->group->process);
        if (!m->heirs || c->backend == &counter_backend_bpf)
                return;         /* a born thread carries the control it was born with */
        /* Several sets take turns on the PMU: a born thread would count them all at once. Hardware
         * events would hold the PMU's counters on every CPU (heirs.h). Those threads are attached
         * after the fact, as without the engine. */
        if (!inherits || context_n_sets(c) != 1 || !carriable(c)) {
                heirs_drop(m->heirs, c->tid);
                manager_set_late_heir(m, c, inherits);
                return;
        }
        /* Its births count against the uid its contexts would: the owner's, or root's target's. */
        r = heirs_carry(m->heirs, c->tid, c->encoding->attrs, c->encoding->n_events, c->enabled,
                        c->group ? c->group->id : 0, manager_charged_uid(c->owner_uid, c->target_uid, CONTEXT_INHERIT));
        if (r < 0) {
                log_debug("Thread %d's creations will be attached after the fact: %s", (int) c->tid,
                          r == -E2BIG ? "too many different events counted at once" :
                          r == -ENOSPC ? "the PMU's counters for carried programs are taken" : strerror(-r));
                manager_set_late_heir(m, c, true);
        }
}
