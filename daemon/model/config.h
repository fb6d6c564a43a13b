/* config.h: pmapid's configuration file (GKeyFile), sysconfdir/pmapi/pmapid.conf by default:
 *
 *   [Limits]
 *   MaxContextsPerUser=N       contexts one uid but root may own (default: half the counter budget)
 *   MaxContexts=N              contexts of all users together (default: the counter budget)
 *   MaxSets=N                  event sets of one multiplexed program (_mx/_mm), 1..PM_MX_MAX_SETS
 *                              (default 8)
 *   CarriedCounters=N|auto     CPU PMU counters that the per-CPU sources of carried hardware events
 *                              may pin on every CPU, 0..8 (pmu-budget.h; auto: all but two of
 *                              those the NMI watchdog leaves)
 *   [Access]                   (access-policy.h; each a list of group names or gids, separated by
 *   UserModeGroups=GROUPS       commas, semicolons or spaces; empty by default)
 *   KernelModeGroups=GROUPS
 *   OnlyGroups=GROUPS
 *
 * GError stops here: errors come back as negative errnos with one log line. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "access-policy.h"
#include "pmapi.h"

typedef struct Config {
        unsigned max_contexts_per_uid;
        unsigned max_contexts;
        unsigned max_sets;
        int carried_counters;           /* CONFIG_CARRIED_COUNTERS_AUTO, or 0..MAX_COUNTERS */
        AccessPolicy access;
} Config;

/* Fills ret with the defaults, then what path sets. A missing file is fine when !required (the
 * default path); a present file with an unknown key, a bad value or bad syntax is -EINVAL. */
int config_load(const char *path, bool required, Config *ret);
/* pmapid --check-config: the effective configuration, one key a line, and what the access policy
 * means at the perf_event_paranoid given. */
void config_print(const Config *c, int paranoid, FILE *f);
/* The largest value either limit takes. */
#define CONFIG_MAX_LIMIT 1000000
#define CONFIG_DEFAULT_MAX_SETS 8
#define CONFIG_CARRIED_COUNTERS_AUTO (-1)
