/* fork-watch-ring.c: reads the fork watch's rings (fork-watch-ring.h) into its batch. */
#include <inttypes.h>
#include <string.h>

#include "fork-watch-ring.h"
#include "log.h"
#include "macro.h"

/* Records are 8-byte aligned, so a header never wraps, but a record body may. */
static void ring_copy(const ForkWatchCpu *c, uint64_t pos, void *dst, size_t len) {
        size_t off = pos & (c->data_size - 1), first = MIN(len, c->data_size - off);

        memcpy(dst, c->data + off, first);
        memcpy((uint8_t *) dst + first, c->data, len - first);
}

static void read_comm(const ForkWatchCpu *c, uint64_t pos, const struct perf_event_header *h, WatchRecord *ret) {
        CommRecordHead head;
        size_t n = h->size - sizeof(head) - sizeof(uint64_t);  /* the name and its padding */

        ring_copy(c, pos, &head, sizeof(head));
        *ret = (WatchRecord) { .type = PERF_RECORD_COMM, .pid = head.pid, .tid = head.tid };
        ring_copy(c, pos + sizeof(head), ret->comm, MIN(n, sizeof(ret->comm) - 1));
        ret->comm[sizeof(ret->comm) - 1] = '\0';
        ring_copy(c, pos + h->size - sizeof(uint64_t), &ret->time, sizeof(ret->time));
}

/* Room for a record of any kind we ask for (the largest is COMM's): less than this left in a ring
 * and the kernel may have dropped one. */
#define RING_SLACK 128

static void cpu_read(ForkWatch *w, ForkWatchCpu *c) {
        uint64_t tail = c->meta->data_tail;     /* only we write it */

        if (tail < c->head)
                w->drained_some = true;
        if (c->head - tail + RING_SLACK > c->data_size)
                w->overflow_suspected = true;

        while (tail < c->head) {
                struct perf_event_header h;

                ring_copy(c, tail, &h, sizeof(h));
                if (h.size < sizeof(h) || h.size > c->head - tail) {
                        log_warning("Fork watch: corrupt record on CPU %u, dropping its buffer, ignoring",
                                    c->cpu);
                        tail = c->head;
                        break;
                }
                /* EXIT has FORK's layout (include/uapi/linux/perf_event.h). */
                if ((h.type == PERF_RECORD_FORK || (h.type == PERF_RECORD_EXIT && w->exit_handler)) &&
                    h.size >= sizeof(ForkRecord)) {
                        ForkRecord r;

                        ring_copy(c, tail, &r, sizeof(r));
                        g_array_append_val(w->batch, ((WatchRecord) { .time = r.time, .type = h.type,
                                                                     .pid = r.pid, .ppid = r.ppid,
                                                                     .tid = r.tid, .ptid = r.ptid }));
                } else if (h.type == PERF_RECORD_COMM &&
                           h.size >= sizeof(CommRecordHead) + 2 * sizeof(uint64_t)) {
                        WatchRecord r;

                        read_comm(c, tail, &h, &r);
                        if (w->comm_handler)
                                g_array_append_val(w->batch, r);
                } else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(LostRecord)) {
                        LostRecord r;

                        ring_copy(c, tail, &r, sizeof(r));
                        w->n_lost += r.lost;
                        w->lost_unreported += r.lost;
                        w->overflow_suspected = false;  /* the kernel told: no need to guess */
                        log_warning("Fork watch: kernel lost %" PRIu64 " records on CPU %u, ignoring",
                                    (uint64_t) r.lost, c->cpu);
                }
                tail += h.size;
        }
        /* Release: our reads of the records happen before the kernel may overwrite them. */
        __atomic_store_n(&c->meta->data_tail, tail, __ATOMIC_RELEASE);
}

static gint record_compare(gconstpointer a, gconstpointer b) {
        const WatchRecord *x = a, *y = b;

        return x->time < y->time ? -1 : x->time > y->time;
}

/* Each ring's copy is stamped as it is written: measured 0.4 us apart. */
#define COPY_SPREAD_NS 100000

static bool same_record(const WatchRecord *x, const WatchRecord *y) {
        uint64_t d = x->time > y->time ? x->time - y->time : y->time - x->time;

        return d <= COPY_SPREAD_NS && x->type == y->type && x->pid == y->pid && x->tid == y->tid &&
               x->ppid == y->ppid && x->ptid == y->ptid && strcmp(x->comm, y->comm) == 0;
}

static bool in_turn(const ForkWatch *w, uint64_t time) {
        for (unsigned i = 0; i < TURNS_KEPT; i++)
                if (time >= w->turns[i].from && time <= w->turns[i].to)
                        return true;
        return false;
}

/* While the watch turns lazy or eager, both of a CPU's rings run for a moment (set_rings): a record
 * written then is in both, and its copies may come in different drains. The records of the last
 * turns are kept, and a record of a turn seen before is dropped. */
static void drop_copies(ForkWatch *w, guint from) {
        guint kept = from;

        for (guint i = from; i < w->batch->len; i++) {
                const WatchRecord *r = &g_array_index(w->batch, WatchRecord, i);
                bool copy = false;

                if (in_turn(w, r->time)) {
                        for (unsigned k = 0; k < OVERLAP_KEPT && !copy; k++)
                                copy = same_record(&w->overlap[k], r);
                        if (!copy)
                                w->overlap[w->next_overlap++ % OVERLAP_KEPT] = *r;
                }
                if (copy)
                        continue;
                if (kept != i)
                        g_array_index(w->batch, WatchRecord, kept) = *r;
                kept++;
        }
        g_array_set_size(w->batch, kept);
}

void fork_watch_drain(ForkWatch *w) {
        guint first_new = w->batch->len;        /* what a comm-only drain left is in already */

        w->drained_some = false;
        /* Read every head before any record, so that a batch is one cut through time and sorting it
         * gives kernel order across CPUs. Acquire: the records are written before their head. */
        for (size_t i = 0; i < w->n_cpus; i++)
                w->cpus[i].head = __atomic_load_n(&w->cpus[i].meta->data_head, __ATOMIC_ACQUIRE);
        for (size_t i = 0; i < w->n_cpus; i++)
                cpu_read(w, &w->cpus[i]);
        drop_copies(w, first_new);
        g_array_sort(w->batch, record_compare);        /* stable since glib 2.32: ties keep CPU order */
}
