/* heirs-snapshot.c: see heirs-snapshot.h. */
#include <bpf/bpf.h>
#include <errno.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "heirs-snapshot.h"

#define BATCH 8192

/* One map's copy: its keys (tids) and values, and each tid's index + 1. */
typedef struct MapCopy {
        __u32 *keys;
        void *values;
        size_t n;
        GHashTable *index;
} MapCopy;

struct HeirsSnapshot {
        MapCopy controls;
        MapCopy counts;
};

static void map_copy_done(MapCopy *m) {
        free(m->keys);
        free(m->values);
        if (m->index)
                g_hash_table_destroy(m->index);
}

static int map_copy(int fd, size_t value_size, MapCopy *m) {
        size_t cap = 0;
        __u32 batch = 0;
        bool first = true;

        for (;;) {
                __u32 count = BATCH;
                int r;

                if (m->n + BATCH > cap) {
                        void *k, *v;

                        cap = (m->n + BATCH) * 2;
                        k = realloc(m->keys, cap * sizeof(__u32));
                        if (k)
                                m->keys = k;
                        v = realloc(m->values, cap * value_size);
                        if (v)
                                m->values = v;
                        if (!k || !v)
                                return -ENOMEM;
                }
                r = bpf_map_lookup_batch(fd, first ? NULL : &batch, &batch, m->keys + m->n,
                                         (char *) m->values + m->n * value_size, &count, NULL);
                first = false;
                if (r < 0 && errno != ENOENT)
                        return errno == EINVAL || errno == ENOTSUP || errno == EOPNOTSUPP ? -EOPNOTSUPP : -errno;
                m->n += count;
                if (r < 0)
                        break;          /* ENOENT: the last batch */
        }
        m->index = g_hash_table_new(g_direct_hash, g_direct_equal);
        for (size_t i = 0; i < m->n; i++)
                g_hash_table_insert(m->index, GUINT_TO_POINTER(m->keys[i]), GSIZE_TO_POINTER(i + 1));
        return 0;
}

static const void *map_copy_find(const MapCopy *m, __u32 key, size_t value_size) {
        size_t i = GPOINTER_TO_SIZE(g_hash_table_lookup(m->index, GUINT_TO_POINTER(key)));

        return i ? (const char *) m->values + (i - 1) * value_size : NULL;
}

int heirs_snapshot_new(int controls_fd, int counts_fd, HeirsSnapshot **ret) {
        HeirsSnapshot *s = calloc(1, sizeof(*s));
        int r;

        if (!s)
                return -ENOMEM;
        /* Counts first: a control found in the copy then always has counts as new as its own. */
        r = map_copy(counts_fd, sizeof(struct heirs_counts), &s->counts);
        if (r >= 0)
                r = map_copy(controls_fd, sizeof(struct heirs_control), &s->controls);
        if (r < 0) {
                heirs_snapshot_free(s);
                return r;
        }
        *ret = s;
        return 0;
}

HeirsSnapshot *heirs_snapshot_free(HeirsSnapshot *s) {
        if (s) {
                map_copy_done(&s->controls);
                map_copy_done(&s->counts);
                free(s);
        }
        return NULL;
}

int heirs_snapshot_find(const HeirsSnapshot *s, pid_t tid, struct heirs_control *c, struct heirs_counts *n) {
        const struct heirs_control *pc = map_copy_find(&s->controls, (__u32) tid, sizeof(*c));
        const struct heirs_counts *pn = map_copy_find(&s->counts, (__u32) tid, sizeof(*n));

        if (!pc || !pn)
                return -ENOENT;
        *c = *pc;
        *n = *pn;
        return 0;
}
