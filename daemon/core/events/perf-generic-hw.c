/* Generic hardware events (type PERF_TYPE_HARDWARE, and PERF_TYPE_HW_CACHE for the caches): the
 * kernel maps them onto the CPU's own PMU events. They exist only where a CPU PMU does; on a VM without one they fail to open and are not
 * listed. None is verified on the project machine (it has no PMU). */
#include "macro.h"
#include "pmapi.h"
#include "event-catalog.h"

static const EventDef rows[] = {
        { EVENT_ID(100), "PM_CYC", "perf::CYCLES",
          "Processor cycles while the thread runs.", PM_UNVERIFIED, NULL, false },
        { EVENT_ID(101), "PM_INST_CMPL", "perf::INSTRUCTIONS",
          "Instructions completed (retired) by the thread.", PM_UNVERIFIED, NULL, false },
        { EVENT_ID(102), "PM_BR_CMPL", "perf::BRANCH-INSTRUCTIONS",
          "Branch instructions completed by the thread.", PM_UNVERIFIED, NULL, false },
        { EVENT_ID(103), "PM_BR_MPRED", "perf::BRANCH-MISSES",
          "Mispredicted branch instructions.", PM_UNVERIFIED, NULL, false },
        { EVENT_ID(104), "PM_CACHE_REF", "perf::CACHE-REFERENCES",
          "Last-level cache references (the CPU's own definition).", PM_UNVERIFIED, NULL, false },
        { EVENT_ID(105), "PM_CACHE_MISS", "perf::CACHE-MISSES",
          "Last-level cache misses (the CPU's own definition).", PM_UNVERIFIED, NULL, false },
        { EVENT_ID(106), "PM_REF_CYC", "perf::REF-CYCLES",
          "Reference cycles, at a constant rate whatever the frequency.", PM_UNVERIFIED, NULL, false },
        /* Generic cache events (type PERF_TYPE_HW_CACHE): the kernel's table for the CPU. */
        { EVENT_ID(107), "PM_LD_REF_L1", "perf::L1-DCACHE-LOADS",
          "Level 1 data cache loads.", PM_UNVERIFIED, NULL, false },
        { EVENT_ID(108), "PM_LD_MISS_L1", "perf::L1-DCACHE-LOAD-MISSES",
          "Level 1 data cache load misses.", PM_UNVERIFIED, NULL, false },
        { EVENT_ID(109), "PM_DTLB_MISS", "perf::DTLB-LOAD-MISSES",
          "Data TLB load misses.", PM_UNVERIFIED, NULL, false },
        { EVENT_ID(110), "PM_ITLB_MISS", "perf::ITLB-LOAD-MISSES",
          "Instruction TLB load misses.", PM_UNVERIFIED, NULL, false },
};

const EventTableSource event_source_perf_generic_hw = {
        .family = "perf generic hardware",
        .source = "linux include/uapi/linux/perf_event.h (perf_hw_id, perf_hw_cache_id); libpfm4 4.13 perf_events.h",
        .rows = rows,
        .n_rows = ELEMENTSOF(rows),
};
