/* log-budget.c: see log-budget.h. */
#include <stdlib.h>

#include "log-budget.h"

typedef struct LogBudgetEntry {
        uint64_t window_start;
        unsigned lines;                 /* allowed in this window */
        uint64_t suppressed;            /* since the last allowed line */
} LogBudgetEntry;

LogBudget *log_budget_new(void) {
        LogBudget *b = calloc(1, sizeof(*b));

        if (b)
                b->by_uid = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, free);
        return b;
}

LogBudget *log_budget_free(LogBudget *b) {
        if (b) {
                g_hash_table_destroy(b->by_uid);
                free(b);
        }
        return NULL;
}

bool log_budget_allow(LogBudget *b, uid_t uid, uint64_t now_usec, uint64_t *ret_suppressed) {
        LogBudgetEntry *e;

        *ret_suppressed = 0;
        if (!b)
                return true;
        e = g_hash_table_lookup(b->by_uid, GUINT_TO_POINTER(uid));
        if (!e) {
                e = calloc(1, sizeof(*e));
                if (!e)
                        return true;            /* out of memory: log rather than lose the line */
                e->window_start = now_usec;
                g_hash_table_insert(b->by_uid, GUINT_TO_POINTER(uid), e);
        }
        if (now_usec - e->window_start >= LOG_BUDGET_WINDOW_USEC) {
                e->window_start = now_usec;
                e->lines = 0;
        }
        if (e->lines >= LOG_BUDGET_LINES) {
                e->suppressed++;
                return false;
        }
        e->lines++;
        *ret_suppressed = e->suppressed;
        e->suppressed = 0;
        return true;
}
