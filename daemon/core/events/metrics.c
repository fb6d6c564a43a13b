/* Derived metrics (AIX hpmcount's derived metrics, perf stat's shadow metrics and -M), next to the
 * groups whose events they combine: value = numerator / denominator * scale, the denominator an
 * event or, when NULL, the elapsed time in seconds. pmapid lists a metric only where both its
 * events are in the catalog (GetMetrics); a tool shows it only when it counted both. */
#include "event-catalog.h"
#include "macro.h"

const MetricDef metric_defs[] = {
        { "cpu_utilization", "CPUs used: task clock over the elapsed time (perf stat's CPUs utilized)",
          "PM_TASK_CLOCK", NULL, 1e-9, "CPUs utilized" },
        { "page_faults_per_s", "Page faults per second of elapsed time", "PM_PAGE_FLT", NULL, 1, "faults/s" },
        { "context_switches_per_s", "Context switches per second of elapsed time", "PM_CTX_SW", NULL, 1,
          "switches/s" },
        { "migrations_per_s", "CPU migrations per second of elapsed time", "PM_CPU_MIGR", NULL, 1, "migrations/s" },
        { "ipc", "Instructions completed per cycle", "PM_INST_CMPL", "PM_CYC", 1, "insn per cycle" },
        { "cpi", "Cycles per instruction completed", "PM_CYC", "PM_INST_CMPL", 1, "cycles per insn" },
        { "ghz", "Cycles per nanosecond on a CPU: the clock the thread ran at", "PM_CYC", "PM_TASK_CLOCK", 1, "GHz" },
        { "branch_miss_ratio", "Mispredicted branches, of all branches", "PM_BR_MPRED", "PM_BR_CMPL", 100, "%" },
        { "llc_miss_ratio", "Last-level cache misses, of references", "PM_CACHE_MISS", "PM_CACHE_REF", 100, "%" },
        { "l1d_miss_ratio", "Level 1 data cache load misses, of loads", "PM_LD_MISS_L1", "PM_LD_REF_L1", 100, "%" },
        { "dtlb_misses_per_s", "Data TLB load misses per second of elapsed time", "PM_DTLB_MISS", NULL, 1, "misses/s" },
};
const size_t n_metric_defs = ELEMENTSOF(metric_defs);
