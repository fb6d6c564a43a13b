/* test-pmu-catalog.c: the catalog as pmapid builds it for CPU PMUs this machine does not have,
 * each forced with LIBPFM_FORCE_PMU in a child process of its own (libpfm4 keeps a forced PMU for
 * the life of the process): encodings only, nothing is opened. Checked per PMU: the processor
 * name, maxpmcs from the PMU's general and fixed counters, the CPU-family rows with the family's
 * own event and raw code (a native event of the same encoding is not listed again), every other
 * native event and umask listed once with its raw code, and ids
 * above the curated range in increasing order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "event-table.h"
#include "macro.h"
#include "pmapi.h"

typedef struct FamilyRow {
        int id;                         /* the curated row: its catalog id is EVENT_ID(id) */
        const char *long_name;          /* NULL: not listed on this PMU; listed as pmu::long_name */
        uint64_t config;
} FamilyRow;

typedef struct Expected {
        const char *pmu;                /* LIBPFM_FORCE_PMU */
        const char *processor;
        unsigned counters;
        const char *native;             /* one native event (or umask variant) that must be listed */
        bool umasks;                    /* the PMU's events have umasks (x86), or none (Arm) */
        FamilyRow family[4];
} Expected;

/* libpfm4 is built with its own architecture's tables only: each machine forces its own family's. */
static const Expected expected[] = {
#if defined(__x86_64__)
        { "skl", "Intel Skylake", 8, "skl::L2_RQSTS:PF_MISS", true,
          { { 120, "MEM_INST_RETIRED:ALL_LOADS", 0x81d0 }, { 121, "MEM_INST_RETIRED:ALL_STORES", 0x82d0 },
            { 122, "MEM_LOAD_RETIRED:L3_MISS", 0x20d1 }, { 123, "CYCLE_ACTIVITY:STALLS_TOTAL", 0x40004a3 } } },
        { "icl", "Intel Icelake", 8, "icl::BR_MISP_RETIRED:COND", true,          /* 16 + 4 counters, at most 8 */
          { { 120, "MEM_INST_RETIRED:ALL_LOADS", 0x81d0 }, { 121, "MEM_INST_RETIRED:ALL_STORES", 0x82d0 },
            { 122, "MEM_LOAD_RETIRED:L3_MISS", 0x20d1 }, { 123, "CYCLE_ACTIVITY:STALLS_TOTAL", 0x40004a3 } } },
        { "amd64_fam17h_zen2", "AMD64 Fam17h Zen2", 6, "amd64_fam17h_zen2::LS_DISPATCH:LD_ST_DISPATCH", true,
          { { 120, "LS_DISPATCH:LD_DISPATCH", 0x129 }, { 121, "LS_DISPATCH:STORE_DISPATCH", 0x229 },
            { 122, NULL, 0 }, { 123, NULL, 0 } } },
        { "amd64_fam19h_zen3", "AMD64 Fam19h Zen3", 6, "amd64_fam19h_zen3::LS_DISPATCH:LD_ST_DISPATCH", true,
          { { 120, "LS_DISPATCH:LD_DISPATCH", 0x129 }, { 121, "LS_DISPATCH:STORE_DISPATCH", 0x229 },
            { 122, NULL, 0 }, { 123, NULL, 0 } } },
#elif defined(__aarch64__)
        { "arm_ac57", "ARM Cortex A57", 6, "arm_ac57::L2D_CACHE_REFILL", false,
          { { 120, "INST_SPEC_EXEC_LOAD", 0x70 }, { 121, "INST_SPEC_EXEC_STORE", 0x71 },
            { 122, NULL, 0 }, { 123, NULL, 0 } } },
        { "arm_n1", "ARM Neoverse N1", 6, "arm_n1::L2D_CACHE_REFILL", false,
          { { 120, "LD_SPEC", 0x70 }, { 121, "ST_SPEC", 0x71 },
            { 122, "LL_CACHE_MISS_RD", 0x37 }, { 123, "STALL_BACKEND", 0x24 } } },
#endif
};
#define CHECK(cond, ...)                                                        \
        do {                                                                    \
                if (!(cond)) {                                                  \
                        fprintf(stderr, "%s: ", e->pmu);                        \
                        fprintf(stderr, __VA_ARGS__);                           \
                        fputc('\n', stderr);                                    \
                        return 1;                                               \
                }                                                               \
        } while (0)

static const Event *find_name(const EventTable *t, const char *short_name) {
        for (size_t i = 0; i < t->n_events; i++)
                if (strcmp(t->events[i].short_name, short_name) == 0)
                        return &t->events[i];
        return NULL;
}

static int check_catalog(const Expected *e) {
        EventTable *t = NULL;
        size_t n_natives = 0, n_umasks = 0;

        if (setenv("LIBPFM_FORCE_PMU", e->pmu, 1) < 0 || event_table_load_unprobed(&t) < 0)
                return 2;
        CHECK(strcmp(t->pmu_name, e->processor) == 0, "processor '%s'", t->pmu_name);
        CHECK(t->n_counters == e->counters, "%u counters", t->n_counters);
        for (size_t k = 0; k < ELEMENTSOF(e->family); k++) {
                const FamilyRow *f = &e->family[k];
                const Event *ev = event_table_find(t, EVENT_ID(f->id));

                if (!f->long_name) {
                        CHECK(!ev, "family row %d listed as %s", f->id, ev->long_name);
                        continue;
                }
                CHECK(ev, "family row %d missing", f->id);
                {
                        char qualified[128];
                        snprintf(qualified, sizeof(qualified), "%s::%s", e->pmu, f->long_name);
                        CHECK(strcmp(ev->long_name, qualified) == 0, "row %d is %s", f->id, ev->long_name);
                }
                CHECK(ev->attr.type == PERF_TYPE_RAW && ev->attr.config == f->config, "row %d: type %u config %#llx",
                      f->id, ev->attr.type, (unsigned long long) ev->attr.config);
                {
                        char raw[64];
                        snprintf(raw, sizeof(raw), "(raw: r%llx)", (unsigned long long) f->config);
                        CHECK(strstr(ev->description, raw), "row %d: '%s' lacks %s", f->id, ev->description, raw);
                }
        }
        CHECK(find_name(t, e->native), "%s not listed", e->native);
        for (size_t i = 0; i < t->n_events; i++) {
                const Event *ev = &t->events[i];

                CHECK(i == 0 || ev->id > t->events[i - 1].id, "id %d after %d", ev->id, t->events[i - 1].id);
                if (ev->id < EVENT_ID_EXTRA_BASE)
                        continue;
                CHECK(strncmp(ev->short_name, e->pmu, strlen(e->pmu)) == 0, "%s: not of the PMU", ev->short_name);
                CHECK(strstr(ev->description, "(raw: r"), "%s: no raw code in '%s'", ev->short_name, ev->description);
                CHECK(ev->status == PM_UNVERIFIED, "%s: status %d", ev->short_name, ev->status);
                if (strchr(strstr(ev->short_name, "::") + 2, ':'))
                        n_umasks++;
                else
                        n_natives++;
        }
        printf("# %s: %zu events, %zu umask variants, %u counters\n", e->pmu, n_natives, n_umasks, t->n_counters);
        /* x86: many events have no default umask: they are listed through their umasks only. */
        if (e->umasks)
                CHECK(n_natives > 10 && n_natives + n_umasks > 100 && n_umasks > n_natives,
                      "%zu events and %zu umask variants", n_natives, n_umasks);
        else
                CHECK(n_natives > 40 && n_umasks == 0, "%zu events and %zu umask variants", n_natives, n_umasks);
        event_table_free(t);
        return 0;
}

static void test_catalog_of_each_forced_pmu(void **state) {
        (void) state;
        if (ELEMENTSOF(expected) == 0)
                skip();                 /* no PMU of this architecture is described here */
        for (size_t i = 0; i < ELEMENTSOF(expected); i++) {
                pid_t pid;
                int status;

                fflush(stdout);
                pid = fork();
                assert_true(pid >= 0);
                if (pid == 0) {
                        int r = check_catalog(&expected[i]);
                        fflush(stdout);
                        _exit(r);
                }
                assert_int_equal(waitpid(pid, &status, 0), pid);
                if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                        fail_msg("%s: catalog check failed (status %#x)", expected[i].pmu, status);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_catalog_of_each_forced_pmu),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
