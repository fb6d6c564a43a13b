/* cpu-pmu.h: whether this machine has a CPU PMU, asked of the kernel (x86's "cpu", whose type is
 * PERF_TYPE_RAW; arm64's "armv8_pmuv3_0" and the like, of a type of their own), so that tests
 * expect what pmapid must find: maxpmcs is MAX_COUNTERS with software events only, the PMU's
 * counters (1..MAX_COUNTERS) with one. */
#pragma once

#include <dirent.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pmapi.h"

static inline bool cpu_pmu_present(void) {
        DIR *d = opendir("/sys/bus/event_source/devices");
        struct dirent *de;
        bool found = false;

        while (d && !found && (de = readdir(d))) {
                char path[512];
                FILE *f;
                int type;

                if (de->d_name[0] == '.')
                        continue;
                (void) snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", de->d_name);
                f = fopen(path, "re");
                if (f && fscanf(f, "%d", &type) == 1 &&
                    (type == PERF_TYPE_RAW || strncmp(de->d_name, "armv", 4) == 0))
                        found = true;
                if (f)
                        fclose(f);
        }
        if (d)
                closedir(d);
        return found;
}

/* maxpmcs as pm_init must give it on this machine. */
static inline bool maxpmcs_is_this_machines(int maxpmcs) {
        return cpu_pmu_present() ? maxpmcs >= 1 && maxpmcs <= MAX_COUNTERS : maxpmcs == MAX_COUNTERS;
}
