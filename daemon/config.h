/* config.h: pmapid's configuration file (GKeyFile), sysconfdir/pmapi/pmapid.conf by default:
 *
 *   [Limits]
 *   MaxContextsPerUser=N       contexts one uid but root may own (default: half the counter budget)
 *   MaxContexts=N              contexts of all users together (default: the counter budget)
 *
 * GError stops here: errors come back as negative errnos with one log line. */
#pragma once

#include <stdbool.h>

typedef struct Config {
        unsigned max_contexts_per_uid;
        unsigned max_contexts;
} Config;

/* Fills ret with the defaults, then what path sets. A missing file is fine when !required (the
 * default path); a present file with an unknown key, a bad value or bad syntax is -EINVAL. */
int config_load(const char *path, bool required, Config *ret);
/* The largest value either limit takes. */
#define CONFIG_MAX_LIMIT 1000000
