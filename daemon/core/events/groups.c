/* Predefined event groups (AIX pm_init(PM_GET_GROUPS), mode.b.is_group; hpmcount -g): each names
 * curated events by short name, one per counter in order. pmapid lists a group only where all its
 * events are in the catalog and open together as one perf group (event-groups.c), so the hardware
 * ones appear only on a machine with a CPU PMU that has room for them. A group's id is its place
 * among the groups offered on the machine, from 0, as AIX numbers them (event_groups[i].group_id
 * == i, which AIX clients index by): the order here decides it, so keep the software groups, which
 * every machine offers, first. Scripts that must name a group across machines use its short name. */
#include "event-catalog.h"
#include "macro.h"

const EventGroupDef event_group_defs[] = {
        { "pm_faults", "Page faults",
          "Page faults of every kind, minor (no I/O: the page was in memory) and major (it had to be read)",
          { "PM_PAGE_FLT", "PM_MINOR_FLT", "PM_MAJOR_FLT" } },
        { "pm_sched", "Scheduling",
          "Time on a CPU, context switches and migrations between CPUs",
          { "PM_TASK_CLOCK", "PM_CTX_SW", "PM_CPU_MIGR" } },
        { "pm_cpi", "Cycles and instructions",
          "Processor cycles and instructions completed: instructions per cycle and its inverse",
          { "PM_CYC", "PM_INST_CMPL" } },
        { "pm_branch", "Branches",
          "Branch instructions completed and those mispredicted",
          { "PM_BR_CMPL", "PM_BR_MPRED" } },
        { "pm_llc", "Last-level cache",
          "Last-level cache references and misses, as the CPU defines them",
          { "PM_CACHE_REF", "PM_CACHE_MISS" } },
        { "pm_l1d", "Level 1 data cache",
          "Level 1 data cache loads and load misses",
          { "PM_LD_REF_L1", "PM_LD_MISS_L1" } },
        { "pm_tlb", "Translation lookaside buffers",
          "Data and instruction TLB load misses",
          { "PM_DTLB_MISS", "PM_ITLB_MISS" } },
};
const size_t n_event_group_defs = ELEMENTSOF(event_group_defs);
