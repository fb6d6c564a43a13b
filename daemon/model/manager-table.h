/* manager-table.h: what the table of live contexts (manager-table.c) lends the files that add to
 * it (manager-attach.c) and make it (manager.c), beside manager.h. */
#pragma once

#include "manager.h"

unsigned manager_uid_count(Manager *m, uid_t uid);
void manager_uid_count_add(Manager *m, uid_t uid, int delta);
/* The fds a context holds: one per counter, its pidfd if it keeps one, the private leader and the
 * local page of a thread that reads in process. */
unsigned manager_context_fds(const Context *c);
/* Thread exits come from the fork watch's EXIT records: contexts keep no fd for their thread. */
bool manager_exits_from_watch(const Manager *m);
/* Whether a context keeps its thread's pin. */
bool manager_keeps_pin(const Manager *m);
/* The thread is gone; its counters keep their final values, which its group keeps. */
void manager_context_died(Manager *m, Context *c);
/* sd-event's callback on a context's pin: its thread exited. */
int manager_on_thread_exit(sd_event_source *s, int fd, uint32_t revents, void *userdata);
/* exit-recheck's callback: whether tid, attached at attached_ns, is still to be looked at again. */
bool manager_recheck_exit(pid_t tid, uint64_t attached_ns, void *userdata);
