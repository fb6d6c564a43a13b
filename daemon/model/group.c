/* group.c: see group.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "group.h"
#include "macro.h"

/* Over every group of the process (one pmapid, one manager): in all, and per owner uid. */
static size_t n_records_total;
static GHashTable *records_by_uid;      /* uid -> count, while any */

size_t group_n_records_total(void) {
        return n_records_total;
}

size_t group_n_records_of_uid(uid_t uid) {
        return records_by_uid ? GPOINTER_TO_SIZE(g_hash_table_lookup(records_by_uid, GUINT_TO_POINTER(uid))) : 0;
}

static void count_records(uid_t uid, ssize_t delta) {
        size_t n = group_n_records_of_uid(uid) + (size_t) delta;

        n_records_total += (size_t) delta;
        if (!records_by_uid)
                records_by_uid = g_hash_table_new(g_direct_hash, g_direct_equal);
        if (n > 0)
                g_hash_table_insert(records_by_uid, GUINT_TO_POINTER(uid), GSIZE_TO_POINTER(n));
        else
                g_hash_table_remove(records_by_uid, GUINT_TO_POINTER(uid));
        if (g_hash_table_size(records_by_uid) == 0)
                records_by_uid = (g_hash_table_destroy(records_by_uid), NULL);
}

int group_new(unsigned id, pid_t pid, uid_t owner_uid, const Program *program, bool process, Group **ret) {
        Group *g = calloc(1, sizeof(*g));

        if (!g)
                return -ENOMEM;
        g->id = id;
        g->pid = pid;
        g->owner_uid = owner_uid;
        g->program = *program;
        g->counting = program_counts_on_start(program);   /* that of the creating thread */
        g->consistent = true;
        g->process = process;
        *ret = g;
        return 0;
}

Group *group_free(Group *g) {
        if (!g)
                return NULL;
        for (size_t i = 0; i < g->n_live; i++)
                g->live[i]->group = NULL;
        free(g->live);
        if (g->n_records > 0)
                count_records(g->owner_uid, -(ssize_t) (g->n_records * group_n_sets(g)));
        for (size_t i = 0; i < g->n_records; i++)
                free(g->records[i].more_counts);
        free(g->records);
        free(g);
        return NULL;
}

size_t group_n_sets(const Group *g) {
        return program_n_sets(&g->program);
}

/* O(1): the last member takes c's slot. */
static void remove_live(Group *g, Context *c) {
        size_t i = c->group_slot;

        if (i < g->n_live && g->live[i] == c) {
                g->live[i] = g->live[--g->n_live];
                g->live[i]->group_slot = i;
        }
        c->group = NULL;
}

static int append_live(Group *g, Context *c) {
        if (g->n_live == g->n_allocated) {
                size_t n = g->n_allocated ? g->n_allocated * 2 : 8;
                Context **l = reallocarray(g->live, n, sizeof(Context *));
                if (!l)
                        return -ENOMEM;
                g->live = l;
                g->n_allocated = n;
        }
        c->group_slot = g->n_live;
        g->live[g->n_live++] = c;
        c->group = g;
        return 0;
}

int group_add(Group *g, Context *c) {
        int r = append_live(g, c);

        if (r < 0)
                return r;
        g->n_members++;
        return context_apply_state(c);
}

int group_adopt_member(Group *g, Context *c) {
        return append_live(g, c);
}

/* Room for one more record, or false when a bound (or memory) says no. */
static bool reserve_record(Group *g) {
        size_t weight = group_n_sets(g);

        if ((g->n_records + 1) * weight > GROUP_MAX_RECORDS ||
            group_n_records_of_uid(g->owner_uid) + weight > GROUP_MAX_RECORDS_PER_UID)
                return false;
        if (g->n_records == g->n_records_allocated) {
                size_t n = g->n_records_allocated ? 2 * g->n_records_allocated : 16;
                GroupMemberRecord *l = reallocarray(g->records, n, sizeof(GroupMemberRecord));
                if (!l)
                        return false;
                g->records = l;
                g->n_records_allocated = n;
        }
        return true;
}

int group_member_died(Group *g, Context *c) {
        size_t n_sets = group_n_sets(g);
        AcctVector final[PM_MX_MAX_SETS];
        int r;

        for (size_t k = 0; k < n_sets; k++) {
                r = context_read_set(c, k, final[k]);   /* a dead thread's counters keep their last values */
                if (r < 0)
                        return r;
        }
        for (size_t k = 0; k < n_sets; k++)
                acct_member_died(g->retained[k], final[k]);
        if (reserve_record(g)) {
                GroupMemberRecord rec = { .pid = c->pid, .tid = c->tid };

                memcpy(rec.comm, c->comm, sizeof(rec.comm));
                memcpy(rec.counts, final[0], sizeof(AcctVector));
                if (n_sets > 1)
                        rec.more_counts = g_memdup2(final[1], (n_sets - 1) * sizeof(AcctVector));
                g->records[g->n_records++] = rec;
                count_records(g->owner_uid, (ssize_t) n_sets);
        } else if (g->n_records_dropped < UINT32_MAX)
                g->n_records_dropped++;
        remove_live(g, c);
        return 0;
}

void group_add_dead_birth(Group *g, pid_t pid, pid_t tid, const char *comm, const AcctVector final) {
        g->n_members++;
        acct_member_died(g->retained[0], final);
        if (reserve_record(g)) {
                GroupMemberRecord rec = { .pid = pid, .tid = tid };

                if (comm)
                        (void) snprintf(rec.comm, sizeof(rec.comm), "%s", comm);
                memcpy(rec.counts, final, sizeof(AcctVector));
                g->records[g->n_records++] = rec;
                count_records(g->owner_uid, 1);
        } else if (g->n_records_dropped < UINT32_MAX)
                g->n_records_dropped++;
}

void group_adopt_record(Group *g, const GroupMemberRecord *rec) {
        if (reserve_record(g)) {
                g->records[g->n_records++] = *rec;
                count_records(g->owner_uid, (ssize_t) group_n_sets(g));
                return;
        }
        free(rec->more_counts);
        if (g->n_records_dropped < UINT32_MAX)
                g->n_records_dropped++;
}

void group_member_left(Group *g, Context *c) {
        remove_live(g, c);
        g->n_members--;
}

static int apply_all(Group *g) {
        int r = 0;

        for (size_t i = 0; i < g->n_live; i++) {
                int k = context_apply_state(g->live[i]);
                if (k < 0 && r == 0)
                        r = k;
        }
        return r;
}

int group_start(Group *g, Context *caller) {
        bool old = caller->counting;

        g->counting = true;
        caller->counting = true;
        context_record_counting(caller, old);
        return apply_all(g);
}

int group_stop(Group *g, Context *caller) {
        bool old = caller->counting;

        g->counting = false;
        caller->counting = false;
        context_record_counting(caller, old);
        return apply_all(g);
}

/* From this many members on, born threads are read from one copy of the kernel's maps: cheaper than
 * two lookups each past a few dozen, dearer below (the copy holds every user's threads). */
#define BATCH_MEMBERS 64

static int read_live(Group *g, size_t set, Context *except, AcctVector **ret, size_t *ret_n) {
        AcctVector *v = calloc(g->n_live + 1, sizeof(AcctVector));
        bool batch = g->n_live >= BATCH_MEMBERS;
        size_t n = 0;
        int r = 0;

        if (!v)
                return -ENOMEM;
        counter_bpf_reads_begin(batch);
        for (size_t i = 0; r >= 0 && i < g->n_live; i++)
                if (g->live[i] != except)
                        r = context_read_set(g->live[i], set, v[n++]);
        counter_bpf_reads_end();
        if (r < 0) {
                free(v);
                return r;
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

int group_reset(Group *g, Context *caller) {
        size_t n_sets = group_n_sets(g);
        AcctVector *others[PM_MX_MAX_SETS] = {};
        size_t n = 0;
        int r = 0;

        for (size_t k = 0; r >= 0 && k < n_sets; k++)
                r = read_live(g, k, caller, &others[k], &n);
        if (r >= 0)
                r = context_reset(caller);
        if (r >= 0) {
                for (size_t k = 0; k < n_sets; k++)
                        acct_group_reset(g->retained[k], others[k], n);
                g->consistent = acct_consistent_after_reset(g->n_members) && g->n_missed == 0;
        }
        for (size_t k = 0; k < n_sets; k++)
                free(others[k]);
        return r < 0 ? r : 0;
}

int group_read_set(Group *g, size_t set, AcctVector ret) {
        _cleanup_free_ AcctVector *live = NULL;
        size_t n;
        int r;

        if (set >= group_n_sets(g))
                return -EINVAL;
        r = read_live(g, set, NULL, &live, &n);
        if (r < 0)
                return r;
        acct_group_value(g->retained[set], live, n, ret);
        return 0;
}

uint64_t group_longest_enabled(Group *g) {
        uint64_t longest = 0;

        for (size_t i = 0; i < g->n_live; i++) {
                AcctVector v;
                if (context_read_set(g->live[i], 0, v) >= 0 && v[ACCT_ENABLED] > 0)
                        longest = longest > (uint64_t) v[ACCT_ENABLED] ? longest : (uint64_t) v[ACCT_ENABLED];
        }
        return longest;
}

int group_read(Group *g, AcctVector ret) {
        return group_read_set(g, 0, ret);
}

Program group_get_program(const Group *g) {
        Program p = program_with_count(&g->program, g->counting);

        for (size_t k = 0; k < group_n_sets(g); k++)
                p.sets[k].mode = g->process ? (p.sets[k].mode | PM_PROCESS) : (p.sets[k].mode & ~(uint32_t) PM_PROCESS);
        return p;
}

bool group_missed(Group *g, int error) {
        bool first = g->n_missed == 0;

        if (g->n_missed < UINT32_MAX)
                g->n_missed++;
        if (first)
                g->missed_error = error;
        g->consistent = false;          /* for an AIX program, the only flag it reads */
        return first;
}

uint32_t group_info_flags(const Group *g) {
        return (g->consistent ? 0x1u : 0) | (g->process ? 0x2u : 0) | (g->n_missed ? 0x8u : 0);
}
