/* Software events of the Linux perf "software" PMU (type PERF_TYPE_SOFTWARE), as libpfm4 4.13's
 * "perf" PMU names them (lib/events/perf_events.h). Status: verified rows are checked against a
 * known workload by the test named in checked_by; see tests/integration/test-event-counts.c. */
#include "macro.h"
#include "pmapi.h"
#include "event-catalog.h"

static const EventDef rows[] = {
        { EVENT_ID(1), "PM_TASK_CLOCK", "perf::TASK-CLOCK",
          "Time the thread was on a CPU, in nanoseconds, from the scheduler's clock; like perf stat's "
          "task-clock it includes interrupts and time a hypervisor stole meanwhile, which the thread's "
          "CPU-time clock leaves out. Counts in every mode: the user and kernel bits do not split it.",
          PM_VERIFIED, "tests/integration/test-event-counts.c", true },
        { EVENT_ID(2), "PM_PAGE_FLT", "perf::PAGE-FAULTS",
          "Page faults taken by the thread (minor and major). User mode counts faults raised by user "
          "instructions; kernel mode adds faults raised inside system calls.",
          PM_VERIFIED, "tests/integration/test-event-counts.c", true },
        { EVENT_ID(3), "PM_CTX_SW", "perf::CONTEXT-SWITCHES",
          "Times the thread was switched out, voluntarily or not. Raised in kernel context: reads 0 "
          "unless kernel mode is counted.",
          PM_VERIFIED, "tests/integration/test-event-counts.c", true },
        { EVENT_ID(4), "PM_CPU_MIGR", "perf::CPU-MIGRATIONS",
          "Times the thread moved to another CPU. Raised in kernel context: reads 0 unless kernel "
          "mode is counted.",
          PM_VERIFIED, "tests/integration/test-event-counts.c", true },
        { EVENT_ID(5), "PM_MINOR_FLT", "perf::MINOR-FAULTS",
          "Page faults served without I/O (a first touch of anonymous memory is one).",
          PM_VERIFIED, "tests/integration/test-event-counts.c", true },
        { EVENT_ID(6), "PM_MAJOR_FLT", "perf::MAJOR-FAULTS",
          "Page faults that needed I/O to complete.",
          PM_UNVERIFIED, NULL, true },
        { EVENT_ID(7), "PM_CPU_CLOCK", "perf::CPU-CLOCK",
          "CPU time of the thread in nanoseconds from a per-CPU timer. Approximate: within 1% of "
          "PM_TASK_CLOCK over 200 ms spins here, up to 15% below it over 20 ms ones; prefer PM_TASK_CLOCK.",
          PM_CAVEAT, "tests/integration/test-event-counts.c", true },
};

const EventTableSource event_source_perf_software = {
        .family = "perf software",
        .source = "linux include/uapi/linux/perf_event.h (perf_sw_ids); libpfm4 4.13 perf_events.h",
        .rows = rows,
        .n_rows = ELEMENTSOF(rows),
};
