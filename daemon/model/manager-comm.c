/* manager-comm.c: see manager-comm.h. The handler only renames: it looks contexts up in the table
 * as they are (not manager_lookup(), which may release a dead one), so it is safe inside a thread's
 * exit handler. */
#include "comm-text.h"
#include "log.h"
#include "manager-comm.h"

static void on_comm(pid_t pid, pid_t tid, const char *comm, uint64_t time_ns, void *userdata) {
        Manager *m = userdata;
        Context *c = g_hash_table_lookup(m->threads, GINT_TO_POINTER(tid));
        char text[COMM_UTF8_MAX];

        (void) time_ns;
        /* A record of an older thread that had this tid names another process. */
        if (!c || c->pid != pid)
                return;
        log_debug("Thread %d of pid %d is now called '%s'.", (int) tid, (int) pid, comm_to_log(comm, text));
        context_set_comm(c, comm);
}

void manager_watch_comm(Manager *m) {
        if (m->fork_watch)
                fork_watch_set_comm_handler(m->fork_watch, on_comm, m);
}

void manager_flush_comm(Manager *m) {
        if (m->fork_watch)
                fork_watch_flush_comm(m->fork_watch);
}
