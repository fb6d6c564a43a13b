/* test-aix-clients.c: the call sequences of real AIX pmapi clients that program their own threads
 * (_mythread), replayed against pmapid with software events, each in a process of its own, as
 * root and as uid 65534, with exact page counts (N fresh pages: N..N+2 faults, the slack being
 * the stack pages the suite allows everywhere; a thread born counting inside the kernel counts
 * exactly the kernel's own count of its faults). Each replay says where its sequence comes from
 * and what the client relies on. Where a client asks for something Linux cannot give (POWER
 * event groups: is_group with group ids such as 137, 150 or 186-195), the replay checks the clear
 * refusal and goes on with the events the group would have held, as a port would.
 * The clients that program groups (Paradyn, libmpihpm, hypre) are in test-aix-group-clients.c. */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "aix-client.h"
#include "bus-fixture.h"
#include "check.h"
#include "cpu-pmu.h"
#include "pmapi.h"
#include "workload.h"

#define ALL_STATUSES (PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT)

static BusFixture fixture;

/* The page-fault difference of counter 0 across touching n fresh pages, read twice on a counting
 * context as IPM, Dr.Hook and Extrae read: they never stop, they subtract. */
static int read_around_touch(size_t n, long long *ret) {
        pm_data_t a, b;

        CHECK_RC(pm_get_data_mythread(&a), 0);
        CHECK(touch_fresh_pages(n) == 0);
        CHECK_RC(pm_get_data_mythread(&b), 0);
        *ret = b.accu[0] - a.accu[0];
        return 0;
}

/* IPM 0.9x, its HPM module (hpplinux/ipm_nci, src/ipm_hpm_test.c and src/ipm_hpm.c).
 * pm_initialize(PM_VERIFIED|PM_UNVERIFIED|PM_CAVEAT|PM_GET_GROUPS, ..., PM_CURRENT); every counter up
 * to maxpmcs COUNT_NOTHING; mode.w = 0, user = 1, proctree = 1 (refused with PM_EMODE before
 * issue 13); on POWER5 is_group with group 137 in events[0]. A self-test at start-up: set, start,
 * stop, get, delete. Then production: pm_initialize a second time, set, start, reset, and reads
 * around each MPI region, which IPM subtracts itself; a stop at the end and no delete. Any rc
 * goes to pm_error. proctree is there so that what the process forks is counted too. */
static int ipm_body(void *arg) {
        pm_info2_t info;
        pm_groups_info_t groups;
        pm_prog_t prog, got;
        pm_data_t d;
        long long region;
        int page_flt, minor_flt, status;
        pid_t child;

        (void) arg;
        CHECK(touch_fresh_pages(1) == 0);
        CHECK_RC(pm_initialize(ALL_STATUSES | PM_GET_GROUPS, &info, &groups, PM_CURRENT), 0);
        CHECK(maxpmcs_is_this_machines(info.maxpmcs) && groups.maxgroups >= 2);  /* pm_faults, pm_sched at least */
        page_flt = client_event2_id(&info, 0, "PM_PAGE_FLT");
        minor_flt = client_event2_id(&info, 1, "PM_MINOR_FLT");
        CHECK(page_flt > 0 && minor_flt > 0);

        client_program(&prog, 0, 137, COUNT_NOTHING);           /* POWER5's pm_hpmcount group */
        prog.mode.b.user = 1;
        prog.mode.b.proctree = 1;
        prog.mode.b.is_group = 1;
        CHECK_RC(pm_set_program_mythread(&prog), PM_EGROUPS);
        CHECK(strstr(pm_strerror(NULL, PM_EGROUPS), "group") != NULL);

        client_program(&prog, 0, page_flt, minor_flt);          /* the port: events, not a group */
        prog.mode.b.user = 1;
        prog.mode.b.proctree = 1;
        CHECK_RC(pm_set_program_mythread(&prog), 0);            /* the self-test */
        CHECK_RC(pm_start_mythread(), 0);
        CHECK(touch_fresh_pages(100) == 0);
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(pm_get_data_mythread(&d), 0);
        CHECK_RANGE(d.accu[0], 100, 102);
        CHECK_RANGE(d.accu[1], 100, 102);
        CHECK_RC(pm_delete_program_mythread(), 0);

        CHECK_RC(pm_initialize(ALL_STATUSES | PM_GET_GROUPS, &info, &groups, PM_CURRENT), 0);
        CHECK_RC(pm_set_program_mythread(&prog), 0);            /* production */
        CHECK_RC(pm_start_mythread(), 0);
        CHECK_RC(pm_reset_data_mythread(), 0);
        CHECK_RC(pm_get_program_mythread(&got), 0);
        CHECK(got.mode.w == (PM_USER | PM_PROCTREE | PM_COUNT));  /* as set, counting */
        CHECK(got.events[0] == page_flt && got.events[1] == minor_flt);
        CHECK(read_around_touch(1000, &region) == 0);
        CHECK_RANGE(region, 1000, 1002);
        CHECK(read_around_touch(3000, &region) == 0);
        CHECK_RANGE(region, 3000, 3002);

        /* The tree: a forked child counts with the program, from zero. */
        child = fork();
        CHECK(child >= 0);
        if (child == 0) {
                long long mine;
                _exit(pm_get_program_mythread(&got) == 0 && got.events[0] == page_flt &&
                      read_around_touch(1, &mine) == 0 && read_around_touch(500, &mine) == 0 &&
                      mine >= 500 && mine <= 502 ? 0 : 1);
        }
        CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
        CHECK_RC(pm_stop_mythread(), 0);                        /* ipm_hpm_stop: no delete */
        return 0;
}

/* Jikes RVM's hpm library (JikesRVM, rvm/src/vm/HPM/powerPC/hpm.c with sys.C and
 * VM_HardwarePerformanceMonitors.java). hpm_init: pm_init(PM_UNVERIFIED|PM_VERIFIED|PM_CAVEAT|
 * PM_GET_GROUPS, &info, &groups), the 3-argument form; the events come from the command line and
 * are checked against list_events; the mode from a bit mask (8 user, 32 proctree: user = 1,
 * proctree = 1). At boot, with one pthread alive: set and start on it ("inherited by other, to be
 * created, pthreads"), then a reset. Each virtual processor pthread created afterwards counts from
 * its birth and, at every Java thread switch, stops, reads, resets and starts. Every failure but
 * a start's exits the VM. Older versions: the 2-argument pm_init, then set, start, stop, read,
 * reset, delete and set again. */
typedef struct JikesVp {
        int cycles;
        long long counted[4];
        KernelView born;                /* around the first stop, which ends the cycle counted from birth */
        int rc;
} JikesVp;

static int jikes_vp_cycles(JikesVp *vp) {
        pm_data_t d;

        for (int i = 0; i < vp->cycles; i++) {
                CHECK(touch_fresh_pages(100 * (i + 1)) == 0);   /* the Java thread that ran */
                /* updateHPMcounters; the first ends the cycle counted from birth */
                CHECK_RC(i == 0 ? stop_seen_by_kernel(&vp->born) : pm_stop_mythread(), 0);
                CHECK_RC(pm_get_data_mythread(&d), 0);
                vp->counted[i] = d.accu[0];
                CHECK_RC(pm_reset_data_mythread(), 0);
                CHECK_RC(pm_start_mythread(), 0);
        }
        return 0;
}

static void *jikes_vp(void *arg) {
        JikesVp *vp = arg;
        vp->rc = jikes_vp_cycles(vp);
        return NULL;
}

static int jikes_body(void *arg) {
        pm_info_t info;
        pm_groups_info_t groups;
        pm_prog_t prog, got;
        pm_data_t d;
        JikesVp vps[2] = { { .cycles = 4 }, { .cycles = 4 } };
        pthread_t t[2];
        int page_flt;

        (void) arg;
        CHECK(touch_fresh_pages(1) == 0);
        CHECK_RC(pm_init(PM_UNVERIFIED | PM_VERIFIED | PM_CAVEAT | PM_GET_GROUPS, &info, &groups), 0);
        page_flt = client_event_id(&info, 0, "PM_PAGE_FLT");
        CHECK(page_flt > 0 && info.proc_name && info.proc_name[0]);
        CHECK(page_flt <= info.list_events[0][info.maxevents[0] - 1].event_id);    /* hpm_set_event's check */
        client_program(&prog, 0, page_flt, COUNT_NOTHING);
        prog.mode.b.user = 1;                                   /* -X:hpm:mode=40 */
        prog.mode.b.proctree = 1;
        CHECK_RC(pm_set_program_mythread(&prog), 0);
        CHECK_RC(pm_start_mythread(), 0);
        CHECK_RC(pm_reset_data_mythread(), 0);
        for (int i = 0; i < 2; i++)
                CHECK(pthread_create(&t[i], NULL, jikes_vp, &vps[i]) == 0);
        for (int i = 0; i < 2; i++) {
                CHECK(pthread_join(t[i], NULL) == 0);
                CHECK(vps[i].rc == 0);
                /* Inherited: counted from birth, where pmapid inherits inside the kernel from the
                 * thread's first instruction, otherwise from libpmapi's Inherit reply. */
                if (kernel_inheritance())
                        CHECK_SEEN_BY_KERNEL(vps[i].counted[0], 100, vps[i].born);
                else
                        CHECK_RANGE(vps[i].counted[0], 100, 103);
                for (int c = 1; c < 4; c++)
                        CHECK_RANGE(vps[i].counted[c], 100 * (c + 1), 100 * (c + 1) + 2);
        }
        CHECK_RC(pm_get_program_mythread(&got), 0);             /* the listing */
        CHECK(got.events[0] == page_flt && got.mode.b.user && got.mode.b.proctree && !got.mode.b.is_group);
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(pm_delete_program_mythread(), 0);

        CHECK_RC(pm_init(PM_UNVERIFIED | PM_VERIFIED | PM_CAVEAT, &info), 0);     /* 2 arguments */
        client_program(&prog, 0, client_event_id(&info, 0, "PM_PAGE_FLT"), COUNT_NOTHING);
        prog.mode.b.user = 1;
        prog.mode.b.proctree = 1;
        prog.mode.b.count = 0;
        CHECK_RC(pm_set_program_mythread(&prog), 0);
        CHECK_RC(pm_start_mythread(), 0);
        CHECK(touch_fresh_pages(200) == 0);
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(pm_get_data_mythread(&d), 0);
        CHECK_RANGE(d.accu[0], 200, 202);
        CHECK_RC(pm_reset_data_mythread(), 0);
        CHECK_RC(pm_get_data_mythread(&d), 0);
        CHECK(d.accu[0] == 0);
        CHECK_RC(pm_delete_program_mythread(), 0);
        CHECK_RC(pm_set_program_mythread(&prog), 0);
        CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

/* PAPI's AIX substrate (icl-utk-edu/papi, src/aix.c): pm_init(PM_VERIFIED|PM_UNVERIFIED|PM_CAVEAT|
 * PM_GET_GROUPS, &info, &groups); proc_name, maxpmcs and list_events make the native event table;
 * it programs events one per counter, as with no groups (POWER3); pmapid's groups (maxgroups 2 or
 * more here: the software ones) are only listed to it. Mode: user (the
 * default domain), process = proctree = 0. PAPI_start: set, and on 13 (read as "a context
 * exists") delete and set again, then start; PAPI_read: get; PAPI_reset: reset; PAPI_stop: stop
 * and delete. pmapi answers an inherited context with 59, as AIX 7 does and OpenJ9 expects, not
 * 13: a PAPI thread created while its creator counts fails its PAPI_start unless the process sets
 * PMAPI_EEXIST=13 (test-aix-client-code.c; docs/aix-differences.md). */
static void *papi_thread_start(void *arg) {
        pm_prog_t *prog = arg;
        return (void *) (intptr_t) client_papi_start(prog);
}

static int papi_body(void *arg) {
        pm_info_t info;
        pm_groups_info_t groups;
        pm_prog_t prog;
        pm_data_t d;
        pthread_t t;
        void *rc;

        (void) arg;
        CHECK(touch_fresh_pages(1) == 0);
        CHECK_RC(pm_init(ALL_STATUSES | PM_GET_GROUPS, &info, &groups), 0);
        CHECK(info.proc_name && maxpmcs_is_this_machines(info.maxpmcs) && groups.maxgroups >= 2);
        client_program(&prog, 0, client_event_id(&info, 0, "PM_PAGE_FLT"),
                       client_event_id(&info, 1, "PM_MINOR_FLT"));
        prog.mode.b.user = 1;
        for (int round = 1; round <= 3; round++) {
                CHECK_RC(client_papi_start(&prog), 0);
                CHECK(touch_fresh_pages(150 * round) == 0);
                CHECK_RC(pm_get_data_mythread(&d), 0);         /* PAPI_read */
                CHECK_RANGE(d.accu[0], 150 * round, 150 * round + 2);
                CHECK_RANGE(d.accu[1], 150 * round, 150 * round + 2);
                CHECK_RC(pm_reset_data_mythread(), 0);          /* PAPI_reset */
                CHECK(touch_fresh_pages(40) == 0);
                CHECK_RC(pm_get_data_mythread(&d), 0);
                CHECK_RANGE(d.accu[0], 40, 42);
                CHECK_RC(client_papi_stop(), 0);
        }
        CHECK_RC(client_papi_start(&prog), 0);
        CHECK(pthread_create(&t, NULL, papi_thread_start, &prog) == 0);
        CHECK(pthread_join(t, &rc) == 0);
        CHECK((intptr_t) rc == PM_EEXIST);                      /* 59, not the 13 PAPI retries on */
        CHECK_RC(client_papi_stop(), 0);
        return 0;
}

/* Eclipse OpenJ9's JIT hardware profiler (eclipse-openj9/openj9,
 * runtime/compiler/p/runtime/PPCHWProfilerAIX.cpp). It dlopens libpmapi and takes its calls with
 * dlsym; a missing one (the EBB calls pm_set_ebb_handler, pm_enable_bhrb ... are AIX-private
 * and not in libpmapi) disables the profiler, cleanly. pm_initialize(...|PM_GET_GROUPS, PM_CURRENT)
 * once; events checked by status bits and short name. Per Java thread: user, runlatch,
 * nointerrupt and no_inherit; set; 59 means the thread inherited a context ("earlier versions"
 * have no no_inherit): stop (0 or 85 accepted), delete, set again; then start. At thread exit:
 * stop, delete. The replay's threads are created by a thread that counts, so they inherit. */
typedef struct J9Thread {
        int page_flt;
        long long counted;
        int rc;
} J9Thread;

static void *j9_grandchild(void *arg) {
        pm_prog_t got;
        (void) arg;
        return (void *) (intptr_t) pm_get_program_mythread(&got);     /* no_inherit: nothing passed on */
}

static int j9_initialize_thread(J9Thread *j) {
        pm_prog_t prog;
        pthread_t t;
        void *grandchild_rc;
        int rc;

        memset(&prog, 0, sizeof(prog));
        prog.mode.b.user = 1;
        prog.mode.b.runlatch = 1;
        prog.mode.b.nointerrupt = 1;
        prog.mode.b.no_inherit = 1;
        for (int c = 0; c < MAX_COUNTERS; c++)
                prog.events[c] = COUNT_NOTHING;
        prog.events[0] = j->page_flt;
        CHECK_RC(pm_set_program_mythread(&prog), PM_EEXIST);    /* inherited from the creator */
        rc = pm_stop_mythread();
        CHECK(rc == 0 || rc == PM_ENOTSTARTED);
        CHECK_RC(pm_delete_program_mythread(), 0);
        CHECK_RC(pm_set_program_mythread(&prog), 0);
        CHECK_RC(pm_start_mythread(), 0);
        CHECK(touch_fresh_pages(1) == 0);
        CHECK(read_around_touch(300, &j->counted) == 0);
        CHECK(pthread_create(&t, NULL, j9_grandchild, NULL) == 0);
        CHECK(pthread_join(t, &grandchild_rc) == 0);
        CHECK((intptr_t) grandchild_rc == PM_ENOCONTEXT);
        CHECK_RC(pm_stop_mythread(), 0);                        /* deinitializeThread */
        CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

static void *j9_thread(void *arg) {
        J9Thread *j = arg;
        j->rc = j9_initialize_thread(j);
        return NULL;
}

static int openj9_body(void *arg) {
        static const char *const used[] = { "pm_initialize", "pm_set_program_mythread", "pm_delete_program_mythread",
                                            "pm_start_mythread", "pm_stop_mythread", "pm_strerror",
                                            "pm_get_data_mythread" };
        static const char *const ebb[] = { "pm_set_ebb_handler", "pm_set_counter_frequency_mythread",
                                           "pm_clear_ebb_handler", "pm_enable_bhrb", "pm_disable_bhrb" };
        int (*initialize)(int, pm_info2_t *, pm_groups_info_t *, int);
        pm_groups_info_t groups;
        pm_info2_t info;
        pm_prog_t prog;
        J9Thread j[2] = {};
        pthread_t t[2];
        void *lib;

        (void) arg;
        lib = dlopen("libpmapi.so.1", RTLD_LAZY);
        CHECK(lib != NULL);
        for (size_t i = 0; i < sizeof(used) / sizeof(used[0]); i++)
                CHECK(dlsym(lib, used[i]) != NULL);
        for (size_t i = 0; i < sizeof(ebb) / sizeof(ebb[0]); i++)
                CHECK(dlsym(lib, ebb[i]) == NULL);              /* the profiler turns itself off */
        *(void **) &initialize = dlsym(lib, "pm_initialize");
        CHECK_RC(initialize(ALL_STATUSES | PM_GET_GROUPS, &info, &groups, PM_CURRENT), 0);
        for (int k = 0; k < info.maxevents[0]; k++)             /* the status bits of the filter */
                CHECK(info.list_events[0][k].status.b.verified + info.list_events[0][k].status.b.unverified +
                      info.list_events[0][k].status.b.caveat == 1);

        /* The application thread that creates the Java threads counts, with inheritance. */
        client_program(&prog, PM_USER | PM_COUNT, client_event2_id(&info, 0, "PM_MINOR_FLT"), COUNT_NOTHING);
        CHECK_RC(pm_set_program_mythread(&prog), 0);
        for (int i = 0; i < 2; i++) {
                j[i].page_flt = client_event2_id(&info, 0, "PM_PAGE_FLT");
                CHECK(pthread_create(&t[i], NULL, j9_thread, &j[i]) == 0);
        }
        for (int i = 0; i < 2; i++) {
                CHECK(pthread_join(t[i], NULL) == 0);
                CHECK(j[i].rc == 0);
                CHECK_RANGE(j[i].counted, 300, 302);
        }
        CHECK_RC(pm_delete_program_mythread(), 0);
        dlclose(lib);
        return 0;
}

/* ECMWF Dr.Hook (ecmwf-ifs/fiat, src/fiat/drhook/drhook.c, "Interface to HPM"): lazily, each
 * OpenMP thread calls pm_initialize(...|PM_GET_GROUPS, PM_CURRENT) itself, at once with the others;
 * events[] = COUNT_NOTHING, events[0] = group 150 (POWER5+ pm_flop) or 60 (POWER4), user = 1,
 * process = 0, is_group = 1, count = 0; set and start; then only reads, which it subtracts. Any
 * rc raises SIGABRT. The team exists before the first call, so no thread inherits. */
#define DRHOOK_THREADS 4

typedef struct DrHookThread {
        pthread_barrier_t *barrier;
        int n;
        long long counted;
        int rc;
} DrHookThread;

static int drhook_init_hpm(DrHookThread *h) {
        pm_groups_info_t groups;
        pm_info2_t info;
        pm_prog_t prog;

        pthread_barrier_wait(h->barrier);                       /* every thread initializes at once */
        CHECK_RC(pm_initialize(ALL_STATUSES | PM_GET_GROUPS, &info, &groups, PM_CURRENT), 0);
        client_program(&prog, 0, 150, COUNT_NOTHING);
        prog.mode.b.user = 1;
        prog.mode.b.is_group = 1;
        CHECK_RC(pm_set_program_mythread(&prog), PM_EGROUPS);   /* Dr.Hook would abort here */
        client_program(&prog, 0, client_event2_id(&info, 0, "PM_PAGE_FLT"), COUNT_NOTHING);
        prog.mode.b.user = 1;
        CHECK_RC(pm_set_program_mythread(&prog), 0);
        CHECK_RC(pm_start_mythread(), 0);
        CHECK(touch_fresh_pages(1) == 0);
        return read_around_touch(200 * (h->n + 1), &h->counted);
}

static void *drhook_thread(void *arg) {
        DrHookThread *h = arg;
        h->rc = drhook_init_hpm(h);
        return NULL;
}

static int drhook_body(void *arg) {
        DrHookThread h[DRHOOK_THREADS];
        pthread_barrier_t barrier;
        pthread_t t[DRHOOK_THREADS];

        (void) arg;
        CHECK(pthread_barrier_init(&barrier, NULL, DRHOOK_THREADS) == 0);
        for (int i = 0; i < DRHOOK_THREADS; i++) {
                h[i] = (DrHookThread) { .barrier = &barrier, .n = i };
                CHECK(pthread_create(&t[i], NULL, drhook_thread, &h[i]) == 0);
        }
        for (int i = 0; i < DRHOOK_THREADS; i++) {
                CHECK(pthread_join(t[i], NULL) == 0);
                CHECK(h[i].rc == 0);
                CHECK_RANGE(h[i].counted, 200 * (i + 1), 200 * (i + 1) + 2);
        }
        pthread_barrier_destroy(&barrier);
        return 0;
}

/* BSC Extrae (bsc-performance-tools/extrae, src/tracer/hwc/pmapi_hwc.c): pm_initialize(...|
 * PM_GET_GROUPS, PM_CURRENT); per counter set mode.w = 0, user = 1 and always count = 1, yet
 * Start_Set calls pm_start_mythread too and takes any non-zero rc as failure (so starting a
 * counting thread must return 0); reads subtract; a set change stops and deletes, then sets the
 * next set. After fork the child sets again without deleting: with AIX's inheritance that is 59,
 * unless the parent's program has PM_NO_INHERIT (the workaround docs/aix-differences.md gives). */
static int extrae_child_sets(pm_prog_t *prog) {
        int status;
        pid_t child = fork();

        if (child < 0)
                return -1;
        if (child == 0)
                _exit(pm_set_program_mythread(prog));
        if (waitpid(child, &status, 0) != child || !WIFEXITED(status))
                return -1;
        return WEXITSTATUS(status);
}

static int extrae_body(void *arg) {
        pm_groups_info_t groups;
        pm_info2_t info;
        pm_prog_t set1, set2;
        long long counted;

        (void) arg;
        CHECK(touch_fresh_pages(1) == 0);
        CHECK_RC(pm_initialize(ALL_STATUSES | PM_GET_GROUPS, &info, &groups, PM_CURRENT), 0);
        client_program(&set1, 0, client_event2_id(&info, 0, "PM_PAGE_FLT"), COUNT_NOTHING);
        set1.mode.b.user = 1;
        set1.mode.b.count = 1;
        client_program(&set2, 0, client_event2_id(&info, 0, "PM_MINOR_FLT"), COUNT_NOTHING);
        set2.mode.b.user = 1;
        set2.mode.b.count = 1;

        CHECK_RC(pm_set_program_mythread(&set1), 0);           /* Start_Set */
        CHECK_RC(pm_start_mythread(), 0);                       /* already counting: still 0 */
        CHECK(read_around_touch(250, &counted) == 0);
        CHECK_RANGE(counted, 250, 252);
        CHECK_RC(pm_stop_mythread(), 0);                        /* Stop_Set, then the next set */
        CHECK_RC(pm_delete_program_mythread(), 0);
        CHECK_RC(pm_set_program_mythread(&set2), 0);
        CHECK_RC(pm_start_mythread(), 0);
        CHECK(read_around_touch(350, &counted) == 0);
        CHECK_RANGE(counted, 350, 352);

        CHECK(extrae_child_sets(&set2) == PM_EEXIST);           /* the child inherited set2 */
        CHECK_RC(pm_stop_mythread(), 0);
        CHECK_RC(pm_delete_program_mythread(), 0);
        set2.mode.b.no_inherit = 1;
        CHECK_RC(pm_set_program_mythread(&set2), 0);
        CHECK(extrae_child_sets(&set2) == 0);
        CHECK_RC(pm_delete_program_mythread(), 0);
        return 0;
}

CLIENT_TEST(test_ipm_hpm_sets_proctree_on_its_thread_program, ipm_body)
CLIENT_TEST(test_jikes_rvm_programs_the_boot_thread_and_its_vps_inherit, jikes_body)
CLIENT_TEST(test_papi_aix_substrate_starts_reads_resets_and_stops, papi_body)
CLIENT_TEST(test_openj9_replaces_an_inherited_context_per_thread, openj9_body)
CLIENT_TEST(test_drhook_initializes_in_every_openmp_thread_at_once, drhook_body)
CLIENT_TEST(test_extrae_starts_what_count_already_started, extrae_body)

static int setup(void **state) {
        (void) state;
        return bus_fixture_start(&fixture, NULL);
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_ipm_hpm_sets_proctree_on_its_thread_program),
                cmocka_unit_test(test_jikes_rvm_programs_the_boot_thread_and_its_vps_inherit),
                cmocka_unit_test(test_papi_aix_substrate_starts_reads_resets_and_stops),
                cmocka_unit_test(test_openj9_replaces_an_inherited_context_per_thread),
                cmocka_unit_test(test_drhook_initializes_in_every_openmp_thread_at_once),
                cmocka_unit_test(test_extrae_starts_what_count_already_started),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
