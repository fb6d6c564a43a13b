/* handed.c: see handed.h. */
#include <errno.h>
#include <glib.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "clock.h"
#include "handed.h"
#include "thread-pin.h"

typedef struct HandedThread {
        uid_t uid;
        uint64_t thread_ino;
        unsigned n;
} HandedThread;

struct HandedLedger {
        GHashTable *by_tid;             /* tid -> HandedThread*, owned */
        GHashTable *per_uid;            /* uid -> handings outstanding */
        GHashTable *swept_at;           /* uid -> CLOCK_MONOTONIC second of its last sweep */
};

/* A user at its budget makes pmapid open a pin per thread it holds handings for: at most once a
 * second, so that asking in a loop costs pmapid no more than a refusal. Exits the fork watch reports
 * free their charges at once (handed_ledger_thread_exited). */
#define HANDED_SWEEP_INTERVAL_S 1

HandedLedger *handed_ledger_new(void) {
        HandedLedger *l = calloc(1, sizeof(*l));

        if (!l)
                return NULL;
        l->by_tid = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, free);
        l->per_uid = g_hash_table_new(g_direct_hash, g_direct_equal);
        l->swept_at = g_hash_table_new(g_direct_hash, g_direct_equal);
        return l;
}

HandedLedger *handed_ledger_free(HandedLedger *l) {
        if (!l)
                return NULL;
        g_hash_table_destroy(l->by_tid);
        g_hash_table_destroy(l->per_uid);
        g_hash_table_destroy(l->swept_at);
        free(l);
        return NULL;
}

GHashTable *handed_ledger_per_uid(HandedLedger *l) {
        return l->per_uid;
}

unsigned handed_ledger_held(HandedLedger *l, uid_t uid) {
        return GPOINTER_TO_UINT(g_hash_table_lookup(l->per_uid, GUINT_TO_POINTER(uid)));
}

static void uid_add(HandedLedger *l, uid_t uid, int delta) {
        unsigned n = handed_ledger_held(l, uid) + delta;

        if (n == 0)
                g_hash_table_remove(l->per_uid, GUINT_TO_POINTER(uid));
        else
                g_hash_table_insert(l->per_uid, GUINT_TO_POINTER(uid), GUINT_TO_POINTER(n));
}

void handed_ledger_uncharge(HandedLedger *l, pid_t tid) {
        HandedThread *t = g_hash_table_lookup(l->by_tid, GINT_TO_POINTER(tid));

        if (!t || t->n == 0)
                return;
        uid_add(l, t->uid, -1);
        if (--t->n == 0)
                g_hash_table_remove(l->by_tid, GINT_TO_POINTER(tid));
}

void handed_ledger_thread_exited(HandedLedger *l, pid_t tid) {
        HandedThread *t = g_hash_table_lookup(l->by_tid, GINT_TO_POINTER(tid));

        if (!t)
                return;
        uid_add(l, t->uid, -(int) t->n);
        g_hash_table_remove(l->by_tid, GINT_TO_POINTER(tid));
}

/* Whether the thread a record was made for still runs: a new pin by tid names the same thread. */
static bool still_runs(pid_t tid, const HandedThread *t) {
        int pin = thread_pin_open(tid);
        bool alive;

        if (pin < 0)
                return errno != ESRCH;  /* out of fds says nothing about the thread */
        alive = thread_pin_alive(pin) && (t->thread_ino == 0 || thread_pin_id(pin) == t->thread_ino);
        close(pin);
        return alive;
}

static void forget_exited(HandedLedger *l, uid_t uid) {
        GHashTableIter it;
        gpointer key, value;
        guint now = (guint) (now_monotonic_ns() / 1000000000ull) + 1;  /* 0: never swept */
        guint last = GPOINTER_TO_UINT(g_hash_table_lookup(l->swept_at, GUINT_TO_POINTER(uid)));

        if (last != 0 && now - last < HANDED_SWEEP_INTERVAL_S)
                return;
        g_hash_table_insert(l->swept_at, GUINT_TO_POINTER(uid), GUINT_TO_POINTER(now));

        g_hash_table_iter_init(&it, l->by_tid);
        while (g_hash_table_iter_next(&it, &key, &value)) {
                HandedThread *t = value;
                if (t->uid != uid || still_runs(GPOINTER_TO_INT(key), t))
                        continue;
                uid_add(l, uid, -(int) t->n);
                g_hash_table_iter_remove(&it);
        }
}

int handed_ledger_charge(HandedLedger *l, uid_t uid, pid_t tid, uint64_t thread_ino, unsigned budget) {
        HandedThread *t = g_hash_table_lookup(l->by_tid, GINT_TO_POINTER(tid));

        if (handed_ledger_held(l, uid) >= budget) {
                forget_exited(l, uid);
                t = g_hash_table_lookup(l->by_tid, GINT_TO_POINTER(tid));
                if (handed_ledger_held(l, uid) >= budget)
                        return -EDQUOT;
        }
        /* A record of another thread that had this tid: that thread is gone. */
        if (t && t->thread_ino != thread_ino) {
                handed_ledger_thread_exited(l, tid);
                t = NULL;
        }
        /* The same thread under another owner (its process changed user): the fds are the new
         * owner's to hold, and so is the charge; nothing is forgotten. */
        if (t && t->uid != uid) {
                uid_add(l, t->uid, -(int) t->n);
                uid_add(l, uid, (int) t->n);
                t->uid = uid;
        }
        if (!t) {
                t = calloc(1, sizeof(*t));
                if (!t)
                        return -ENOMEM;
                *t = (HandedThread) { .uid = uid, .thread_ino = thread_ino };
                g_hash_table_insert(l->by_tid, GINT_TO_POINTER(tid), t);
        }
        t->n++;
        uid_add(l, uid, +1);
        return 0;
}
