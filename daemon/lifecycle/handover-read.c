/* handover-read.c: the values of a handover blob (handover-type.h) decoded and checked: programs,
 * count vectors, thread names. Nothing here takes an fd; handover-load.c restores what they go in. */
#include <string.h>

#include "handover-read.h"
#include "log.h"
#include "macro.h"

/* A program as saved. Its shape is checked as a client's would be, so that a blob cannot make a set
 * count the arrays below run past. */
static bool read_program(GVariant *v, Program *ret) {
        g_autoptr(GVariant) sets = NULL;
        gboolean multi_mode;
        GVariantIter it;
        GVariant *set;
        size_t k = 0;

        *ret = (Program) {};
        g_variant_get(v, "(uub@a(uai))", &ret->n_sets, &ret->slice_ms, &multi_mode, &sets);
        ret->multi_mode = multi_mode;
        if (g_variant_n_children(sets) != program_n_sets(ret) || ret->n_sets > PM_MX_MAX_SETS)
                return false;
        g_variant_iter_init(&it, sets);
        while ((set = g_variant_iter_next_value(&it))) {
                g_autoptr(GVariant) events = NULL;
                const int32_t *e;
                gsize n;

                g_variant_get(set, "(u@ai)", &ret->sets[k].mode, &events);
                e = g_variant_get_fixed_array(events, &n, sizeof(int32_t));
                for (size_t i = 0; i < MAX_COUNTERS; i++)
                        ret->sets[k].events[i] = i < n ? e[i] : COUNT_NOTHING;
                k++;
                g_variant_unref(set);
        }
        return program_check_sets(ret, PM_MX_MAX_SETS) == PROGRAM_OK;
}

/* Every event of p is in this image's catalog: an upgrade that dropped one must not restore a
 * program whose encoding would read past it (its counters are then closed, as after a crash). */
static bool program_known(const Program *p, const EventTable *t) {
        for (size_t k = 0; k < program_n_sets(p); k++) {
                int32_t events[MAX_COUNTERS];

                if (!program_set_events(&p->sets[k], t, events))
                        return false;           /* an event group this image does not offer */
                for (size_t i = 0; i < MAX_COUNTERS; i++)
                        if (events[i] != COUNT_NOTHING && !event_table_find(t, events[i]))
                                return false;
        }
        return true;
}

/* A program read and known: false, with a warning naming what, if not. */
bool handover_read_known_program(GVariant *v, const EventTable *t, Program *ret, const char *what, int id) {
        if (read_program(v, ret) && program_known(ret, t))
                return true;
        log_warning("%s %d: its program is not one this image can count (an event not in this catalog, "
                    "or a bad shape); not restored.", what, id);
        return false;
}

void handover_read_vector(GVariant *v, AcctVector ret) {
        gsize n;
        const int64_t *x = g_variant_get_fixed_array(v, &n, sizeof(int64_t));

        memset(ret, 0, sizeof(AcctVector));
        memcpy(ret, x, MIN(n, (gsize) ACCT_SLOTS) * sizeof(int64_t));
}

/* n_sets vectors one after the other into ret[0 .. n_sets - 1]; what is missing reads 0. */
void handover_read_vectors(GVariant *v, AcctVector *ret, size_t n_sets) {
        gsize n;
        const int64_t *x = g_variant_get_fixed_array(v, &n, sizeof(int64_t));

        memset(ret, 0, n_sets * sizeof(AcctVector));
        memcpy(ret, x, MIN(n, (gsize) (n_sets * ACCT_SLOTS)) * sizeof(int64_t));
}

void handover_read_comm(GVariant *v, char ret[CONTEXT_COMM_MAX]) {
        gsize n;
        const char *s = g_variant_get_fixed_array(v, &n, 1);

        memset(ret, 0, CONTEXT_COMM_MAX);
        memcpy(ret, s, MIN(n, (gsize) CONTEXT_COMM_MAX - 1));
}
