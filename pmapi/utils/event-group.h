/* event-group.h: the predefined event groups that pm_init(filter | PM_GET_GROUPS) returns, as the
 * tools use them: pmlist -g lists them, pmcount -g and pmstat -g count one (mode.b.is_group, the
 * group's id in events[0]). A group's events are ids per counter in pm_init's catalog, named the
 * way every other event is named (prog-text.h). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "pmapi.h"

/* -g ID: a group id, a decimal number from 0. False for anything else. */
bool event_group_parse_id(const char *s, int *ret);
/* The group with this id, or NULL. */
const pm_groups_t *event_group_find(const pm_groups_info_t *groups, int id);
/* What the group counts on each counter: its events, COUNT_NOTHING where it leaves one idle (and
 * beyond n_counters, pm_init's maxpmcs). */
void event_group_events(const pm_groups_t *g, int n_counters, int ret_events[MAX_COUNTERS]);
/* The name of the group's event on counter c: its short name in info's list for that counter, or
 * its id as text in buf when the catalog does not have it; NULL for an idle counter. */
const char *event_group_event_name(const pm_info_t *info, const pm_groups_t *g, int counter, char buf[static 16]);
/* The group's events as -e takes them ("PM_PAGE_FLT,PM_MINOR_FLT", '-' for an idle counter, none
 * after the last used one), cut to size. */
char *event_group_format_events(const pm_info_t *info, const pm_groups_t *g, char *buf, size_t size);
/* A program that counts the group: mode, is_group set, events[0] the group's id, the others
 * COUNT_NOTHING (libpmapi ignores them, as AIX does). */
void event_group_program(const pm_groups_t *g, int mode, pm_prog_t *ret);
