/* missed.c: see missed.h. */
#include <stdlib.h>

#include "context.h"
#include "macro.h"
#include "missed.h"
#include "thread-pin.h"

typedef struct Miss {
        pid_t pid;
        uint64_t thread_ino;
        unsigned group_id;
        int error;
} Miss;

struct MissedThreads {
        GHashTable *by_tid;             /* tid -> Miss* */
};

MissedThreads *missed_new(void) {
        MissedThreads *t = g_new0(MissedThreads, 1);

        t->by_tid = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
        return t;
}

MissedThreads *missed_free(MissedThreads *t) {
        if (t) {
                g_hash_table_destroy(t->by_tid);
                g_free(t);
        }
        return NULL;
}

bool missed_add(MissedThreads *t, pid_t pid, pid_t tid, int pidfd, unsigned group_id, int error) {
        uint64_t ino = pidfd >= 0 ? thread_pin_id(pidfd) : 0;
        Miss *m = g_hash_table_lookup(t->by_tid, GINT_TO_POINTER(tid));

        if (m && m->pid == pid && m->thread_ino == ino && m->group_id == group_id)
                return false;
        if (!m && g_hash_table_size(t->by_tid) >= MISSED_MAX)
                return true;
        m = g_new(Miss, 1);
        *m = (Miss) { pid, ino, group_id, error };
        g_hash_table_replace(t->by_tid, GINT_TO_POINTER(tid), m);
        return true;
}

bool missed_find(MissedThreads *t, pid_t pid, pid_t tid, unsigned *ret_group, int *ret_error) {
        Miss *m = g_hash_table_lookup(t->by_tid, GINT_TO_POINTER(tid));
        _cleanup_close_ int fd = -1;

        if (!m || m->pid != pid || m->thread_ino == 0)
                return false;
        fd = thread_pin_open(tid);
        if (fd < 0 || thread_pin_id(fd) != m->thread_ino)
                return false;           /* another thread has the tid now */
        *ret_group = m->group_id;
        *ret_error = m->error;
        return true;
}

void missed_forget_tid(MissedThreads *t, pid_t pid, pid_t tid) {
        Miss *m = g_hash_table_lookup(t->by_tid, GINT_TO_POINTER(tid));

        if (m && m->pid == pid)
                g_hash_table_remove(t->by_tid, GINT_TO_POINTER(tid));
}

static gboolean of_group(gpointer key, gpointer value, gpointer group_id) {
        (void) key;
        return ((Miss *) value)->group_id == GPOINTER_TO_UINT(group_id);
}

void missed_forget_group(MissedThreads *t, unsigned group_id) {
        if (g_hash_table_size(t->by_tid) > 0)
                g_hash_table_foreach_remove(t->by_tid, of_group, GUINT_TO_POINTER(group_id));
}

size_t missed_count(const MissedThreads *t) {
        return g_hash_table_size(t->by_tid);
}
