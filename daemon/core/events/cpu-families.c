/* Counts that perf's generic events do not name, curated per CPU family: each row has the
 * libpfm4 name of the same count on Intel core PMUs (Skylake and later), AMD Zen and Arm PMUv3
 * cores, and the first that the present PMU takes is used (pmlist shows which, as the long name).
 * Where no family has it, the row is not listed. None is verified on the project machine (it has no
 * PMU). */
#include "macro.h"
#include "pmapi.h"
#include "event-catalog.h"

static const EventDef rows[] = {
        { EVENT_ID(120), "PM_LD_CMPL", "MEM_INST_RETIRED:ALL_LOADS",
          "Load instructions completed (Intel: retired; AMD: dispatched to the load/store unit; Arm: "
          "architecturally executed, or speculatively where the core has no retired count).",
          PM_UNVERIFIED, NULL, false, { "LS_DISPATCH:LD_DISPATCH", "LD_RETIRED", "LD_SPEC", "INST_SPEC_EXEC_LOAD" } },
        { EVENT_ID(121), "PM_ST_CMPL", "MEM_INST_RETIRED:ALL_STORES",
          "Store instructions completed (Intel: retired; AMD: dispatched to the load/store unit; Arm: "
          "architecturally executed, or speculatively where the core has no retired count).",
          PM_UNVERIFIED, NULL, false, { "LS_DISPATCH:STORE_DISPATCH", "ST_RETIRED", "ST_SPEC", "INST_SPEC_EXEC_STORE" } },
        { EVENT_ID(122), "PM_LD_MISS_L3", "MEM_LOAD_RETIRED:L3_MISS",
          "Loads that missed the last-level cache (Intel: retired load uops missing L3; Arm: last-level "
          "cache read misses).",
          PM_UNVERIFIED, NULL, false, { "MEM_LOAD_UOPS_RETIRED:L3_MISS", "LL_CACHE_MISS_RD" } },
        { EVENT_ID(123), "PM_CMPLU_STALL", "CYCLE_ACTIVITY:STALLS_TOTAL",
          "Cycles in which nothing executed (Intel: total execution stalls; Arm: no operation issued "
          "because of the back end).",
          PM_UNVERIFIED, NULL, false, { "STALL_BACKEND" } },
};

const EventTableSource event_source_cpu_families = {
        .family = "CPU families (Intel core, AMD Zen, Arm PMUv3)",
        .source = "libpfm4 4.13 lib/events/intel_skl_events.h, intel_icl_events.h, intel_spr_events.h, "
                  "amd64_events_fam17h_zen2.h, amd64_events_fam19h_zen3.h, arm_neoverse_n1_events.h, "
                  "arm_cortex_a57_events.h (its LD_SPEC and ST_SPEC are INST_SPEC_EXEC_LOAD/STORE); "
                  "Arm ARM D17.11 (PMUv3 common events)",
        .rows = rows,
        .n_rows = ELEMENTSOF(rows),
};
