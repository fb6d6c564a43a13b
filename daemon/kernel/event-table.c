/* event-table.c: builds the event catalog from the curated tables and libpfm4, keeping only events
 * the kernel opens here. It knows nothing of clients or modes; program.c applies those. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event-table.h"         /* <linux/perf_event.h> before libpfm4's copy */
#include <perfmon/pfmlib_perf_event.h>
#include "log.h"
#include "macro.h"
#include "perf-syscall.h"
#include "pmapi.h"

DEFINE_FREEP(EventTable, event_table_free);

static int event_table_append(EventTable *t, size_t *allocated, const Event *e) {
        if (t->n_events == *allocated) {
                size_t n = *allocated ? *allocated * 2 : 64;
                Event *p = reallocarray(t->events, n, sizeof(Event));
                if (!p)
                        return -ENOMEM;
                t->events = p;
                *allocated = n;
        }
        t->events[t->n_events++] = *e;
        return 0;
}

static int event_from_def(const EventDef *d, Event *ret) {
        Event e = {
                .id = d->id,
                .status = d->status,
                .owner_may_count_kernel = d->owner_may_count_kernel,
                .short_name = strdup(d->short_name),
                .long_name = strdup(d->pfm_name),
                .description = strdup(d->description),
        };
        if (!e.short_name || !e.long_name || !e.description) {
                event_clear(&e);
                return -ENOMEM;
        }
        *ret = e;
        return 0;
}

int event_table_new_unprobed(const EventTableSource *const *sources, size_t n_sources, EventTable **ret) {
        _cleanup_(event_table_freep) EventTable *t = calloc(1, sizeof(EventTable));
        size_t allocated = 0;
        int r;

        if (!t)
                return -ENOMEM;
        t->pmu_name = strdup("unprobed");
        if (!t->pmu_name)
                return -ENOMEM;
        t->n_counters = MAX_COUNTERS;
        for (size_t s = 0; s < n_sources; s++)
                for (size_t i = 0; i < sources[s]->n_rows; i++) {
                        Event e;
                        r = event_from_def(&sources[s]->rows[i], &e);
                        if (r < 0)
                                return r;
                        r = event_table_append(t, &allocated, &e);
                        if (r < 0) {
                                event_clear(&e);
                                return r;
                        }
                }
        r = event_table_load_groups(t, event_group_defs, n_event_group_defs, /* probe= */ false);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(t);
        return 0;
}

/* Encodes a libpfm4 name into perf type/config. */
static int encode_idx(const char *name, struct perf_event_attr *ret, int *ret_idx) {
        struct perf_event_attr a = { .size = sizeof(a) };
        pfm_perf_encode_arg_t arg = { .attr = &a, .size = sizeof(arg) };

        if (pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg) != PFM_SUCCESS)
                return -ENOENT;
        *ret = (struct perf_event_attr) {
                .size = sizeof(*ret), .type = a.type, .config = a.config,
                .config1 = a.config1, .config2 = a.config2,
        };
        if (ret_idx)
                *ret_idx = arg.idx;
        return 0;
}

static int encode(const char *name, struct perf_event_attr *ret) {
        return encode_idx(name, ret, NULL);
}

/* name as libpfm4's canonical pmu::NAME: a family row's name is looked up on every PMU present,
 * and the long name says which PMU took it (skl::MEM_INST_RETIRED:ALL_LOADS). */
static char *qualified_name(const char *name, int idx) {
        pfm_event_info_t info = { .size = sizeof(info) };
        pfm_pmu_info_t pmu = { .size = sizeof(pmu) };
        char *s = NULL;

        if (strstr(name, "::") || pfm_get_event_info(idx, PFM_OS_NONE, &info) != PFM_SUCCESS ||
            pfm_get_pmu_info(info.pmu, &pmu) != PFM_SUCCESS || !pmu.name)
                return strdup(name);
        return asprintf(&s, "%s::%s", pmu.name, name) < 0 ? NULL : s;
}

/* libpfm4 encodes events the kernel cannot count (generic hardware events on a VM without a PMU),
 * so every event is opened once, disabled, on this thread. PMUs that cannot exclude the kernel
 * (msr) are retried in both modes. */
static bool opens_here(const struct perf_event_attr *attr) {
        for (int exclude_kernel = 1; exclude_kernel >= 0; exclude_kernel--) {
                struct perf_event_attr a = *attr;
                a.disabled = 1;
                a.exclude_kernel = exclude_kernel;
                a.exclude_hv = 1;
                int fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
                if (fd >= 0) {
                        close(fd);
                        return true;
                }
        }
        return false;
}

static bool same_encoding(const struct perf_event_attr *a, const struct perf_event_attr *b) {
        return a->type == b->type && a->config == b->config && a->config1 == b->config1 &&
               a->config2 == b->config2;
}

static bool table_has_encoding(const EventTable *t, const struct perf_event_attr *attr) {
        for (size_t i = 0; i < t->n_events; i++)
                if (same_encoding(&t->events[i].attr, attr))
                        return true;
        return false;
}

/* A CPU PMU's raw event (a family row) ends its description with the code perf stat takes, as the
 * libpfm4 rows do, so that the tools find it by that code too. */
static int add_raw_code(Event *e, const struct perf_event_attr *attr) {
        char *d;

        if (attr->type != PERF_TYPE_RAW)
                return 0;
        if (asprintf(&d, "%s (raw: r%llx)", e->description, (unsigned long long) attr->config) < 0)
                return -ENOMEM;
        free(e->description);
        e->description = d;
        return 0;
}

static int load_curated(EventTable *t, size_t *allocated, bool probe) {
        int r;

        for (size_t s = 0; s < n_event_sources; s++)
                for (size_t i = 0; i < event_sources[s]->n_rows; i++) {
                        const EventDef *d = &event_sources[s]->rows[i];
                        struct perf_event_attr attr;
                        const char *used = d->pfm_name;
                        int idx = -1;
                        Event e;

                        /* pfm_name, else the first alternative this machine's PMUs take. */
                        for (size_t k = 0; used; used = k < ELEMENTSOF(d->alternatives) ? d->alternatives[k++] : NULL)
                                if (encode_idx(used, &attr, &idx) == 0 && (!probe || opens_here(&attr)))
                                        break;
                        if (!used) {
                                log_debug("Event '%s' (%s) does not open here, not listed.",
                                          d->short_name, d->pfm_name);
                                continue;
                        }
                        r = event_from_def(d, &e);
                        if (r < 0)
                                return r;
                        free(e.long_name);
                        e.long_name = qualified_name(used, idx);
                        if (!e.long_name || add_raw_code(&e, &attr) < 0) {
                                event_clear(&e);
                                return -ENOMEM;
                        }
                        e.attr = attr;
                        r = event_table_append(t, allocated, &e);
                        if (r < 0) {
                                event_clear(&e);
                                return r;
                        }
                }
        return 0;
}

/* The code perf stat takes for attr: rNNN for a raw event of the CPU PMU, else the type and config. */
static char *raw_code(const struct perf_event_attr *a) {
        char *s = NULL;

        if (a->type == PERF_TYPE_RAW)
                return asprintf(&s, "r%llx", (unsigned long long) a->config) < 0 ? NULL : s;
        return asprintf(&s, "type=%u,config=0x%llx", a->type, (unsigned long long) a->config) < 0 ? NULL : s;
}

/* One libpfm4 event (pmu::NAME, or pmu::NAME:UMASK for a umask), if it encodes, is not listed
 * yet under another name, and (probed) opens here. Its description is libpfm4's, the umask's
 * after it, and the raw code perf stat would take. */
static int add_extra(EventTable *t, size_t *allocated, int *next_id, const char *name, const char *desc,
                     const char *umask_desc, bool probe) {
        struct perf_event_attr attr;
        _cleanup_free_ char *raw = NULL;
        Event e = { .status = PM_UNVERIFIED };
        int r;

        if (encode(name, &attr) < 0 || table_has_encoding(t, &attr) || (probe && !opens_here(&attr)))
                return 0;
        raw = raw_code(&attr);
        if (!raw)
                return -ENOMEM;
        e.id = (*next_id)++;
        e.attr = attr;
        e.short_name = strdup(name);
        e.long_name = strdup(name);
        if (asprintf(&e.description, "%s%s%s (raw: %s)", desc && *desc ? desc : name,
                     umask_desc && *umask_desc ? ": " : "", umask_desc ? umask_desc : "", raw) < 0)
                e.description = NULL;
        if (!e.short_name || !e.long_name || !e.description) {
                event_clear(&e);
                return -ENOMEM;
        }
        r = event_table_append(t, allocated, &e);
        if (r < 0)
                event_clear(&e);
        return r;
}

/* Every other event of the present PMUs, named pmu::NAME, then each of its umasks as
 * pmu::NAME:UMASK, in libpfm4's order. */
static int load_extra(EventTable *t, size_t *allocated, bool probe) {
        int next_id = EVENT_ID_EXTRA_BASE;
        int p, r;

        pfm_for_all_pmus(p) {
                pfm_pmu_info_t pi = { .size = sizeof(pi) };

                if (pfm_get_pmu_info(p, &pi) != PFM_SUCCESS || !pi.is_present)
                        continue;
                for (int i = pi.first_event; i != -1; i = pfm_get_event_next(i)) {
                        pfm_event_info_t ei = { .size = sizeof(ei) };
                        _cleanup_free_ char *name = NULL;

                        if (pfm_get_event_info(i, PFM_OS_PERF_EVENT_EXT, &ei) != PFM_SUCCESS)
                                continue;
                        if (asprintf(&name, "%s::%s", pi.name, ei.name) < 0)
                                return -ENOMEM;
                        r = add_extra(t, allocated, &next_id, name, ei.desc, NULL, probe);
                        if (r < 0)
                                return r;
                        for (int a = 0; a < ei.nattrs; a++) {
                                pfm_event_attr_info_t ai = { .size = sizeof(ai) };
                                _cleanup_free_ char *variant = NULL;

                                if (pfm_get_event_attr_info(i, a, PFM_OS_PERF_EVENT_EXT, &ai) != PFM_SUCCESS ||
                                    ai.type != PFM_ATTR_UMASK)
                                        continue;
                                if (asprintf(&variant, "%s:%s", name, ai.name) < 0)
                                        return -ENOMEM;
                                r = add_extra(t, allocated, &next_id, variant, ei.desc, ai.desc, probe);
                                if (r < 0)
                                        return r;
                        }
                }
        }
        return 0;
}

/* maxpmcs: the first present CPU PMU's general and fixed counters, at most MAX_COUNTERS. */
static unsigned cpu_pmu_counters(void) {
        int p;

        pfm_for_all_pmus(p) {
                pfm_pmu_info_t pi = { .size = sizeof(pi) };
                if (pfm_get_pmu_info(p, &pi) != PFM_SUCCESS || !pi.is_present || pi.type != PFM_PMU_TYPE_CORE)
                        continue;
                if (pi.num_cntrs + pi.num_fixed_cntrs > 0)
                        return pi.num_cntrs + pi.num_fixed_cntrs < MAX_COUNTERS ?
                               (unsigned) (pi.num_cntrs + pi.num_fixed_cntrs) : MAX_COUNTERS;
        }
        return MAX_COUNTERS;
}

/* The processor name pm_init reports: the first present PMU that is not one of perf's generic ones;
 * *ret_found says whether there was one. */
static char *cpu_pmu_name(bool *ret_found) {
        int p;

        pfm_for_all_pmus(p) {
                pfm_pmu_info_t pi = { .size = sizeof(pi) };
                if (pfm_get_pmu_info(p, &pi) != PFM_SUCCESS || !pi.is_present)
                        continue;
                if (strcmp(pi.name, "perf") != 0 && strcmp(pi.name, "perf_raw") != 0) {
                        *ret_found = true;
                        return strdup(pi.desc ? pi.desc : pi.name);
                }
        }
        *ret_found = false;
        return strdup("Linux perf_events (no CPU PMU: software events only)");
}

static bool has_cpu_counters(const EventTable *t) {
        for (size_t i = 0; i < t->n_events; i++)
                if (t->events[i].attr.type != PERF_TYPE_SOFTWARE)
                        return true;
        return false;
}

void event_table_reset_pfm(void) {
        pfm_terminate();
}

static int load(EventTable **ret, bool probe) {
        _cleanup_(event_table_freep) EventTable *t = calloc(1, sizeof(EventTable));
        size_t allocated = 0;
        bool pmu_found;
        int r;

        if (!t)
                return -ENOMEM;
        if (pfm_initialize() != PFM_SUCCESS)
                return log_error_errno(-EIO, "libpfm4 failed to initialize.");
        t->pmu_name = cpu_pmu_name(&pmu_found);
        if (!t->pmu_name)
                return -ENOMEM;
        r = load_curated(t, &allocated, probe);
        if (r < 0)
                return r;
        r = load_extra(t, &allocated, probe);
        if (r < 0)
                return r;
        /* The CPU PMU's counters where it counts; software events alone are not limited by them. */
        t->pmu_counters = pmu_found && has_cpu_counters(t) ? cpu_pmu_counters() : 0;
        t->n_counters = t->pmu_counters ? t->pmu_counters : MAX_COUNTERS;
        /* A PMU that libpfm4 knows but perf would not open for us (a VM's, paranoid): say so once. */
        if (pmu_found && !has_cpu_counters(t)) {
                char *n;
                if (asprintf(&n, "%s (no CPU counters reachable: software events only)", t->pmu_name) < 0)
                        return -ENOMEM;
                free(t->pmu_name);
                t->pmu_name = n;
        }
        r = event_table_load_groups(t, event_group_defs, n_event_group_defs, probe);
        if (r < 0)
                return r;
        log_info("Event catalog: %zu events, %u counters and %zu event groups %s on '%s'.", t->n_events,
                 t->n_counters, t->n_groups, probe ? "open" : "encoded", t->pmu_name);
        *ret = TAKE_PTR(t);
        return 0;
}

int event_table_load(EventTable **ret) {
        return load(ret, true);
}

int event_table_load_unprobed(EventTable **ret) {
        return load(ret, false);
}
