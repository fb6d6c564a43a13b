/* heirs.c: pmapid's side of bpf/heirs.bpf.c (heirs.h): writes and reads the maps. A carrier's
 * control, a born thread's birth, counts, reset, seal and end are here; the engine that loads the
 * programs and opens their per-CPU sources is heirs-engine.c. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <glib.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "heirs-engine.h"
#include "log.h"
#include "macro.h"
#include "perf-syscall.h"

int heirs_carry(Heirs *h, pid_t tid, const struct perf_event_attr *attrs, size_t n, bool counting,
                unsigned group_id, uid_t owner) {
        struct heirs_control c = { .flags = HEIRS_INHERITS | (counting ? HEIRS_COUNTING : 0), .group = group_id,
                                   .owner = (__u32) owner };
        __u32 key = (__u32) tid, uid = (__u32) owner;
        bool existed;
        int r;

        if (n > HEIRS_MAX_EVENTS)
                return -E2BIG;
        /* The owner's births are counted from here on (the kernel refuses a birth it has no count for). */
        if (owner != 0 && bpf_map_update_elem(h->maps[MAP_BIRTHS], &uid, &(__u64) { 0 }, BPF_NOEXIST) < 0 &&
            errno != EEXIST)
                return -errno;
        existed = bpf_map_lookup_elem(h->maps[MAP_CONTROLS], &key, &(struct heirs_control) { 0 }) == 0;
        /* All or nothing: a program whose hardware sources do not fit pins none of them. */
        r = heirs_sources_fit(h, attrs, n);
        if (r < 0)
                return r;
        memset(c.sources, HEIRS_NO_SOURCE, sizeof(c.sources));
        for (size_t i = 0; i < n; i++) {
                int s = heirs_source_for(h, &attrs[i]);
                if (s < 0) {
                        if (!existed)
                                heirs_sources_release_if_idle(h);
                        return s;
                }
                c.sources[i] = (__u8) s;
        }
        c.n_events = (__u32) n;
        if (bpf_map_update_elem(h->maps[MAP_CONTROLS], &key, &c, BPF_ANY) < 0)
                return -errno;
        return 0;
}

int heirs_register_carrier(Heirs *h, pid_t tid, const struct perf_event_attr *attrs, size_t n, unsigned group_id,
                           uid_t owner) {
        struct heirs_control c;
        struct timespec now;
        __u32 key = (__u32) tid;
        int r;

        r = heirs_carry(h, tid, attrs, n, false, group_id, owner);
        if (r < 0)
                return r;
        if (bpf_map_lookup_elem(h->maps[MAP_CONTROLS], &key, &c) < 0)
                return -errno;
        /* What it ran before now is not its to count: its slice ends here, uncounted. */
        (void) heirs_fold_running(h);
        clock_gettime(CLOCK_MONOTONIC, &now);
        c.born_ns = (uint64_t) now.tv_sec * 1000000000ull + (uint64_t) now.tv_nsec;
        c.flags |= HEIRS_ACCOUNT;
        /* counts first: a control with HEIRS_ACCOUNT always has its counts (as the kernel does) */
        if (bpf_map_update_elem(h->maps[MAP_COUNTS], &key, &(struct heirs_counts) { .born_ns = c.born_ns }, BPF_ANY) < 0 ||
            bpf_map_update_elem(h->maps[MAP_CONTROLS], &key, &c, BPF_ANY) < 0) {
                r = -errno;
                heirs_drop(h, tid);
                return r;
        }
        return 0;
}

/* Writes back the control of tracked tid (after its birth the kernel only reads it). */
static int store_control(Heirs *h, pid_t tid, const struct heirs_control *c) {
        __u32 key = (__u32) tid;

        return bpf_map_update_elem(h->maps[MAP_CONTROLS], &key, c, BPF_EXIST) < 0 ? -errno : 0;
}

static int update_flags(Heirs *h, pid_t tid, uint32_t flag, bool on) {
        struct heirs_control c;
        __u32 key = (__u32) tid;

        if (bpf_map_lookup_elem(h->maps[MAP_CONTROLS], &key, &c) < 0)
                return -errno;
        c.flags = on ? c.flags | flag : c.flags & ~flag;
        return store_control(h, tid, &c);
}

int heirs_set_counting(Heirs *h, pid_t tid, bool counting) {
        return update_flags(h, tid, HEIRS_COUNTING, counting);
}

/* What tid counted of event i: its counts, and where it no longer reads itself in process, what
 * the kernel added to its local counts meanwhile (it ran while pmapid handed it over and took the
 * handover back). Less c's base, it is what a read gives. */
static uint64_t sum_of(const struct heirs_control *c, const struct heirs_counts *n, size_t i) {
        return n->counts[i] + (c->flags & HEIRS_LOCAL ? 0 : n->local_counts[i]);
}

/* tid's control and counts, where they are those of its birth at born_ns. */
static int lookup_birth(Heirs *h, pid_t tid, uint64_t born_ns, struct heirs_control *c, struct heirs_counts *n) {
        __u32 key = (__u32) tid;

        if (bpf_map_lookup_elem(h->maps[MAP_CONTROLS], &key, c) < 0 ||
            bpf_map_lookup_elem(h->maps[MAP_COUNTS], &key, n) < 0)
                return -errno;
        return n->born_ns == born_ns && c->born_ns == born_ns ? 0 : -ESTALE;
}

int heirs_reset(Heirs *h, pid_t tid, uint64_t born_ns) {
        struct heirs_control c;
        struct heirs_counts n;
        int r = lookup_birth(h, tid, born_ns, &c, &n);

        if (r < 0)
                return r;
        for (size_t i = 0; i < HEIRS_MAX_EVENTS; i++)
                c.base[i] = sum_of(&c, &n, i);
        return store_control(h, tid, &c);
}

/* The base moves by the local counts, which a read takes or leaves with the flag: a read reads
 * the same across (arithmetic modulo 2^64, as a read's). */
int heirs_set_local(Heirs *h, pid_t tid, uint64_t born_ns, uint64_t ret_local[8]) {
        struct heirs_control c;
        struct heirs_counts n;
        int r = lookup_birth(h, tid, born_ns, &c, &n);

        if (r < 0)
                return r;
        if (c.flags & HEIRS_LOCAL)
                return -EALREADY;
        for (size_t i = 0; i < HEIRS_MAX_EVENTS; i++) {
                ret_local[i] = n.local_counts[i];
                c.base[i] -= n.local_counts[i];
        }
        c.flags |= HEIRS_LOCAL | HEIRS_HANDING;
        return store_control(h, tid, &c);
}

int heirs_local_settled(Heirs *h, pid_t tid, uint64_t born_ns) {
        struct heirs_control c;
        struct heirs_counts n;
        int r = lookup_birth(h, tid, born_ns, &c, &n);

        if (r < 0)
                return r;
        c.flags &= ~HEIRS_HANDING;
        return store_control(h, tid, &c);
}

int heirs_unset_local(Heirs *h, pid_t tid, uint64_t born_ns, const uint64_t local[8]) {
        struct heirs_control c;
        struct heirs_counts n;
        int r = lookup_birth(h, tid, born_ns, &c, &n);

        if (r < 0)
                return r;
        if (!(c.flags & HEIRS_LOCAL))
                return -EINVAL;
        for (size_t i = 0; i < HEIRS_MAX_EVENTS; i++)
                c.base[i] += local[i];
        c.flags &= ~(HEIRS_LOCAL | HEIRS_HANDING);
        return store_control(h, tid, &c);
}

/* One more of owner's born threads gone from the maps: pmapid is the only writer of releases. */
static void release_birth(Heirs *h, __u32 owner) {
        __u64 released = 0;

        (void) bpf_map_lookup_elem(h->maps[MAP_RELEASES], &owner, &released);
        released++;
        (void) bpf_map_update_elem(h->maps[MAP_RELEASES], &owner, &released, BPF_ANY);
}

void heirs_drop(Heirs *h, pid_t tid) {
        struct heirs_control c;
        __u32 key = (__u32) tid;
        bool had = bpf_map_lookup_elem(h->maps[MAP_CONTROLS], &key, &c) == 0;

        /* A thread born in the kernel took one of its owner's births; a registered carrier (creator
         * 0) took none. */
        if (bpf_map_delete_elem(h->maps[MAP_CONTROLS], &key) == 0 && had && (c.flags & HEIRS_ACCOUNT) && c.owner != 0 &&
            c.creator != 0)
                release_birth(h, c.owner);
        (void) bpf_map_delete_elem(h->maps[MAP_COUNTS], &key);
        (void) bpf_map_delete_elem(h->maps[MAP_SEALED], &key);
        heirs_sources_release_if_idle(h);
}

bool heirs_born(Heirs *h, pid_t tid, HeirsBirth *ret) {
        struct heirs_control c;
        __u32 key = (__u32) tid;

        if (!h || bpf_map_lookup_elem(h->maps[MAP_CONTROLS], &key, &c) < 0 || !(c.flags & HEIRS_ACCOUNT))
                return false;
        if (ret)
                *ret = (HeirsBirth) { .born_ns = c.born_ns, .creator = (pid_t) c.creator, .pid = (pid_t) c.tgid,
                                      .group_id = c.group,
                                      .creator_counting = c.flags & HEIRS_CREATOR_COUNTING,
                                      .counting = c.flags & HEIRS_COUNTING };
        return true;
}

void heirs_foreach_born(Heirs *h, void (*fn)(pid_t tid, void *userdata), void *userdata) {
        GArray *born = g_array_new(FALSE, FALSE, sizeof(__u32));
        struct heirs_control c;
        __u32 key, next;
        bool first = true;

        /* The keys first: fn may delete while the walk would go on. */
        while (bpf_map_get_next_key(h->maps[MAP_CONTROLS], first ? NULL : &key, &next) == 0) {
                first = false;
                key = next;
                if (bpf_map_lookup_elem(h->maps[MAP_CONTROLS], &key, &c) == 0 && (c.flags & HEIRS_ACCOUNT))
                        g_array_append_val(born, key);
        }
        for (guint i = 0; i < born->len; i++)
                fn((pid_t) g_array_index(born, __u32, i), userdata);
        g_array_free(born, TRUE);
}

bool heirs_carries(Heirs *h, pid_t tid) {
        struct heirs_control c;
        __u32 key = (__u32) tid;

        return h && bpf_map_lookup_elem(h->maps[MAP_CONTROLS], &key, &c) == 0 && (c.flags & HEIRS_INHERITS);
}

bool heirs_births_spent(Heirs *h, pid_t tid) {
        struct heirs_control c;
        struct heirs_config cfg;
        __u32 key = (__u32) tid, zero = 0;
        __u64 born = 0, released = 0;

        if (!h || bpf_map_lookup_elem(h->maps[MAP_CONTROLS], &key, &c) < 0 || c.owner == 0 ||
            bpf_map_lookup_elem(h->maps[MAP_CONFIG], &zero, &cfg) < 0)
                return false;
        (void) bpf_map_lookup_elem(h->maps[MAP_BIRTHS], &c.owner, &born);
        (void) bpf_map_lookup_elem(h->maps[MAP_RELEASES], &c.owner, &released);
        return born - released >= cfg.max_births;
}

bool heirs_maybe_on_cpu(Heirs *h, pid_t tid) {
        struct heirs_last_seen *last = calloc(h->n_cpus, sizeof(*last));
        bool on = true;

        if (last && bpf_map_lookup_elem(h->maps[MAP_LAST_NEXT], &(__u32) { 0 }, last) == 0) {
                on = false;
                for (unsigned i = 0; i < h->n_cpus && !on; i++)
                        on = last[i].tid == (__u32) tid;
        }
        free(last);
        return on;
}

/* Runs the fold on cpu: it interrupts the CPU, and ends the slice of the task running there. */
static int fold_cpu(Heirs *h, unsigned cpu) {
        LIBBPF_OPTS(bpf_test_run_opts, opts, .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = cpu);

        return bpf_prog_test_run_opts(h->fold, &opts) < 0 ? -errno : 0;
}

/* Every CPU whose last switch seen brought in another task than its idle one: a switch the
 * tracepoint did not show may have brought a born thread in since, so the note's task is not asked
 * about. */
int heirs_fold_running(Heirs *h) {
        g_autofree struct heirs_last_seen *last = g_new0(struct heirs_last_seen, h->n_cpus);
        int r = 0;

        if (bpf_map_lookup_elem(h->maps[MAP_LAST_NEXT], &(__u32) { 0 }, last) < 0)
                return -errno;
        for (unsigned cpu = 0; cpu < h->n_cpus; cpu++)
                if (last[cpu].tid != 0) {
                        int k = fold_cpu(h, cpu);
                        if (k < 0 && r == 0)
                                r = k;
                }
        return r;
}

bool heirs_sealed(Heirs *h, pid_t tid) {
        struct heirs_control c;
        __u32 key = (__u32) tid;
        __u64 at;

        return h && bpf_map_lookup_elem(h->maps[MAP_CONTROLS], &key, &c) == 0 &&
               bpf_map_lookup_elem(h->maps[MAP_SEALED], &key, &at) == 0 && at == c.born_ns;
}

void heirs_batch_begin(Heirs *h) {
        h->batching = true;
        h->copy_failed = false;
}

void heirs_batch_end(Heirs *h) {
        h->batching = false;
        h->snapshot = heirs_snapshot_free(h->snapshot);
}

/* tid's control and counts from the batch's copy (taken now if it is the batch's first read), where
 * it has them and they are settled: a thread in its exit is read live, its last slice coming. */
static int lookup_copied(Heirs *h, pid_t tid, uint64_t born_ns, struct heirs_control *c, struct heirs_counts *n) {
        int r;

        if (!h->batching || h->copy_failed)
                return -ENOENT;
        if (!h->snapshot) {
                r = heirs_snapshot_new(h->maps[MAP_CONTROLS], h->maps[MAP_COUNTS], &h->snapshot);
                if (r < 0) {
                        log_debug("The kernel's maps could not be copied in batches (%s): one lookup a thread.",
                                  strerror(-r));
                        h->copy_failed = true;
                        return r;
                }
        }
        r = heirs_snapshot_find(h->snapshot, tid, c, n);
        if (r < 0 || ((n->state & HEIRS_EXITING) && !(n->state & HEIRS_FINAL)))
                return -ENOENT;
        return n->born_ns == born_ns && c->born_ns == born_ns ? 0 : -ESTALE;
}

int heirs_read(Heirs *h, pid_t tid, uint64_t born_ns, HeirsReading *ret) {
        struct heirs_control c;
        struct heirs_counts n;
        int r = lookup_copied(h, tid, born_ns, &c, &n);

        if (r < 0)
                r = lookup_birth(h, tid, born_ns, &c, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < HEIRS_MAX_EVENTS; i++)
                ret->counts[i] = sum_of(&c, &n, i) - c.base[i];
        ret->enabled_ns = n.enabled_ns + (c.flags & HEIRS_LOCAL ? 0 : n.local_enabled_ns);
        ret->running_ns = n.running_ns + (c.flags & HEIRS_LOCAL ? 0 : n.local_running_ns);
        ret->born_ns = n.born_ns;
        ret->final = n.state & HEIRS_FINAL;
        ret->exiting = n.state & HEIRS_EXITING;
        ret->read_errors = n.read_errors;
        ret->slices = n.slices;
        memcpy(ret->comm, n.comm, sizeof(ret->comm));
        ret->comm[sizeof(ret->comm) - 1] = '\0';
        return 0;
}

bool heirs_wait_final(Heirs *h, pid_t tid, uint64_t born_ns, uint64_t timeout_ns) {
        const struct timespec pause = { 0, 20 * 1000 };
        uint64_t waited = 0;

        for (;;) {
                struct heirs_control c;
                struct heirs_counts n;

                if (lookup_birth(h, tid, born_ns, &c, &n) < 0)
                        return false;
                if (n.state & HEIRS_FINAL)
                        return true;
                if (waited >= timeout_ns)
                        return false;
                (void) nanosleep(&pause, NULL);
                waited += 20 * 1000;
        }
}

/* Stat k summed over the CPUs. */
