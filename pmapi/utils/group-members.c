/* group-members.c: see group-members.h. pmapid answers at most 1024 rows a call, so that a large
 * group does not hold up its other callers; the rows are copied out of the replies. pmcount asks
 * once the command's threads are gone, so no row moves between pages; pmctl asks a live group,
 * whose rows may move between two pages while threads exit (a row can then be seen twice or not
 * at all: the totals come from the group's own read, never from the rows). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "macro.h"
#include "group-members.h"
#include "tool-bus.h"

/* One (iisbax) into row; 1, 0 at the end of the array, or -errno. */
static int read_row(sd_bus_message *reply, MemberRow *row) {
        const int64_t *counts;
        const char *comm;
        size_t n_bytes;
        int alive, r;

        r = sd_bus_message_enter_container(reply, 'r', "iisbax");
        if (r <= 0)
                return r;
        r = sd_bus_message_read(reply, "iisb", &row->pid, &row->tid, &comm, &alive);
        if (r < 0)
                return r;
        r = sd_bus_message_read_array(reply, 'x', (const void **) &counts, &n_bytes);
        if (r < 0)
                return r;
        if (n_bytes != sizeof(row->counts))
                return -EBADMSG;
        memcpy(row->counts, counts, sizeof(row->counts));
        (void) snprintf(row->comm, sizeof(row->comm), "%s", comm);
        row->alive = alive;
        r = sd_bus_message_exit_container(reply);
        return r < 0 ? r : 1;
}

/* Appends a reply's rows to m. */
static int read_rows(sd_bus_message *reply, pid_t self_pid, pid_t self_tid, bool with_target, MemberRows *m) {
        MemberRow row;
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "(iisbax)");
        if (r < 0)
                return r;
        while ((r = read_row(reply, &row)) > 0) {
                if (!with_target && row.pid == self_pid && row.tid == self_tid)
                        continue;
                if (m->n_rows == m->n_allocated) {
                        size_t n = m->n_allocated ? 2 * m->n_allocated : 64;
                        MemberRow *l = reallocarray(m->rows, n, sizeof(MemberRow));
                        if (!l)
                                return -ENOMEM;
                        m->rows = l;
                        m->n_allocated = n;
                }
                m->rows[m->n_rows++] = row;
        }
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(reply);
        if (r < 0)
                return r;
        return sd_bus_message_read(reply, "u", &m->n_dropped);
}

#define PAGE_ROWS 1024

static int row_compare(const void *a, const void *b) {
        const MemberRow *x = a, *y = b;

        if (x->pid != y->pid)
                return x->pid < y->pid ? -1 : 1;
        return (x->tid > y->tid) - (x->tid < y->tid);
}

int member_rows_fetch(pid_t pid, pid_t tid, bool with_target, MemberRows *ret) {
        MemberRows m = {};
        uint32_t total = 0;
        int r;

        for (uint32_t first = 0; first == 0 || first < total; first += PAGE_ROWS) {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;

                r = tool_bus_call("GetGroupMembersPage", &reply, "iiuu", (int32_t) pid, (int32_t) tid, first,
                                  (uint32_t) PAGE_ROWS);
                if (r != 0) {
                        member_rows_done(&m);
                        return r;
                }
                r = read_rows(reply, pid, tid, with_target, &m);
                if (r >= 0)
                        r = sd_bus_message_read(reply, "uu", &total, &m.n_missed);
                if (r < 0) {
                        member_rows_done(&m);
                        return r == -ENOMEM ? PM_ENOMEM : PM_EDAEMON;
                }
        }
        qsort(m.rows, m.n_rows, sizeof(MemberRow), row_compare);
        *ret = m;
        return 0;
}

void member_rows_done(MemberRows *m) {
        free(m->rows);
        *m = (MemberRows) {};
}
