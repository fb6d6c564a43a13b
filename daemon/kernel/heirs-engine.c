/* heirs-engine.c: the engine of inheritance inside the kernel (heirs.h): loads and attaches the
 * programs of bpf/heirs.bpf.c, opens the per-CPU counters they read (the sources), hands the maps
 * and links over to pmapid's next image and adopts them there, and sums the kernel side's stats.
 * heirs.c writes and reads the maps. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <glib.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "heirs-engine.h"
#include "log.h"
#include "macro.h"
#include "perf-syscall.h"
#include "pmu-budget.h"

/* The object compiled from bpf/heirs.bpf.c (heirs-object.c, generated at build time). */
extern const unsigned char heirs_bpf_object[];
extern const size_t heirs_bpf_object_size;

/* The engine of the last heirs_new() or heirs_adopt(): pmu-budget.h asks it for counters back. */
static Heirs *reclaimable;
static bool reclaim(void);
static unsigned release_unused_hardware(Heirs *h);

static const char *const map_names[N_MAPS] = { "controls", "counts", "sealed", "births", "releases", "sources",
                                               "starts", "last_next", "config", "source_events", "stats" };
static const char *const prog_names[N_LINKS] = { "heirs_newtask", "heirs_switch", "heirs_exec", "heirs_exit" };

static int libbpf_log(enum libbpf_print_level level, const char *format, va_list args) {
        char line[512];

        if (level == LIBBPF_DEBUG)
                return 0;
        vsnprintf(line, sizeof(line), format, args);
        line[strcspn(line, "\n")] = '\0';
        log_debug("libbpf: %s", line);
        return 0;
}

static Heirs *heirs_alloc(unsigned n_cpus) {
        Heirs *h = calloc(1, sizeof(*h));

        if (!h)
                return NULL;
        h->n_cpus = n_cpus;
        for (size_t i = 0; i < N_MAPS; i++)
                h->maps[i] = -1;
        for (size_t i = 0; i < N_LINKS; i++)
                h->links[i] = -1;
        h->fold = -1;
        h->source_fds = malloc(sizeof(int) * HEIRS_MAX_SOURCES * n_cpus);
        if (!h->source_fds) {
                free(h);
                return NULL;
        }
        for (size_t i = 0; i < HEIRS_MAX_SOURCES * n_cpus; i++)
                h->source_fds[i] = -1;
        return h;
}

Heirs *heirs_free(Heirs *h) {
        if (!h)
                return NULL;
        if (reclaimable == h) {
                reclaimable = NULL;
                pmu_budget_set_reclaim(NULL);
        }
        for (size_t i = 0; i < N_LINKS; i++)
                safe_close(h->links[i]);
        safe_close(h->fold);
        for (size_t i = 0; i < N_MAPS; i++)
                safe_close(h->maps[i]);
        for (size_t i = 0; i < HEIRS_MAX_SOURCES * h->n_cpus; i++)
                safe_close(h->source_fds[i]);
        free(h->source_fds);
        heirs_snapshot_free(h->snapshot);
        free(h);
        return NULL;
}

const char *heirs_unavailable_reason(int error) {
        switch (error) {
        case -EOPNOTSUPP:
                return "pmapid was built without BPF (clang or libbpf missing)";
        case -EPERM:
        case -EACCES:
                return "the kernel refused BPF (no CAP_BPF and CAP_PERFMON, or lockdown)";
        case -ENOENT:
        case -ESRCH:
                return "the kernel has no BTF (/sys/kernel/btf/vmlinux) or lacks a tracepoint";
        case -EXDEV:
                return "pmapid runs in a PID namespace of its own, a container's: the programs see the "
                       "host's thread ids, pmapid its own";
        default:
                return "the programs did not load";
        }
}

/* The initial PID namespace's inode number, fixed by the kernel (PROC_PID_INIT_INO in
 * include/linux/proc_ns.h, since Linux 3.8). */
#define PID_NS_INIT_INO 0xEFFFFFFCU

/* Whether this process sees thread ids other than the kernel's own: it runs in a PID namespace below
 * the first (a container's). The programs key their maps by the host's ids, which pmapid could not
 * match with its own: every new thread would be missed, silently. */
static bool in_nested_pid_namespace(void) {
        struct stat st;

        return stat("/proc/self/ns/pid", &st) == 0 && st.st_ino != PID_NS_INIT_INO;
}

/* Dups the fds libbpf holds, so that h owns them apart from the object. */
static int take_fd(int fd) {
        int r = fcntl(fd, F_DUPFD_CLOEXEC, 3);

        return r < 0 ? -errno : r;
}

int heirs_new(unsigned max_threads, unsigned max_births, Heirs **ret) {
        int n_cpus = libbpf_num_possible_cpus();
        struct bpf_object *obj = NULL;
        struct bpf_link *links[N_LINKS] = { NULL };
        Heirs *h = NULL;
        int r;

        if (n_cpus <= 0)
                return n_cpus < 0 ? n_cpus : -EINVAL;
        if (in_nested_pid_namespace())
                return -EXDEV;
        libbpf_set_print(libbpf_log);
        obj = bpf_object__open_mem(heirs_bpf_object, heirs_bpf_object_size, NULL);
        if (!obj)
                return -errno ?: -EINVAL;
        if (max_threads < 64)
                max_threads = 64;
        r = bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "controls"), max_threads);
        if (r >= 0)
                r = bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "counts"), max_threads);
        if (r >= 0)
                r = bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "sealed"), max_threads);
        if (r >= 0)
                r = bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "sources"),
                                             HEIRS_MAX_SOURCES * (unsigned) n_cpus);
        if (r >= 0)
                r = bpf_object__load(obj);
        if (r < 0)
                goto out;
        h = heirs_alloc((unsigned) n_cpus);
        if (!h) {
                r = -ENOMEM;
                goto out;
        }
        for (size_t i = 0; i < N_MAPS; i++) {
                r = take_fd(bpf_map__fd(bpf_object__find_map_by_name(obj, map_names[i])));
                if (r < 0)
                        goto out;
                h->maps[i] = r;
        }
        r = bpf_map_update_elem(h->maps[MAP_CONFIG], &(__u32) { 0 },
                                &(struct heirs_config) { .n_cpus = (__u32) n_cpus, .self_tgid = (__u32) getpid(),
                                                         .max_births = max_births },
                                BPF_ANY);
        if (r < 0)
                goto out;
        for (size_t i = 0; i < N_LINKS; i++) {
                links[i] = bpf_program__attach(bpf_object__find_program_by_name(obj, prog_names[i]));
                if (!links[i]) {
                        r = -errno ?: -EINVAL;
                        goto out;
                }
                r = take_fd(bpf_link__fd(links[i]));
                if (r < 0)
                        goto out;
                h->links[i] = r;
        }
        r = take_fd(bpf_program__fd(bpf_object__find_program_by_name(obj, "heirs_fold")));
        if (r < 0)
                goto out;
        h->fold = r;
        reclaimable = h;
        pmu_budget_set_reclaim(reclaim);
        *ret = TAKE_PTR(h);
        r = 0;
out:
        /* The dups keep maps and links alive; the object's own fds go. */
        for (size_t i = 0; i < N_LINKS; i++)
                bpf_link__destroy(links[i]);
        bpf_object__close(obj);
        heirs_free(h);
        return r;
}


static bool source_is_hardware(const struct heirs_source *s) {
        return pmu_budget_is_hardware(&(struct perf_event_attr) { .type = s->type });
}

static uint32_t source_excludes(const struct perf_event_attr *a) {
        return (uint32_t) a->exclude_user | (uint32_t) a->exclude_kernel << 1 | (uint32_t) a->exclude_hv << 2 |
               (uint32_t) a->exclude_idle << 3 | (uint32_t) a->exclude_host << 4 | (uint32_t) a->exclude_guest << 5;
}

static bool source_matches(const struct heirs_source *s, const struct perf_event_attr *a) {
        return s->in_use && s->type == a->type && s->config == a->config && s->config1 == a->config1 &&
               s->config2 == a->config2 && s->excludes == source_excludes(a);
}

/* Whether an event counts nothing while a CPU runs its idle task: page faults, and user-mode events
 * but the clocks (the idle task runs in the kernel). */
static bool idle_blind(const struct perf_event_attr *a) {
        if (a->type == PERF_TYPE_SOFTWARE && (a->config == PERF_COUNT_SW_PAGE_FAULTS ||
                                              a->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
                                              a->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ))
                return true;
        return a->exclude_kernel && !(a->type == PERF_TYPE_SOFTWARE && (a->config == PERF_COUNT_SW_CPU_CLOCK ||
                                                                         a->config == PERF_COUNT_SW_TASK_CLOCK));
}

/* Which of the task's own fault counts (getrusage's) source a counts: bit 0 minor, bit 1 major;
 * none where it leaves user mode out (the task's counts hold its faults in both modes). */
static unsigned fault_kinds(const struct perf_event_attr *a) {
        if (a->type != PERF_TYPE_SOFTWARE || a->exclude_user)
                return 0;
        switch (a->config) {
        case PERF_COUNT_SW_PAGE_FAULTS:
                return 3;
        case PERF_COUNT_SW_PAGE_FAULTS_MIN:
                return 1;
        case PERF_COUNT_SW_PAGE_FAULTS_MAJ:
                return 2;
        default:
                return 0;
        }
}

static bool is_clock(const struct perf_event_attr *a) {
        return a->type == PERF_TYPE_SOFTWARE &&
               (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
}

static int set_source_kind(Heirs *h, __u32 src, const struct perf_event_attr *a) {
        struct heirs_config cfg;
        __u32 zero = 0;
        bool blind = idle_blind(a);

        if (bpf_map_lookup_elem(h->maps[MAP_CONFIG], &zero, &cfg) < 0)
                return -errno;
        cfg.idle_blind = blind ? cfg.idle_blind | 1u << src : cfg.idle_blind & ~(1u << src);
        cfg.clocks = is_clock(a) ? cfg.clocks | 1u << src : cfg.clocks & ~(1u << src);
        cfg.faults_min = fault_kinds(a) & 1 ? cfg.faults_min | 1u << src : cfg.faults_min & ~(1u << src);
        cfg.faults_maj = fault_kinds(a) & 2 ? cfg.faults_maj | 1u << src : cfg.faults_maj & ~(1u << src);
        cfg.faults_user = fault_kinds(a) && a->exclude_kernel ? cfg.faults_user | 1u << src
                                                              : cfg.faults_user & ~(1u << src);
        return bpf_map_update_elem(h->maps[MAP_CONFIG], &zero, &cfg, BPF_ANY) < 0 ? -errno : 0;
}

/* The sources the kernel side reads at each switch: 0 .. n - 1 (never fewer than are open). */
static int set_n_sources(Heirs *h, __u32 n) {
        struct heirs_config cfg;
        __u32 zero = 0;

        if (bpf_map_lookup_elem(h->maps[MAP_CONFIG], &zero, &cfg) < 0)
                return -errno;
        if (n != 0 && n <= cfg.n_sources)
                return 0;
        cfg.n_sources = n;
        return bpf_map_update_elem(h->maps[MAP_CONFIG], &zero, &cfg, BPF_ANY) < 0 ? -errno : 0;
}

/* Source key (slot * n_cpus + cpu) gone from the map and closed. Switched off first: the map lets
 * go of its event only after an RCU grace period, and a pinned one would hold its PMU counter
 * until then (in the arm64 guest a thread's 6-event group, opened just after, counted 0). */
static void close_source(Heirs *h, __u32 key) {
        if (h->source_fds[key] >= 0)
                (void) ioctl(h->source_fds[key], PERF_EVENT_IOC_DISABLE, 0);
        (void) bpf_map_delete_elem(h->maps[MAP_SOURCES], &key);
        h->source_fds[key] = safe_close(h->source_fds[key]);
}

/* The source slot's fds on CPUs 0 .. cpu - 1 closed, and its entries in the sources map gone. */
static void close_slot(Heirs *h, unsigned slot, unsigned cpu) {
        for (unsigned k = 0; k < cpu; k++)
                close_source(h, (__u32) slot * h->n_cpus + k);
}

/* Whether a pinned per-CPU event is on its CPU's PMU: one the kernel could not place is in its
 * error state, where read() returns end of file. */
static bool placed(int fd) {
        uint64_t v[3];

        return read(fd, v, sizeof(v)) == (ssize_t) sizeof(v);
}

static bool cpu_online(unsigned cpu) {
        char path[64];
        FILE *f;
        int c = '1';

        (void) snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/online", cpu);
        f = fopen(path, "re");
        if (f) {
                c = fgetc(f);
                fclose(f);
        }
        return c == '1';        /* cpu0 often has no online file: it cannot go offline */
}

/* The source counting attr on every CPU: one already open, or a new one. */
int heirs_source_for(Heirs *h, const struct perf_event_attr *attr) {
        struct heirs_source s;
        int free_slot = -1, r;
        bool hardware = pmu_budget_is_hardware(attr);

        for (__u32 i = 0; i < HEIRS_MAX_SOURCES; i++) {
                if (bpf_map_lookup_elem(h->maps[MAP_SOURCE_EVENTS], &i, &s) < 0)
                        return -errno;
                if (source_matches(&s, attr))
                        return (int) i;
                if (!s.in_use && free_slot < 0)
                        free_slot = (int) i;
        }
        if (free_slot < 0)
                return -E2BIG;
        /* A hardware source holds a PMU counter on every CPU: within the share, and pinned, so that
         * the kernel never rotates it out (a slice would miss counts) nor places another first. */
        if (hardware && (r = pmu_budget_pin()) < 0 && (release_unused_hardware(h) == 0 || (r = pmu_budget_pin()) < 0))
                return r;

        struct perf_event_attr a = {
                .type = attr->type,
                .size = sizeof(a),
                .config = attr->config,
                .config1 = attr->config1,
                .config2 = attr->config2,
                .read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
                .exclude_user = attr->exclude_user,
                .exclude_kernel = attr->exclude_kernel,
                .exclude_hv = attr->exclude_hv,
                .exclude_idle = attr->exclude_idle,
                .exclude_host = attr->exclude_host,
                .exclude_guest = attr->exclude_guest,
                .pinned = hardware,
        };
        unsigned n_open = 0;
        for (unsigned cpu = 0; cpu < h->n_cpus; cpu++) {
                __u32 key = (__u32) free_slot * h->n_cpus + cpu;
                int fd = sys_perf_event_open(&a, -1, (int) cpu, -1, PERF_FLAG_FD_CLOEXEC);

                if (fd < 0 && (errno == ENODEV || errno == EINVAL) && !hardware)
                        continue;       /* a possible CPU that is not present */
                if (fd < 0 && (errno == ENODEV || errno == EINVAL) && !cpu_online(cpu))
                        continue;
                /* A pinned source the kernel could not place reads nothing, ever: refused, never
                 * zeros (its programs are attached after the fact). */
                if (fd >= 0 && hardware && !placed(fd)) {
                        close(fd);
                        fd = -1;
                        errno = ENOSPC;
                }
                if (fd < 0) {
                        int e = -errno;
                        close_slot(h, (unsigned) free_slot, cpu);
                        if (hardware)
                                pmu_budget_unpin();
                        return e;
                }
                if (bpf_map_update_elem(h->maps[MAP_SOURCES], &key, &fd, BPF_ANY) < 0) {
                        int e = -errno;
                        close(fd);
                        return e;
                }
                h->source_fds[key] = fd;
                n_open++;
        }
        if (n_open == 0) {
                if (hardware)
                        pmu_budget_unpin();
                return -ENODEV;
        }
        r = set_source_kind(h, (__u32) free_slot, attr);
        if (r >= 0)
                r = set_n_sources(h, (__u32) free_slot + 1);
        if (r < 0)
                return r;
        s = (struct heirs_source) { .config = attr->config, .config1 = attr->config1, .config2 = attr->config2,
                                    .type = attr->type, .excludes = source_excludes(attr), .in_use = 1 };
        if (bpf_map_update_elem(h->maps[MAP_SOURCE_EVENTS], &(__u32) { (__u32) free_slot }, &s, BPF_ANY) < 0)
                return -errno;
        return free_slot;
}

/* Closes every hardware source that no control refers to (a carrier that left, whose born threads
 * are gone too): their PMU counters go back to the budget. How many. */
static unsigned release_unused_hardware(Heirs *h) {
        bool used[HEIRS_MAX_SOURCES] = { false };
        struct heirs_control c;
        __u32 key, next;
        bool first = true;
        unsigned n = 0;

        while (bpf_map_get_next_key(h->maps[MAP_CONTROLS], first ? NULL : &key, &next) == 0) {
                first = false;
                key = next;
                if (bpf_map_lookup_elem(h->maps[MAP_CONTROLS], &key, &c) == 0)
                        for (__u32 i = 0; i < c.n_events && i < HEIRS_MAX_EVENTS; i++)
                                if (c.sources[i] < HEIRS_MAX_SOURCES)
                                        used[c.sources[i]] = true;
        }
        for (__u32 i = 0; i < HEIRS_MAX_SOURCES; i++) {
                struct heirs_source s;
                if (used[i] || bpf_map_lookup_elem(h->maps[MAP_SOURCE_EVENTS], &i, &s) < 0 || !s.in_use ||
                    !source_is_hardware(&s))
                        continue;
                /* the slot first, so that no new control takes it while its fds close */
                (void) bpf_map_update_elem(h->maps[MAP_SOURCE_EVENTS], &i, &(struct heirs_source) { 0 }, BPF_ANY);
                close_slot(h, i, h->n_cpus);
                pmu_budget_unpin();
                n++;
        }
        return n;
}

static bool reclaim(void) {
        return reclaimable && release_unused_hardware(reclaimable) > 0;
}

int heirs_sources_fit(Heirs *h, const struct perf_event_attr *attrs, size_t n) {
        unsigned wanted = 0;

        for (size_t i = 0; i < n; i++) {
                bool known = !pmu_budget_is_hardware(&attrs[i]);
                struct heirs_source s;

                for (__u32 k = 0; !known && k < HEIRS_MAX_SOURCES; k++)
                        known = bpf_map_lookup_elem(h->maps[MAP_SOURCE_EVENTS], &k, &s) == 0 &&
                                source_matches(&s, &attrs[i]);
                for (size_t j = 0; !known && j < i; j++)        /* twice in the program: one source */
                        known = memcmp(&attrs[j], &attrs[i], sizeof(attrs[i])) == 0;
                wanted += !known;
        }
        if (wanted == 0 || pmu_budget_may_pin(wanted))
                return 0;
        return release_unused_hardware(h) > 0 && pmu_budget_may_pin(wanted) ? 0 : -ENOSPC;
}

void heirs_sources_release_if_idle(Heirs *h) {
        __u32 key;

        if (bpf_map_get_next_key(h->maps[MAP_CONTROLS], NULL, &key) == 0)
                return;
        (void) set_n_sources(h, 0);     /* the switches stop reading first */
        for (__u32 i = 0; i < HEIRS_MAX_SOURCES * h->n_cpus; i++)
                close_source(h, i);
        for (__u32 i = 0; i < HEIRS_MAX_SOURCES; i++) {
                struct heirs_source s;
                if (bpf_map_lookup_elem(h->maps[MAP_SOURCE_EVENTS], &i, &s) == 0 && s.in_use &&
                    source_is_hardware(&s))
                        pmu_budget_unpin();
                (void) bpf_map_update_elem(h->maps[MAP_SOURCE_EVENTS], &i, &(struct heirs_source) { 0 }, BPF_ANY);
        }
}


static uint64_t stat_sum(Heirs *h, __u32 k) {
        uint64_t v[h->n_cpus], sum = 0;

        if (bpf_map_lookup_elem(h->maps[MAP_STATS], &k, v) == 0)
                for (unsigned i = 0; i < h->n_cpus; i++)
                        sum += v[i];
        return sum;
}

void heirs_log_stats(Heirs *h) {
        log_debug("Inheritance inside the kernel: %" PRIu64 " threads born, %" PRIu64 " refused, %" PRIu64
                  " slices, %" PRIu64 " switches the tracepoint did not show, %" PRIu64 " sealed by a set-id "
                  "exec, %" PRIu64 " not born (their owner at its limit).", stat_sum(h, HEIRS_STAT_BORN),
                  stat_sum(h, HEIRS_STAT_BIRTH_FAILED),
                  stat_sum(h, HEIRS_STAT_SLICES), stat_sum(h, HEIRS_STAT_UNSEEN_SWITCH),
                  stat_sum(h, HEIRS_STAT_SEALED), stat_sum(h, HEIRS_STAT_BIRTH_LIMITED));
}

uint64_t heirs_ambiguous_slices(Heirs *h) {
        return stat_sum(h, HEIRS_STAT_AMBIGUOUS);
}


size_t heirs_fds(Heirs *h, int *ret, size_t max) {
        size_t k = 0;

        for (size_t i = 0; i < N_MAPS && k < max; i++)
                ret[k++] = h->maps[i];
        for (size_t i = 0; i < N_LINKS && k < max; i++)
                ret[k++] = h->links[i];
        if (k < max)
                ret[k++] = h->fold;
        return k;
}

/* Whether map fd holds values of size want: the previous image's object may have laid them out
 * otherwise. */
static bool value_size_is(int fd, size_t want) {
        struct bpf_map_info info = {};
        __u32 len = sizeof(info);

        return bpf_obj_get_info_by_fd(fd, &info, &len) == 0 && info.value_size == want;
}

int heirs_adopt(const int *fds, size_t n, Heirs **ret) {
        struct heirs_config cfg;
        Heirs *h;

        if (n != N_MAPS + N_LINKS + 1)
                return -EINVAL;
        if (!value_size_is(fds[MAP_CONTROLS], sizeof(struct heirs_control)) ||
            !value_size_is(fds[MAP_COUNTS], sizeof(struct heirs_counts)) ||
            !value_size_is(fds[MAP_LAST_NEXT], sizeof(struct heirs_last_seen)) ||
            !value_size_is(fds[MAP_CONFIG], sizeof(struct heirs_config)))
                return -EPROTO;
        if (bpf_map_lookup_elem(fds[MAP_CONFIG], &(__u32) { 0 }, &cfg) < 0)
                return -errno;
        h = heirs_alloc(cfg.n_cpus);
        if (!h)
                return -ENOMEM;
        for (size_t i = 0; i < N_MAPS; i++)
                h->maps[i] = fds[i];
        for (size_t i = 0; i < N_LINKS; i++)
                h->links[i] = fds[N_MAPS + i];
        h->fold = fds[N_MAPS + N_LINKS];
        /* The previous image's hardware sources stay pinned: the budget knows them again. */
        for (__u32 i = 0; i < HEIRS_MAX_SOURCES; i++) {
                struct heirs_source s;
                if (bpf_map_lookup_elem(fds[MAP_SOURCE_EVENTS], &i, &s) == 0 && s.in_use && source_is_hardware(&s))
                        pmu_budget_pinned_already();
        }
        reclaimable = h;
        pmu_budget_set_reclaim(reclaim);
        *ret = h;
        return 0;
}
