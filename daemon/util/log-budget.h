/* log-budget.h: a per-uid budget for log lines a caller can provoke (refusals), so that one user's
 * flood of refused calls cannot flood the journal (whose own rate limit would then drop other
 * users' lines too). Each uid may cause LOG_BUDGET_LINES lines per LOG_BUDGET_WINDOW_USEC; the
 * first line allowed after a window with suppressed ones says how many were suppressed. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define LOG_BUDGET_LINES 10
#define LOG_BUDGET_WINDOW_USEC (1000u * 1000u)

typedef struct LogBudget {
        GHashTable *by_uid;             /* uid -> LogBudgetEntry* (log-budget.c) */
} LogBudget;

LogBudget *log_budget_new(void);
LogBudget *log_budget_free(LogBudget *b);
/* Whether uid may log a line now (monotonic time now_usec); *ret_suppressed gets the lines
 * suppressed since its last allowed one. A NULL budget allows everything. */
bool log_budget_allow(LogBudget *b, uid_t uid, uint64_t now_usec, uint64_t *ret_suppressed);
