/* system.c: see system.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup-fs.h"
#include "macro.h"
#include "system.h"

static void close_cpu_groups(SystemContext *s, SystemCpu *c) {
        for (size_t i = 0; i < c->n_groups; i++)
                s->backend->close(c->groups[i]);
        free(c->groups);
        free(c->bases);
        c->groups = NULL;
        c->bases = NULL;
        c->n_groups = 0;
}

SystemContext *system_free(SystemContext *s) {
        if (!s)
                return NULL;
        for (size_t i = 0; i < s->n_cpus; i++)
                close_cpu_groups(s, &s->cpus[i]);
        free(s->cpus);
        free(s->tree);
        free(s->cgroup_path);
        safe_close(s->cgroup_fd);
        free(s);
        return NULL;
}
DEFINE_FREEP(SystemContext, system_free);

static int switch_cpu(SystemContext *s, SystemCpu *c, bool on) {
        for (size_t i = 0; i < c->n_groups; i++) {
                int r = on ? s->backend->enable(c->groups[i]) : s->backend->disable(c->groups[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Group i's raw counts and times, in the layout of its base (accounting.h's slots). */
static int read_raw(SystemContext *s, SystemCpu *c, size_t i, AcctVector ret) {
        const ProgramEncoding *enc = &s->encoding[i % s->n_sets];
        uint64_t values[MAX_COUNTERS];
        CounterTimes t;
        int r;

        r = s->backend->read(c->groups[i], values, enc->n_events, &t);
        if (r < 0)
                return r;
        program_spread_values(enc, values, ret);
        ret[ACCT_ENABLED] = (int64_t) t.enabled_ns;
        ret[ACCT_RUNNING] = (int64_t) t.running_ns;
        return 0;
}

/* The sum of the CPU's open groups of one set since the last reset, in counter order: each group's
 * counts since its base, scaled by its own times since then (a multi-set program's never). */
static int read_live(SystemContext *s, SystemCpu *c, size_t set, AcctVector ret) {
        memset(ret, 0, sizeof(AcctVector));
        for (size_t i = set; i < c->n_groups; i += s->n_sets) {
                int64_t counts[MAX_COUNTERS];
                AcctVector raw, v;
                int r;

                r = read_raw(s, c, i, raw);
                if (r < 0)
                        return r;
                for (int k = 0; k < MAX_COUNTERS; k++)
                        counts[k] = raw[k] - c->bases[i][k];
                /* A tree thread's counter on one CPU is off whenever its thread runs elsewhere, which
                 * perf does not tell from a busy PMU: it is never scaled, and counted is enabled. */
                if (s->tree) {
                        raw[ACCT_ENABLED] = raw[ACCT_RUNNING];
                        c->bases[i][ACCT_ENABLED] = c->bases[i][ACCT_RUNNING];
                }
                (program_multi_set(&s->program) ? acct_raw_from_counts : acct_from_counts)(
                        v, counts, (uint64_t) raw[ACCT_ENABLED], (uint64_t) raw[ACCT_RUNNING],
                        (uint64_t) c->bases[i][ACCT_ENABLED], (uint64_t) c->bases[i][ACCT_RUNNING]);
                for (int k = 0; k < ACCT_SLOTS; k++)
                        ret[k] += v[k];
        }
        return 0;
}

bool system_cpu_open(const SystemContext *s, unsigned cpu) {
        return cpu < s->n_cpus && s->cpus[cpu].groups;
}

int system_cpu_online(SystemContext *s, unsigned cpu) {
        SystemCpu *c;
        size_t n_targets;
        int r;

        if (cpu >= s->n_cpus)
                return -ENXIO;
        c = &s->cpus[cpu];
        if (c->groups)
                return 0;
        if (s->cgroup_id && system_cgroup_removed(s))
                return -ENODEV;                 /* nothing can run in it any more */
        n_targets = s->tree ? s->n_tree : 1;
        c->groups = calloc(n_targets * s->n_sets, sizeof(CounterGroup *));
        c->bases = calloc(n_targets * s->n_sets, sizeof(AcctVector));     /* new counters start at zero */
        if (!c->groups || !c->bases) {
                close_cpu_groups(s, c);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n_targets; i++) {
                CounterTarget t = {
                        .tid = s->tree ? s->tree[i] : -1,
                        .cpu = (int) cpu,
                        .inherit = s->tree != NULL,
                        .cgroup_fd = s->cgroup_fd,
                };
                size_t first = c->n_groups;

                r = 0;
                for (size_t k = 0; r >= 0 && k < s->n_sets; k++) {
                        r = s->backend->open(&t, s->encoding[k].attrs, s->encoding[k].n_events,
                                             &c->groups[c->n_groups]);
                        if (r >= 0)
                                c->n_groups++;
                }
                if (r == -ESRCH && s->tree) {
                        /* That thread has exited: nothing of it to count, in any set. */
                        while (c->n_groups > first)
                                s->backend->close(c->groups[--c->n_groups]);
                        continue;
                }
                if (r == -ENOENT && s->cgroup_id && system_cgroup_removed(s))
                        r = -ENODEV;
                if (r < 0)
                        goto fail;
        }
        r = switch_cpu(s, c, s->counting);
        if (r < 0)
                goto fail;
        c->counted = true;
        return 0;
fail:
        close_cpu_groups(s, c);
        return r;
}

int system_cpu_offline(SystemContext *s, unsigned cpu) {
        AcctVector last[PM_MX_MAX_SETS];
        SystemCpu *c;
        int r;

        if (cpu >= s->n_cpus)
                return -ENXIO;
        c = &s->cpus[cpu];
        if (!c->groups)
                return 0;
        /* A counter of an offline CPU still reads the count it stopped at. Every set is read before
         * any is kept: a failed read is retried later, and must not keep a set twice. */
        for (size_t set = 0; set < s->n_sets; set++) {
                r = read_live(s, c, set, last[set]);
                if (r < 0)
                        return r;
        }
        for (size_t set = 0; set < s->n_sets; set++)
                for (int k = 0; k < ACCT_SLOTS; k++)
                        c->kept[set][k] += last[set][k];
        close_cpu_groups(s, c);
        return 0;
}

static int system_create(const CounterBackend *backend, const EventTable *events, const Program *program,
                         pid_t owner_pid, uid_t owner_uid, const pid_t *tree, size_t n_tree, int cgroup_fd,
                         uint64_t cgroup_id, const char *cgroup_path, const bool *online, size_t n_cpus,
                         SystemContext **ret) {
        _cleanup_(system_freep) SystemContext *s = NULL;
        int r;

        s = calloc(1, sizeof(*s));
        if (!s) {
                safe_close(cgroup_fd);
                return -ENOMEM;
        }
        s->cgroup_fd = cgroup_fd;
        s->cgroup_id = cgroup_id;
        if (cgroup_path && !(s->cgroup_path = strdup(cgroup_path)))
                return -ENOMEM;
        s->owner_pid = owner_pid;
        s->owner_uid = owner_uid;
        s->program = *program;
        s->backend = backend;
        s->counting = program_counts_on_start(program);
        s->n_sets = program_n_sets(program);
        for (size_t k = 0; k < s->n_sets; k++) {
                Program one = program_set(program, k);
                program_encode(&one, events, &s->encoding[k]);
        }
        if (tree) {
                s->tree = calloc(n_tree ? n_tree : 1, sizeof(pid_t));
                if (!s->tree)
                        return -ENOMEM;
                memcpy(s->tree, tree, n_tree * sizeof(pid_t));
                s->n_tree = n_tree;
        }
        s->cpus = calloc(n_cpus ? n_cpus : 1, sizeof(SystemCpu));
        if (!s->cpus)
                return -ENOMEM;
        s->n_cpus = n_cpus;
        s->events = events;
        for (size_t cpu = 0; cpu < n_cpus; cpu++) {
                s->cpus[cpu].system = s;
                s->cpus[cpu].cpu = (unsigned) cpu;
                if (!online[cpu])
                        continue;
                r = system_cpu_online(s, (unsigned) cpu);
                if (r == -ENODEV)
                        continue;               /* went offline since the caller looked (or the cgroup went) */
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(s);
        return 0;
}

int system_new(const CounterBackend *backend, const EventTable *events, const Program *program,
               pid_t owner_pid, uid_t owner_uid, const pid_t *tree, size_t n_tree, const bool *online,
               size_t n_cpus, SystemContext **ret) {
        return system_create(backend, events, program, owner_pid, owner_uid, tree, n_tree, -1, 0, NULL, online,
                             n_cpus, ret);
}

int system_new_cgroup(const CounterBackend *backend, const EventTable *events, const Program *program,
                      pid_t owner_pid, uid_t owner_uid, int cgroup_fd, uint64_t cgroup_id, const char *cgroup_path,
                      const bool *online, size_t n_cpus, SystemContext **ret) {
        return system_create(backend, events, program, owner_pid, owner_uid, NULL, 0, cgroup_fd, cgroup_id,
                             cgroup_path, online, n_cpus, ret);
}

bool system_cgroup_removed(SystemContext *s) {
        if (!s->cgroup_id)
                return false;
        if (!s->cgroup_removed && (s->cgroup_fd < 0 || cgroup_fs_removed(s->cgroup_fd))) {
                s->cgroup_removed = true;
                s->cgroup_fd = safe_close(s->cgroup_fd);
        }
        return s->cgroup_removed;
}

static int switch_all(SystemContext *s, bool on) {
        for (size_t i = 0; i < s->n_cpus; i++) {
                int r = switch_cpu(s, &s->cpus[i], on);
                if (r < 0)
                        return r;
        }
        s->counting = on;
        return 0;
}

int system_start(SystemContext *s) {
        return switch_all(s, true);
}

int system_stop(SystemContext *s) {
        return switch_all(s, false);
}

int system_reset(SystemContext *s) {
        for (size_t i = 0; i < s->n_cpus; i++) {
                SystemCpu *c = &s->cpus[i];

                for (size_t g = 0; g < c->n_groups; g++) {
                        int r = read_raw(s, c, g, c->bases[g]);
                        if (r < 0)
                                return r;
                }
                memset(c->kept, 0, sizeof(c->kept));
        }
        return 0;
}

int system_read_cpu_set(SystemContext *s, unsigned cpu, size_t set, AcctVector ret) {
        SystemCpu *c;
        int r;

        if (cpu >= s->n_cpus || !s->cpus[cpu].counted)
                return -ENXIO;
        if (set >= s->n_sets)
                return -EINVAL;
        c = &s->cpus[cpu];
        r = read_live(s, c, set, ret);
        if (r < 0)
                return r;
        for (int k = 0; k < ACCT_SLOTS; k++)
                ret[k] += c->kept[set][k];
        return 0;
}

int system_read_cpu(SystemContext *s, unsigned cpu, AcctVector ret) {
        return system_read_cpu_set(s, cpu, 0, ret);
}

int system_read_set(SystemContext *s, size_t set, AcctVector ret) {
        memset(ret, 0, sizeof(AcctVector));
        for (size_t i = 0; i < s->n_cpus; i++) {
                AcctVector v;
                int r;

                if (!s->cpus[i].counted)
                        continue;
                r = system_read_cpu_set(s, (unsigned) i, set, v);
                if (r < 0)
                        return r;
                for (int k = 0; k < ACCT_SLOTS; k++)
                        ret[k] += v[k];
        }
        return 0;
}

uint64_t system_longest_enabled(SystemContext *s) {
        uint64_t longest = 0;

        for (size_t i = 0; i < s->n_cpus; i++) {
                AcctVector v;
                if (s->cpus[i].counted && system_read_cpu_set(s, (unsigned) i, 0, v) >= 0 && v[ACCT_ENABLED] > 0)
                        longest = longest > (uint64_t) v[ACCT_ENABLED] ? longest : (uint64_t) v[ACCT_ENABLED];
        }
        return longest;
}

int system_read(SystemContext *s, AcctVector ret) {
        return system_read_set(s, 0, ret);
}

Program system_get_program(const SystemContext *s) {
        return program_with_count(&s->program, s->counting);
}

int system_cpu_by_id(const SystemContext *s, uint32_t id, bool logical, unsigned *ret) {
        uint32_t seen = 0;

        if (logical) {
                *ret = id;
                return 0;
        }
        for (size_t cpu = 0; cpu < s->n_cpus; cpu++)
                if (system_cpu_open(s, (unsigned) cpu) && seen++ == id) {
                        *ret = (unsigned) cpu;
                        return 0;
                }
        return -ENXIO;
}
