/* pmu-budget.h: the CPU PMU's counters, shared between the per-CPU sources that pmapid pins for
 * carried hardware events (heirs.h) and every perf group pmapid opens (counter-perf.c). A pinned
 * per-CPU event is scheduled before any thread's, so a group with more hardware events than the
 * counters the pins leave could never count: it would read zeros, silently. So no group is opened
 * that the pinned sources leave no room for (-ENOSPC), and no source is pinned past the share the
 * administrator gives carried programs ([Limits] CarriedCounters) or where it would leave an open
 * group no room (-ENOSPC: its program is attached after the fact instead). Without a CPU PMU
 * (counters 0) nothing is hardware to count here and every group opens. */
#pragma once

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

/* The PMU's counters a group may use on one CPU, and how many of them pinned sources may hold. */
void pmu_budget_configure(unsigned counters, unsigned share);
/* The counters the kernel's NMI watchdog holds on every CPU (kernel.nmi_watchdog on x86: its
 * cycles counter, pinned, one of those the catalog counts), 0 or 1. */
unsigned pmu_budget_watchdog_pins(void);
unsigned pmu_budget_counters(void);
unsigned pmu_budget_share(void);
/* The hardware sources pinned now. */
unsigned pmu_budget_pinned(void);

/* Whether a takes a PMU counter: a hardware, cache or raw event, or one of a PMU of its own. */
bool pmu_budget_is_hardware(const struct perf_event_attr *a);
unsigned pmu_budget_hardware_events(const struct perf_event_attr *attrs, size_t n);

/* A perf group of `hardware` hardware events opens (0) or cannot count beside the pins (-ENOSPC);
 * pmu_budget_group_closed() when it closes. */
int pmu_budget_group_opened(unsigned hardware);
void pmu_budget_group_closed(unsigned hardware);

/* One more hardware source pinned on every CPU (0), or -ENOSPC past the share or where an open
 * group would no longer fit. */
int pmu_budget_pin(void);
/* Whether n more sources could be pinned now. */
bool pmu_budget_may_pin(unsigned n);
/* fn closes pinned sources that nothing uses any more, true where it closed any: asked before a
 * group or a source is refused for want of counters (heirs-engine.c; NULL: none). */
void pmu_budget_set_reclaim(bool (*fn)(void));
void pmu_budget_unpin(void);
/* A source pinned by pmapid's previous image, which this one adopts: counted whatever the share. */
void pmu_budget_pinned_already(void);
