/* pmcount-base.c: what every part of pmcount shares, below all of them: how a failure is said
 * (with pmapid's own reason), and the clock its times are read on. */
#include <stdio.h>
#include <time.h>

#include "pmcount.h"
#include "tool-usage.h"

int pmcount_fail(const char *what, int pm_code) {
        char where[256];

        /* pm_error adds pmapid's own reason: which rule refused, and what an administrator can change. */
        snprintf(where, sizeof(where), "pmcount: %s", what);
        pm_error(where, pm_code);
        return TOOL_EXIT_OWN;
}

uint64_t pmcount_now_ns(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}
