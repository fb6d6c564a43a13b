/* pmctl-members.c: `pmctl members PID [TID]`, the members of a thread's counting group with each
 * one's counts (pmapid's member rows, group-members.c), under the group's own state: how many
 * members it has, whether its totals are consistent, and whether threads ran uncounted (partial).
 * A table for people, one JSON document for programs. The rows come from a call of their own after
 * the group's read: the totals are the read's, never the rows' sum. */
#include <stdio.h>

#include "group-members.h"
#include "json-writer.h"
#include "macro.h"
#include "pmctl.h"
#include "prog-text.h"
#include "text-table.h"
#include "tool-usage.h"

typedef struct Members {
        pm_prog_t prog;                 /* names the counters */
        pm_data_t data;                 /* the group's read: totals and state */
        unsigned long long ns;
        MemberRows rows;
} Members;

static bool partial(const Members *m) {
        return m->data.ginfo.flags.b.partial || m->rows.n_missed > 0;
}

/* The event's short name for a header, or its id when the catalog does not have it. */
static const char *counter_name(const pm_info_t *info, const pm_prog_t *prog, int c, char buf[static 16]) {
        const pm_events_t *e = prog_text_event_by_id(info, c, prog->events[c]);

        if (e && e->short_name)
                return e->short_name;
        (void) snprintf(buf, 16, "%d", prog->events[c]);
        return buf;
}

static int members_text(const Options *o, const pm_info_t *info, const Members *m) {
        _cleanup_(text_table_freep) TextTable *t = NULL;
        const pm_ginfo_t *g = &m->data.ginfo;
        size_t n_columns = 4;
        char id[16];
        int r;

        for (int c = 0; c < MAX_COUNTERS; c++)
                n_columns += m->prog.events[c] != COUNT_NOTHING;
        r = text_table_new(n_columns, &t);
        if (r < 0)
                return r;
        text_table_align_right(t, 0);
        text_table_align_right(t, 1);
        for (size_t c = 4; c < n_columns; c++)
                text_table_align_right(t, c);
        text_table_add(t, "PID");
        text_table_add(t, "TID");
        text_table_add(t, "COMM");
        text_table_add(t, "STATE");
        for (int c = 0; c < MAX_COUNTERS; c++)
                if (m->prog.events[c] != COUNT_NOTHING)
                        text_table_add(t, "%s", counter_name(info, &m->prog, c, id));
        for (size_t i = 0; i < m->rows.n_rows; i++) {
                const MemberRow *row = &m->rows.rows[i];

                text_table_add(t, "%d", (int) row->pid);
                text_table_add(t, "%d", (int) row->tid);
                text_table_add(t, "%s", row->comm);
                text_table_add(t, "%s", row->alive ? "alive" : "exited");
                for (int c = 0; c < MAX_COUNTERS; c++) {
                        char value[THOUSANDS_MAX];

                        if (m->prog.events[c] != COUNT_NOTHING)
                                text_table_add(t, "%s", format_thousands(row->counts[c], value));
                }
        }

        pmctl_print_target(o);
        fprintf(o->out, ": %d member%s, %s, %s group, %zu row%s", g->members, g->members == 1 ? "" : "s",
                g->flags.b.consistent ? "consistent" : "inconsistent",
                g->flags.b.process ? "process" : "descendant", m->rows.n_rows, m->rows.n_rows == 1 ? "" : "s");
        if (partial(m))
                fprintf(o->out, ", partial: %u thread%s ran uncounted", m->rows.n_missed,
                        m->rows.n_missed == 1 ? "" : "s");
        if (m->rows.n_dropped > 0)
                fprintf(o->out, ", %u exited member%s without a row", m->rows.n_dropped,
                        m->rows.n_dropped == 1 ? "" : "s");
        fputc('\n', o->out);
        return text_table_print(t, o->out);
}

static int members_json(const Options *o, const pm_info_t *info, const Members *m) {
        const pm_ginfo_t *g = &m->data.ginfo;
        JsonWriter w;

        json_writer_init(&w, o->out);
        json_open_object(&w, NULL);
        pmctl_json_target(&w, o);
        json_uint(&w, "time_ns", m->ns);
        json_int(&w, "members", g->members);
        json_bool(&w, "consistent", g->flags.b.consistent);
        json_bool(&w, "process", g->flags.b.process);
        json_bool(&w, "partial", partial(m));
        json_int(&w, "threads_missed", m->rows.n_missed);
        json_int(&w, "rows_dropped", m->rows.n_dropped);
        json_open_array(&w, "counters");
        for (int c = 0; c < MAX_COUNTERS; c++) {
                const pm_events_t *e = prog_text_event_by_id(info, c, m->prog.events[c]);

                if (m->prog.events[c] == COUNT_NOTHING)
                        continue;
                json_open_object(&w, NULL);
                json_int(&w, "counter", c);
                json_int(&w, "id", m->prog.events[c]);
                json_string(&w, "name", e ? e->short_name : NULL);
                json_int(&w, "total", m->data.accu[c]);
                json_close_object(&w);
        }
        json_close_array(&w);
        json_open_array(&w, "rows");
        for (size_t i = 0; i < m->rows.n_rows; i++) {
                const MemberRow *row = &m->rows.rows[i];

                json_open_object(&w, NULL);
                json_int(&w, "pid", row->pid);
                json_int(&w, "tid", row->tid);
                json_string(&w, "comm", row->comm);
                json_bool(&w, "alive", row->alive);
                json_open_array(&w, "counts");          /* in the order of "counters" */
                for (int c = 0; c < MAX_COUNTERS; c++)
                        if (m->prog.events[c] != COUNT_NOTHING)
                                json_int(&w, NULL, row->counts[c]);
                json_close_array(&w);
                json_close_object(&w);
        }
        json_close_array(&w);
        json_close_object(&w);
        return json_writer_finish(&w);
}

int pmctl_show_members(const Options *o, const pm_info_t *info) {
        Members m = {};
        bool incomplete;
        int r;

        r = pmctl_get_program(o, &m.prog);
        if (r == 0)
                r = pmctl_read(o, &m.data, &m.ns);
        if (r == 0)
                r = member_rows_fetch(o->pid, o->tid, /* with_target= */ true, &m.rows);
        if (r != 0)
                return pmctl_fail(o, r);
        r = o->json ? members_json(o, info, &m) : members_text(o, info, &m);
        incomplete = partial(&m);
        member_rows_done(&m.rows);
        if (r < 0)
                return pmctl_fail_output(o, r);
        return incomplete ? TOOL_EXIT_INCOMPLETE : 0;
}
