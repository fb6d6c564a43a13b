/* pmapi.h: the AIX Performance Monitor API (libpmapi) for Linux.
 *
 * Types and constants keep their AIX names and numeric values so that AIX code compiles with few
 * or no changes. Bit-field unions are declared so that the `w` member carries AIX's values on
 * either byte order (mode.b.user = 1 sets exactly PM_USER in mode.w). Additions that AIX does not
 * have are marked "Linux extension". Only calls that work are declared. Link with -lpmapi
 * (pkg-config pmapi). Every call returns 0 or a positive PM_E* code that pm_error() explains.
 */
#ifndef PMAPI_H
#define PMAPI_H

#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MAX_COUNTERS       8
#define MIN_THRESH_VALUE   0
#define MAX_THRESH_VALUE   63
#define COUNT_NOTHING      (-1)

/* Filter bits for pm_init()/pm_initialize(): the testing status of an event. */
#define PM_VERIFIED        1
#define PM_UNVERIFIED      2
#define PM_CAVEAT          4
#define PM_GET_GROUPS      8            /* not a status: asks pm_init to fill its third argument */
#define PM_MAX_FILTER      4

#define PM_CURRENT         (-1)         /* pm_initialize(): the running processor */

/* Processor types: pm_initialize()'s proctype and what pm_get_procindex() returns, with AIX's
 * values. On Linux the running processor is PM_LINUX_PERF (pm_initialize(3)): pm_initialize() with
 * PM_CURRENT or PM_LINUX_PERF initializes the library, and a POWER or PowerPC type is PM_EPROCTYPE
 * (pmapi cannot describe a processor it does not run on). */
#define PM_PowerPC604      0
#define PM_PowerPC604e     1
#define PM_RS64_II         2
#define PM_POWER3          3
#define PM_RS64_III        4
#define PM_POWER3_II       5
#define PM_POWER4          6
#define PM_MPC7450         7
#define PM_POWER4_II       8
#define PM_POWER5          9
#define PM_PowerPC970      10
#define PM_POWER5_II       11
#define PM_POWER6          12
#define PM_PowerPC970MP    13
#define PM_POWERCOMPAT     14
#define PM_POWER7          15
#define PM_POWER8          16           /* AIX 7.2 names it; the value is inferred from the order */
#define PM_POWER9          17           /* likewise */
#define PM_MAXPROCTYPE     PM_POWER9
#define PM_LINUX_PERF      256          /* Linux extension: the running processor, as perf_event sees it */

/* Mode word values (pm_mode_t.w). */
#define PM_PROCTREE        0x01
#define PM_COUNT           0x02
#define PM_USER            0x04
#define PM_KERNEL          0x08
#define PM_PROCESS         0x10
#define PM_NO_INHERIT      0x80000      /* Linux extension (AIX 7.2+ has the bit, undocumented) */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PMAPI_BITFIELDS_MSB_FIRST 1
#else
#define PMAPI_BITFIELDS_MSB_FIRST 0
#endif

/* Time stamps. On Linux tb_high:tb_low hold CLOCK_MONOTONIC nanoseconds as one 64-bit number
 * (tb_high = upper 32 bits), and flag is PM_TB_MONOTONIC_NS. Linux extension: the flag value and
 * the PM_TB_TO_NS() macro; AIX's read_real_time()/time_base_to_time() do not exist here. */
#ifndef _TIMEBASESTRUCT_T_DEFINED
#define _TIMEBASESTRUCT_T_DEFINED
typedef struct {
        int          flag;
        unsigned int tb_high;
        unsigned int tb_low;
} timebasestruct_t;
#endif
#define PM_TB_MONOTONIC_NS 0x4e53               /* Linux extension */
#define PM_TB_TO_NS(tb) ((((unsigned long long) (tb).tb_high) << 32) | (unsigned long long) (tb).tb_low)

/* pm_get_Tdata*(): how long the data were counted, each time a length in ns (flag
 * PM_TB_MONOTONIC_NS, PM_TB_TO_NS() reads it). accu_timebase: the time the counters were on the
 * PMU since the program was set or last reset (perf's time running: for a thread context its CPU
 * time while counting; for a CPU, the CPU's time; added up over a group's members, a system
 * context's CPUs); accu_purr (Linux: no PURR): the time they were switched on (perf's time
 * enabled), of which accu_timebase is the part on the PMU; accu_spurr: 0 (no SPURR). */
typedef struct {
        timebasestruct_t accu_timebase;
        timebasestruct_t accu_purr;
        timebasestruct_t accu_spurr;
} pm_accu_time_t;

typedef int tid_t;
typedef unsigned int ptid_t;

/* Event description, pm_init() flavour. status is the event's filter bit (PM_VERIFIED,
 * PM_UNVERIFIED or PM_CAVEAT); threshold is 'n' for every event on Linux. */
typedef struct {
        int   event_id;
        char  status;
        char  threshold;
        char *short_name;
        char *long_name;
        char *description;
} pm_events_t;

/* Event status, pm_initialize() flavour. */
typedef union {
        int w;
        struct {
#if PMAPI_BITFIELDS_MSB_FIRST
                unsigned unverified   : 1;
                unsigned verified     : 1;
                unsigned caveat       : 1;
                unsigned broken       : 1;
                unsigned spare1       : 12;
                unsigned group_only   : 1;
                unsigned threshold    : 1;
                unsigned shared       : 1;
                unsigned support_mode : 1;
                unsigned overflow     : 1;
                unsigned marked       : 1;
                unsigned sharedchip   : 1;
                unsigned spare2       : 9;
#else
                unsigned spare2       : 9;
                unsigned sharedchip   : 1;      /* 0x00000200 */
                unsigned marked       : 1;      /* 0x00000400 */
                unsigned overflow     : 1;      /* 0x00000800 */
                unsigned support_mode : 1;      /* 0x00001000: user/kernel mode bits honoured */
                unsigned shared       : 1;      /* 0x00002000 */
                unsigned threshold    : 1;      /* 0x00004000 */
                unsigned group_only   : 1;      /* 0x00008000 */
                unsigned spare1       : 12;
                unsigned broken       : 1;      /* 0x10000000 */
                unsigned caveat       : 1;      /* 0x20000000 */
                unsigned verified     : 1;      /* 0x40000000 */
                unsigned unverified   : 1;      /* 0x80000000 */
#endif
        } b;
} pm_status_t;

typedef struct {
        int          event_id;
        pm_status_t  status;
        char        *short_name;
        char        *long_name;
        char        *description;
        long         reserved;
} pm_events2_t;

typedef struct {
        int           maxpmcs;          /* counters: MAX_COUNTERS on Linux */
        int          *maxevents;        /* [maxpmcs]: events in list_events[c] */
        pm_events_t **list_events;      /* [maxpmcs][maxevents[c]], ordered by event_id */
        int           thresholdmult;    /* 0: no thresholds on Linux */
        char         *proc_name;
        int           hthresholdmult;
} pm_info_t;

typedef union {
        int w;
        struct {
#if PMAPI_BITFIELDS_MSB_FIRST
                unsigned spare         : 27;
                unsigned compatibility : 1;
                unsigned spurr         : 1;
                unsigned purr          : 1;
                unsigned runlatch      : 1;
                unsigned hypervisor    : 1;
#else
                unsigned hypervisor    : 1;     /* 0x01 */
                unsigned runlatch      : 1;     /* 0x02 */
                unsigned purr          : 1;     /* 0x04 */
                unsigned spurr         : 1;     /* 0x08 */
                unsigned compatibility : 1;     /* 0x10 */
                unsigned spare         : 27;
#endif
        } b;
} pm_feature_t;

typedef struct {
        int            maxpmcs;
        int           *maxevents;
        pm_events2_t **list_events;
        int            thresholdmult;
        int            hthresholdmult;
        int            Hthresholdmult;
        int            reserved;
        char          *proc_name;
        pm_feature_t   proc_feature;
        int            reserved2;
} pm_info2_t;

typedef struct {
        int   group_id;
        int  *events;
        char *short_name;
        char *long_name;
        char *description;
} pm_groups_t;

/* The predefined event groups of this machine (pmlist -g), numbered from 0 as on AIX:
 * event_groups[i].group_id == i for every i < maxgroups, whatever the status filter. */
typedef struct {
        int          maxgroups;
        pm_groups_t *event_groups;
} pm_groups_info_t;

typedef union {
        int w;
        struct {
#if PMAPI_BITFIELDS_MSB_FIRST
                unsigned threshold   : 6;
                unsigned thresh_res  : 1;
                unsigned runlatch    : 1;
                unsigned hypervisor  : 1;
                unsigned thresh_hres : 1;
                unsigned nointerrupt : 1;
                unsigned wpar_all    : 1;
                unsigned no_inherit  : 1;
                unsigned spare       : 13;
                unsigned is_group    : 1;
                unsigned process     : 1;
                unsigned kernel      : 1;
                unsigned user        : 1;
                unsigned count       : 1;
                unsigned proctree    : 1;
#else
                unsigned proctree    : 1;       /* 0x01 PM_PROCTREE */
                unsigned count       : 1;       /* 0x02 PM_COUNT */
                unsigned user        : 1;       /* 0x04 PM_USER */
                unsigned kernel      : 1;       /* 0x08 PM_KERNEL */
                unsigned process     : 1;       /* 0x10 PM_PROCESS */
                unsigned is_group    : 1;       /* 0x20 */
                unsigned spare       : 13;
                unsigned no_inherit  : 1;       /* 0x80000 PM_NO_INHERIT, Linux extension */
                unsigned wpar_all    : 1;       /* 0x100000 */
                unsigned nointerrupt : 1;       /* 0x200000 */
                unsigned thresh_hres : 1;       /* 0x400000 */
                unsigned hypervisor  : 1;       /* 0x800000 */
                unsigned runlatch    : 1;       /* 0x1000000 */
                unsigned thresh_res  : 1;       /* 0x2000000 */
                unsigned threshold   : 6;       /* 0xfc000000 */
#endif
        } b;
} pm_mode_t;

typedef struct {
        pm_mode_t mode;
        int       events[MAX_COUNTERS];         /* an event id from pm_init, or COUNT_NOTHING */
        long      reserved;
} pm_prog_t;

typedef struct {
        int members;
        union {
                int w;
                struct {
#if PMAPI_BITFIELDS_MSB_FIRST
                        unsigned spare      : 28;
                        unsigned partial    : 1;
                        unsigned direct     : 1;
                        unsigned process    : 1;
                        unsigned consistent : 1;
#else
                        unsigned consistent : 1;        /* 0x1 */
                        unsigned process    : 1;        /* 0x2 */
                        unsigned direct     : 1;        /* 0x4 */
                        unsigned partial    : 1;        /* 0x8 Linux: threads that should have joined
                                                         * were not counted (pmapid's limits) */
                        unsigned spare      : 28;
#endif
                } b;
        } flags;
} pm_ginfo_t;
typedef pm_ginfo_t pm_groupinfo_t;

typedef struct {
        pm_ginfo_t ginfo;                       /* meaningful only for group reads */
        long long  accu[MAX_COUNTERS];
        long       reserved;
} pm_data_t;

/* Multiplexing (_mx) and multi-mode (_mm): several event sets on one context (pm_set_program_mx(3)).
 * Each set is one perf group; the kernel rotates the groups that do not fit on the PMU together
 * (at the PMU's perf_event_mux_interval_ms), and every set that fits counts all the time. Per set:
 * raw counts, the time it counted (accu_time) and the time it was switched on (accu_purr); the
 * estimate of a count over the whole time is accu_data * accu_purr / accu_time. */
#define PM_MX_SLICE_MIN     10                  /* ms */
#define PM_MX_SLICE_MAX     30000               /* ms */
#define PM_MX_MAX_SETS      16                  /* Linux: pmapid's [Limits] MaxSets= (default 8) may lower it */

typedef int          pm_events_prog_t[MAX_COUNTERS];
typedef unsigned int pm_mmcrs_prog_t[MAX_COUNTERS];

typedef struct {
        pm_mode_t         mode;                 /* one mode for every set */
        int               slice_duration;       /* ms per set: PM_MX_SLICE_MIN .. PM_MX_SLICE_MAX */
        int               nb_events_prog;       /* number of sets: 1 .. PM_MX_MAX_SETS */
        pm_events_prog_t *events_set;           /* [nb_events_prog]; get_program allocates it, the
                                                   caller frees it */
} pm_prog_mx_t;

typedef struct {
        int        slice_duration;
        int        nb_set_prog;
        pm_prog_t *prog_set;                    /* one pm_prog_t (with its own mode) per set; the
                                                   proctree, count, process and no_inherit
                                                   bits must agree across sets */
} pm_prog_mm_t;

typedef struct {
        timebasestruct_t accu_time;             /* the time this set counted (perf's time running) */
        timebasestruct_t accu_purr;             /* Linux: the time it was switched on (time enabled) */
        timebasestruct_t accu_spurr;            /* Linux: 0 (no SPURR) */
        long long        accu_data[MAX_COUNTERS];       /* raw counts, not scaled */
} pm_accu_mx_t;

typedef struct {
        pm_ginfo_t    ginfo;                    /* meaningful only for group reads */
        int           nb_accu_mx;               /* number of sets returned */
        int           nb_mx_round;              /* rounds over all sets: the longest time one thread or
                                                   CPU was enabled / (slice * sets) */
        pm_accu_mx_t *accu_set;                 /* [nb_accu_mx], allocated by the library; caller frees */
} pm_data_mx_t;

/* Error codes: positive, returned by every call, explained by pm_error(). 59 and 85 keep the
 * values AIX code in the wild tests for; 13 is "context exists" too, answered only on request
 * (PM_EEXIST_AIX5 below). */
#define PM_ENOTINIT        1    /* pm_init()/pm_initialize(PM_CURRENT) has not been called */
#define PM_EFILTER         2    /* the filter selects no status */
#define PM_EPROCTYPE       3    /* proctype is not PM_CURRENT */
#define PM_EFAULT          4    /* a required pointer argument is NULL */
#define PM_EEVENT          5    /* event id not returned by pm_init for that counter */
#define PM_EMODE           6    /* mode bits not valid for this call */
#define PM_ENOCONTEXT      7    /* the thread has no context */
#define PM_ENOTHREAD       8    /* no such thread, or tid is not a thread of pid */
#define PM_EPERM           9    /* perf refused to the caller (perf_event_paranoid), or the bus policy */
#define PM_EKERNELMODE     10   /* kernel-mode counting refused by the perf_event_paranoid policy */
#define PM_ENODAEMON       11   /* pmapid cannot be reached on the system bus */
#define PM_EDAEMON         12   /* pmapid gave an answer the library cannot use */
#define PM_ENOMEM          14   /* out of memory (library or daemon) */
#define PM_ELIMIT          15   /* per-user or total context limit reached */
#define PM_EOPEN           16   /* the kernel refused to open the counters */
#define PM_ETHRESH         17   /* thresholds: no event here is thresholdable */
#define PM_EHYPERVISOR     18   /* hypervisor counting is not supported */
#define PM_EGROUPS         19   /* mode.b.is_group: events[0] is not a group pm_init listed */
#define PM_ENOEVENTS       20   /* the program selects no event */
#define PM_ENOGROUP        21   /* the thread is not a member of a counting group */
/* Third-party refusals: the caller may not trace the target thread (pm_set_program_thread(3)). */
#define PM_ENOTOWNER       22   /* the thread belongs to another user or group */
#define PM_ESETID          23   /* the thread runs a set-id program (mixed uids or gids) */
#define PM_ENOTDUMPABLE    24   /* the thread is not dumpable (PR_SET_DUMPABLE 0, privileged exec) */
#define PM_EPTRACESCOPE    25   /* kernel.yama.ptrace_scope forbids it */
#define PM_EDAEMONTHREAD   26   /* a thread of pmapid itself: never counted */
#define PM_EPTID           27   /* ptid is neither 0 nor tid (Linux threads are 1:1) */
/* System scope (pm_set_program(3)). */
#define PM_ESYSBUSY        28   /* another process owns the system-wide counters (pm_error names it) */
#define PM_ESYSROOT        29   /* counting every process needs root: use PM_PROCTREE */
#define PM_ECPU            30   /* no such processor, or not online since pm_set_program() */
/* Identity: the process that opened the caller's bus connection has exited or changed its user. */
#define PM_ECALLERGONE     31
/* pmapid restarted since this process set a program: the contexts it held are gone. */
#define PM_ERESTARTED      32
/* The thread was created in a counting group, but pmapid could not count it (a limit, its fds). */
#define PM_ENOTATTACHED    33
/* Cgroup contexts (the _wp calls, pm_set_program_wp(3)). */
#define PM_ENOCGROUP       34   /* no such cgroup (wrong path or id, or it was removed) */
#define PM_ECGROUPPATH     35   /* not a cgroup path: a file, a ".." component, a symlink on the way */
#define PM_ECGROUPACCESS   36   /* neither root nor its delegated owner, or it holds a process the
                                   caller may not trace */
#define PM_ENOCGROUPV2     37   /* no cgroup v2 hierarchy is mounted */
/* Multiplexing (the _mx and _mm calls, pm_set_program_mx(3)). */
#define PM_EMXSLICE        38   /* slice_duration outside PM_MX_SLICE_MIN .. PM_MX_SLICE_MAX ms */
#define PM_EMXSETS         39   /* no set, more than pmapid's maximum, or a NULL set array */
#define PM_EMXMODE         40   /* _mm: the sets disagree on the proctree, count, process or
                                   no_inherit bit */
/* A mode word built for another bit-field layout: byte-swapped, or from a private copy of AIX's
 * big-endian pm_mode_t declaration (its user, kernel and count bits land in the threshold field). */
#define PM_EMODELAYOUT     41
/* The thread already has a context. 59 as AIX 7 answers (OpenJ9 tests it); with the environment
 * variable PMAPI_EEXIST=13 the library answers 13 instead, the number old PAPI AIX substrates
 * test (pm_set_program_mythread(3)). */
#define PM_EEXIST_AIX5     13
#define PM_EEXIST          59
#define PM_ENOTSTARTED     85   /* counting was never started (reserved: stop is idempotent) */

int   pm_init(int filter, pm_info_t *pminfo, ...);      /* 3rd arg pm_groups_info_t *, read only
                                                           when filter has PM_GET_GROUPS */
int   pm_initialize(int filter, pm_info2_t *pminfo, pm_groups_info_t *pmgroups, int proctype);
void  pm_error(const char *where, int error);
char *pm_strerror(const char *where, int error);
double pm_cycles(void);                                 /* nominal processor speed in Hz; 0.0 if unknown */
int   pm_get_procindex(void);                           /* the running processor: PM_LINUX_PERF */

/* System scope: one context per online CPU, owned by one process at a time (pm_set_program(3)). */
int pm_set_program(pm_prog_t *prog);            /* root, or PM_PROCTREE: the caller and its descendants */
int pm_get_program(pm_prog_t *prog);
int pm_delete_program(void);
int pm_start(void);
int pm_stop(void);
int pm_tstart(timebasestruct_t *time);          /* + the time of the switch */
int pm_tstop(timebasestruct_t *time);
int pm_reset_data(void);
int pm_get_data(pm_data_t *data);               /* the sum over every CPU counted since pm_set_program */
int pm_get_tdata(pm_data_t *data, timebasestruct_t *time);
int pm_get_Tdata(pm_data_t *data, pm_accu_time_t *times);      /* + how long it counted */
int pm_get_data_cpu(int cpuid, pm_data_t *data);        /* cpuid: 0 .. online CPUs - 1, in order */
int pm_get_tdata_cpu(int cpuid, pm_data_t *data, timebasestruct_t *time);
int pm_get_Tdata_cpu(int cpuid, pm_data_t *data, pm_accu_time_t *times);
int pm_get_data_lcpu(int lcpuid, pm_data_t *data);      /* lcpuid: the Linux CPU number */
int pm_get_tdata_lcpu(int lcpuid, pm_data_t *data, timebasestruct_t *time);
int pm_get_Tdata_lcpu(int lcpuid, pm_data_t *data, pm_accu_time_t *times);

/* Cgroup contexts: AIX's WPAR calls with a cgroup v2 for the WPAR (pm_set_program_wp(3)). Counting,
 * on every CPU, restricted to the tasks of one cgroup and its descendants; owned by the calling
 * process. A cid and a handle are the same number here: the cgroup's id (the inode number of its
 * directory, which the kernel never reuses), as pm_get_wplist() returns it. */
typedef unsigned long long cid_t;
typedef unsigned long long pm_wp_handle_t;
#define MAXCORRALNAMELEN 4095                   /* AIX: 25; here a cgroup path from the v2 root */
typedef struct {
        cid_t          cid;
        char           name[MAXCORRALNAMELEN + 1];      /* e.g. "/system.slice/cron.service" */
        pm_wp_handle_t hwpar;
        int            removed;         /* Linux: this process counts it, and it was removed since */
} pm_wpar_ctx_info_t;

/* name: a cgroup path ("/a/b", or under the mount point), or NULL for every cgroup in the tree.
 * *size: in, the room in wp_list (wp_list may be NULL to learn the number); out, the number. */
int pm_get_wplist(const char *name, pm_wpar_ctx_info_t *wp_list, int *size);
int pm_set_program_wp(cid_t cid, pm_prog_t *prog);      /* root, or the cgroup's delegated owner */
int pm_get_program_wp(cid_t cid, pm_prog_t *prog);
int pm_delete_program_wp(cid_t cid);
int pm_start_wp(cid_t cid);
int pm_stop_wp(cid_t cid);
int pm_tstart_wp(cid_t cid, timebasestruct_t *time);
int pm_tstop_wp(cid_t cid, timebasestruct_t *time);
int pm_reset_data_wp(cid_t cid);
int pm_get_data_wp(pm_wp_handle_t hwpar, pm_data_t *data);
int pm_get_tdata_wp(pm_wp_handle_t hwpar, pm_data_t *data, timebasestruct_t *time);
int pm_get_Tdata_wp(pm_wp_handle_t hwpar, pm_data_t *data, pm_accu_time_t *times);
int pm_get_data_lcpu_wp(pm_wp_handle_t hwpar, int lcpuid, pm_data_t *data);
int pm_get_tdata_lcpu_wp(pm_wp_handle_t hwpar, int lcpuid, pm_data_t *data, timebasestruct_t *time);
int pm_get_Tdata_lcpu_wp(pm_wp_handle_t hwpar, int lcpuid, pm_data_t *data, pm_accu_time_t *times);

int pm_set_program_mythread(pm_prog_t *prog);
int pm_get_program_mythread(pm_prog_t *prog);
int pm_delete_program_mythread(void);
int pm_start_mythread(void);
int pm_stop_mythread(void);
int pm_tstart_mythread(timebasestruct_t *time);
int pm_tstop_mythread(timebasestruct_t *time);
int pm_reset_data_mythread(void);
int pm_get_data_mythread(pm_data_t *data);
int pm_get_tdata_mythread(pm_data_t *data, timebasestruct_t *time);
int pm_get_Tdata_mythread(pm_data_t *data, pm_accu_time_t *times);

/* The calling thread's counting group. */
int pm_set_program_mygroup(pm_prog_t *prog);    /* creates it: PM_PROCESS in mode for a process group */
int pm_get_program_mygroup(pm_prog_t *prog);
int pm_delete_program_mygroup(void);            /* deletes every member's context */
int pm_start_mygroup(void);                     /* the group and the calling thread */
int pm_stop_mygroup(void);
int pm_tstart_mygroup(timebasestruct_t *time);
int pm_tstop_mygroup(timebasestruct_t *time);
int pm_reset_data_mygroup(void);                /* the group and the calling thread */
int pm_get_data_mygroup(pm_data_t *data);       /* fills data->ginfo too */
int pm_get_tdata_mygroup(pm_data_t *data, timebasestruct_t *time);
int pm_get_Tdata_mygroup(pm_data_t *data, pm_accu_time_t *times);

/* Third party: thread tid of process pid (a debugger's or a tool's target, or a thread of this
 * process), allowed when the caller may trace it: the kernel's ptrace rule, applied by pmapid. The
 * target may be running or stopped (Linux extension: AIX wants a stopped debuggee). */
int pm_set_program_thread(pid_t pid, tid_t tid, pm_prog_t *prog);
int pm_get_program_thread(pid_t pid, tid_t tid, pm_prog_t *prog);
int pm_delete_program_thread(pid_t pid, tid_t tid);
int pm_start_thread(pid_t pid, tid_t tid);
int pm_stop_thread(pid_t pid, tid_t tid);
int pm_tstart_thread(pid_t pid, tid_t tid, timebasestruct_t *time);
int pm_tstop_thread(pid_t pid, tid_t tid, timebasestruct_t *time);
int pm_reset_data_thread(pid_t pid, tid_t tid);
int pm_get_data_thread(pid_t pid, tid_t tid, pm_data_t *data);
int pm_get_tdata_thread(pid_t pid, tid_t tid, pm_data_t *data, timebasestruct_t *time);
int pm_get_Tdata_thread(pid_t pid, tid_t tid, pm_data_t *data, pm_accu_time_t *times);

/* The counting group of thread tid of process pid; set_program creates it (PM_PROCESS: every
 * thread of pid), and the target thread is the "calling thread" of the _mygroup rules. */
int pm_set_program_group(pid_t pid, tid_t tid, pm_prog_t *prog);
int pm_get_program_group(pid_t pid, tid_t tid, pm_prog_t *prog);
int pm_delete_program_group(pid_t pid, tid_t tid);
int pm_start_group(pid_t pid, tid_t tid);
int pm_stop_group(pid_t pid, tid_t tid);
int pm_tstart_group(pid_t pid, tid_t tid, timebasestruct_t *time);
int pm_tstop_group(pid_t pid, tid_t tid, timebasestruct_t *time);
int pm_reset_data_group(pid_t pid, tid_t tid);
int pm_get_data_group(pid_t pid, tid_t tid, pm_data_t *data);
int pm_get_tdata_group(pid_t pid, tid_t tid, pm_data_t *data, timebasestruct_t *time);
int pm_get_Tdata_group(pid_t pid, tid_t tid, pm_data_t *data, pm_accu_time_t *times);

/* The same on a pthread. Linux threads are 1:1: ptid must be 0 or equal to tid, and a tid of 0
 * with a non-zero ptid means tid = ptid; anything else is PM_EPTID. */
int pm_set_program_pthread(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_t *prog);
int pm_get_program_pthread(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_t *prog);
int pm_delete_program_pthread(pid_t pid, tid_t tid, ptid_t ptid);
int pm_start_pthread(pid_t pid, tid_t tid, ptid_t ptid);
int pm_stop_pthread(pid_t pid, tid_t tid, ptid_t ptid);
int pm_tstart_pthread(pid_t pid, tid_t tid, ptid_t ptid, timebasestruct_t *time);
int pm_tstop_pthread(pid_t pid, tid_t tid, ptid_t ptid, timebasestruct_t *time);
int pm_reset_data_pthread(pid_t pid, tid_t tid, ptid_t ptid);
int pm_get_data_pthread(pid_t pid, tid_t tid, ptid_t ptid, pm_data_t *data);
int pm_get_tdata_pthread(pid_t pid, tid_t tid, ptid_t ptid, pm_data_t *data, timebasestruct_t *time);
int pm_get_Tdata_pthread(pid_t pid, tid_t tid, ptid_t ptid, pm_data_t *data, pm_accu_time_t *times);
int pm_set_program_pgroup(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_t *prog);
int pm_get_program_pgroup(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_t *prog);
int pm_delete_program_pgroup(pid_t pid, tid_t tid, ptid_t ptid);
int pm_start_pgroup(pid_t pid, tid_t tid, ptid_t ptid);
int pm_stop_pgroup(pid_t pid, tid_t tid, ptid_t ptid);
int pm_tstart_pgroup(pid_t pid, tid_t tid, ptid_t ptid, timebasestruct_t *time);
int pm_tstop_pgroup(pid_t pid, tid_t tid, ptid_t ptid, timebasestruct_t *time);
int pm_reset_data_pgroup(pid_t pid, tid_t tid, ptid_t ptid);
int pm_get_data_pgroup(pid_t pid, tid_t tid, ptid_t ptid, pm_data_t *data);
int pm_get_tdata_pgroup(pid_t pid, tid_t tid, ptid_t ptid, pm_data_t *data, timebasestruct_t *time);
int pm_get_Tdata_pgroup(pid_t pid, tid_t tid, ptid_t ptid, pm_data_t *data, pm_accu_time_t *times);

/* Multiplexing and multi-mode, in every scope (pm_set_program_mx(3), pm_get_data_mx(3)). A plain
 * get_program/get_data of a multi-set context reports its first set; a get_program_mx of a
 * single-set context reports one set with slice_duration 0. */
int pm_set_program_mx(pm_prog_mx_t *prog);
int pm_set_program_mm(pm_prog_mm_t *prog);
int pm_get_program_mx(pm_prog_mx_t *prog);
int pm_get_program_mm(pm_prog_mm_t *prog);
int pm_get_data_mx(pm_data_mx_t *data);
int pm_get_tdata_mx(pm_data_mx_t *data, timebasestruct_t *time);
int pm_get_data_cpu_mx(int cpuid, pm_data_mx_t *data);
int pm_get_tdata_cpu_mx(int cpuid, pm_data_mx_t *data, timebasestruct_t *time);
int pm_get_data_lcpu_mx(int lcpuid, pm_data_mx_t *data);
int pm_get_tdata_lcpu_mx(int lcpuid, pm_data_mx_t *data, timebasestruct_t *time);
/* The caller's context on a cgroup (the _wp calls above): AIX's _wp_mx and _wp_mm. */
int pm_set_program_wp_mx(cid_t cid, pm_prog_mx_t *prog);
int pm_set_program_wp_mm(cid_t cid, pm_prog_mm_t *prog);
int pm_get_program_wp_mx(cid_t cid, pm_prog_mx_t *prog);
int pm_get_program_wp_mm(cid_t cid, pm_prog_mm_t *prog);
int pm_get_data_wp_mx(pm_wp_handle_t hwpar, pm_data_mx_t *data);
int pm_get_tdata_wp_mx(pm_wp_handle_t hwpar, pm_data_mx_t *data, timebasestruct_t *time);
int pm_get_data_lcpu_wp_mx(pm_wp_handle_t hwpar, int lcpuid, pm_data_mx_t *data);
int pm_get_tdata_lcpu_wp_mx(pm_wp_handle_t hwpar, int lcpuid, pm_data_mx_t *data, timebasestruct_t *time);

int pm_set_program_mythread_mx(pm_prog_mx_t *prog);
int pm_set_program_mythread_mm(pm_prog_mm_t *prog);
int pm_get_program_mythread_mx(pm_prog_mx_t *prog);
int pm_get_program_mythread_mm(pm_prog_mm_t *prog);
int pm_get_data_mythread_mx(pm_data_mx_t *data);
int pm_get_tdata_mythread_mx(pm_data_mx_t *data, timebasestruct_t *time);

int pm_set_program_mygroup_mx(pm_prog_mx_t *prog);
int pm_set_program_mygroup_mm(pm_prog_mm_t *prog);
int pm_get_program_mygroup_mx(pm_prog_mx_t *prog);
int pm_get_program_mygroup_mm(pm_prog_mm_t *prog);
int pm_get_data_mygroup_mx(pm_data_mx_t *data);
int pm_get_tdata_mygroup_mx(pm_data_mx_t *data, timebasestruct_t *time);

int pm_set_program_thread_mx(pid_t pid, tid_t tid, pm_prog_mx_t *prog);
int pm_set_program_thread_mm(pid_t pid, tid_t tid, pm_prog_mm_t *prog);
int pm_get_program_thread_mx(pid_t pid, tid_t tid, pm_prog_mx_t *prog);
int pm_get_program_thread_mm(pid_t pid, tid_t tid, pm_prog_mm_t *prog);
int pm_get_data_thread_mx(pid_t pid, tid_t tid, pm_data_mx_t *data);
int pm_get_tdata_thread_mx(pid_t pid, tid_t tid, pm_data_mx_t *data, timebasestruct_t *time);

int pm_set_program_group_mx(pid_t pid, tid_t tid, pm_prog_mx_t *prog);
int pm_set_program_group_mm(pid_t pid, tid_t tid, pm_prog_mm_t *prog);
int pm_get_program_group_mx(pid_t pid, tid_t tid, pm_prog_mx_t *prog);
int pm_get_program_group_mm(pid_t pid, tid_t tid, pm_prog_mm_t *prog);
int pm_get_data_group_mx(pid_t pid, tid_t tid, pm_data_mx_t *data);
int pm_get_tdata_group_mx(pid_t pid, tid_t tid, pm_data_mx_t *data, timebasestruct_t *time);

int pm_set_program_pthread_mx(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_mx_t *prog);
int pm_set_program_pthread_mm(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_mm_t *prog);
int pm_get_program_pthread_mx(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_mx_t *prog);
int pm_get_program_pthread_mm(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_mm_t *prog);
int pm_get_data_pthread_mx(pid_t pid, tid_t tid, ptid_t ptid, pm_data_mx_t *data);
int pm_get_tdata_pthread_mx(pid_t pid, tid_t tid, ptid_t ptid, pm_data_mx_t *data, timebasestruct_t *time);

int pm_set_program_pgroup_mx(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_mx_t *prog);
int pm_set_program_pgroup_mm(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_mm_t *prog);
int pm_get_program_pgroup_mx(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_mx_t *prog);
int pm_get_program_pgroup_mm(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_mm_t *prog);
int pm_get_data_pgroup_mx(pid_t pid, tid_t tid, ptid_t ptid, pm_data_mx_t *data);
int pm_get_tdata_pgroup_mx(pid_t pid, tid_t tid, ptid_t ptid, pm_data_mx_t *data, timebasestruct_t *time);

#ifdef __cplusplus
}
#endif

#endif /* PMAPI_H */
