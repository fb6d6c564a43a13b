/* event-group.c: see event-group.h. Nothing here talks to pmapid: pm_init already did. */
#include <limits.h>
#include <stdio.h>

#include "event-group.h"
#include "prog-text.h"
#include "tool-usage.h"

bool event_group_parse_id(const char *s, int *ret) {
        unsigned v;

        if (!tool_parse_uint(s, 0, INT_MAX, &v))
                return false;
        *ret = (int) v;
        return true;
}

const pm_groups_t *event_group_find(const pm_groups_info_t *groups, int id) {
        for (int i = 0; groups->event_groups && i < groups->maxgroups; i++)
                if (groups->event_groups[i].group_id == id)
                        return &groups->event_groups[i];
        return NULL;
}

void event_group_events(const pm_groups_t *g, int n_counters, int ret_events[MAX_COUNTERS]) {
        for (int c = 0; c < MAX_COUNTERS; c++)
                ret_events[c] = g->events && c < n_counters ? g->events[c] : COUNT_NOTHING;
}

const char *event_group_event_name(const pm_info_t *info, const pm_groups_t *g, int counter, char buf[static 16]) {
        const pm_events_t *e;

        if (!g->events || counter < 0 || counter >= info->maxpmcs || counter >= MAX_COUNTERS ||
            g->events[counter] == COUNT_NOTHING)
                return NULL;
        e = prog_text_event_by_id(info, counter, g->events[counter]);
        if (e && e->short_name)
                return e->short_name;
        snprintf(buf, 16, "%d", g->events[counter]);
        return buf;
}

char *event_group_format_events(const pm_info_t *info, const pm_groups_t *g, char *buf, size_t size) {
        int last = -1;
        size_t o = 0;

        if (size == 0)
                return buf;
        buf[0] = '\0';
        for (int c = 0; c < info->maxpmcs && c < MAX_COUNTERS; c++)
                if (g->events && g->events[c] != COUNT_NOTHING)
                        last = c;
        for (int c = 0; c <= last && o + 1 < size; c++) {
                char id[16];
                const char *name = event_group_event_name(info, g, c, id);
                int n = snprintf(buf + o, size - o, "%s%s", c > 0 ? "," : "", name ?: "-");

                if (n < 0)
                        break;
                o = o + (size_t) n < size ? o + (size_t) n : size - 1;
        }
        return buf;
}

void event_group_program(const pm_groups_t *g, int mode, pm_prog_t *ret) {
        *ret = (pm_prog_t) { .mode.w = mode };
        ret->mode.b.is_group = 1;
        ret->events[0] = g->group_id;
        for (int c = 1; c < MAX_COUNTERS; c++)
                ret->events[c] = COUNT_NOTHING;
}
