/* manager-heirs.c: the Manager's side of inheritance inside the kernel (heirs.h): which threads
 * carry (a context whose program passes on: its creations are born counting), and the engine's
 * start. A born thread becomes a context of its own when pmapid hears of it (inherit.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "heirs.h"
#include "log.h"
#include "manager.h"

void manager_carry(Manager *m, Context *c) {
        bool inherits = program_inherits(c->program);
        int r;

        /* A process group's threads made by non-members join it from their fork records. */
        manager_set_late_heir(m, c, inherits && c->group && c->group->process);
        if (!m->heirs || c->backend == &counter_backend_bpf)
                return;         /* a born thread carries the control it was born with */
        /* Several sets take turns on the PMU: a born thread would count them all at once. Those
         * threads are attached after the fact, as without the engine. */
        if (!inherits || context_n_sets(c) != 1) {
                heirs_drop(m->heirs, c->tid);
                manager_set_late_heir(m, c, inherits);
                return;
        }
        /* Its births count against the uid its contexts would: the owner's, or root's target's. */
        r = heirs_carry(m->heirs, c->tid, c->encoding->attrs, c->encoding->n_events, c->enabled,
                        c->group ? c->group->id : 0, manager_charged_uid(c->owner_uid, c->target_uid, CONTEXT_INHERIT));
        if (r < 0) {
                log_debug("Thread %d's creations will be attached after the fact: %s", (int) c->tid,
                          r == -E2BIG ? "too many different events counted at once" : strerror(-r));
                manager_set_late_heir(m, c, true);
        }
}

void manager_start_heirs(Manager *m, unsigned max_threads) {
        const char *forced = getenv("PMAPID_KERNEL_INHERITANCE");
        GHashTableIter it;
        gpointer value;
        size_t n;
        int r;

        if (!m->heirs && forced && strcmp(forced, "no") == 0) {
                log_info("Inheritance inside the kernel is off (PMAPID_KERNEL_INHERITANCE=no): new threads "
                         "are attached after the fact.");
                return;
        }
        if (!m->heirs) {
                r = heirs_new(max_threads, m->max_contexts_per_uid, &m->heirs);
                if (r < 0) {
                        log_warning("Inheritance inside the kernel is not available (%s: %s): new threads not "
                                    "created through libpmapi are attached after the fact, their first "
                                    "microseconds uncounted.", heirs_unavailable_reason(r), strerror(-r));
                        return;
                }
                log_info("Inheritance inside the kernel: new threads and processes of counted threads are "
                         "counted from their first instruction (BPF).");
        }
        counter_bpf_set_engine(m->heirs);
        /* Contexts restored from an image without the engine: their creations are born from now. */
        g_hash_table_iter_init(&it, m->threads);
        while (g_hash_table_iter_next(&it, NULL, &value))
                manager_carry(m, value);
        /* Threads born while no image read the fork records (a re-exec, a restart through the fd
         * store): the records the rings kept first, then their controls say what the others are. */
        if (m->fork_watch)
                fork_watch_flush(m->fork_watch);
        n = manager_sweep_births(m);
        if (n > 0)
                log_info("%zu threads born while pmapid was away attached from their controls.", n);
}
