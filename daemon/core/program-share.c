/* program-share.c: programs interned by content (program-share.h). */
#include <glib.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "program-share.h"

typedef struct Share {
        Program program;                /* first: a shared Program * is a Share * */
        ProgramEncoding encoding;
        const EventTable *events;
        unsigned n_ref;
} Share;

static GHashTable *shares;              /* Share * → itself, hashed by program and table */

/* The program with its padding zeroed, so that equal programs compare equal byte for byte. */
static Program normalized(const Program *p) {
        Program n;

        memset(&n, 0, sizeof(n));
        memcpy(n.sets, p->sets, sizeof(n.sets));
        n.n_sets = p->n_sets;
        n.slice_ms = p->slice_ms;
        n.multi_mode = p->multi_mode;
        return n;
}

static guint share_hash(gconstpointer key) {
        const Share *s = key;
        const unsigned char *b = (const unsigned char *) &s->program;
        uint32_t h = 2166136261u ^ (uint32_t) (uintptr_t) s->events;      /* FNV-1a */

        for (size_t i = 0; i < sizeof(s->program); i++)
                h = (h ^ b[i]) * 16777619u;
        return h;
}

static gboolean share_equal(gconstpointer a, gconstpointer b) {
        const Share *x = a, *y = b;

        return x->events == y->events && memcmp(&x->program, &y->program, sizeof(x->program)) == 0;
}

static Share *share_of(const Program *shared) {
        return (Share *) ((char *) shared - offsetof(Share, program));
}

const Program *program_share(const Program *p, const EventTable *t) {
        Share key = { .program = normalized(p), .events = t };
        Share *s;

        if (!shares) {
                shares = g_hash_table_new(share_hash, share_equal);
                if (!shares)
                        return NULL;
        }
        s = g_hash_table_lookup(shares, &key);
        if (s) {
                s->n_ref++;
                return &s->program;
        }
        s = malloc(sizeof(*s));
        if (!s)
                return NULL;
        *s = key;
        s->n_ref = 1;
        program_encode(&s->program, t, &s->encoding);
        g_hash_table_add(shares, s);
        return &s->program;
}

const ProgramEncoding *program_share_encoding(const Program *shared) {
        return &share_of(shared)->encoding;
}

void program_unshare(const Program *shared) {
        Share *s;

        if (!shared)
                return;
        s = share_of(shared);
        if (--s->n_ref > 0)
                return;
        g_hash_table_remove(shares, s);
        free(s);
        if (g_hash_table_size(shares) == 0) {
                g_hash_table_destroy(shares);   /* nothing left behind for leak checkers */
                shares = NULL;
        }
}

size_t program_share_count(void) {
        return shares ? g_hash_table_size(shares) : 0;
}
