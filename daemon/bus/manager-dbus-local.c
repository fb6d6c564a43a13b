/* manager-dbus-local.c: the Manager's OpenLocal: a thread asks for what it needs to read its own
 * context in process (include/internal/local-page.h): a sibling perf fd of the context's counter
 * group and the context's sealed page. Only the thread's own process, only the context's owner,
 * only a context outside any group (its group sums and the AND rule stay pmapid's), and only what
 * GetData would let the caller read (kernel-mode counts under perf_event_paranoid). A thread born
 * counting in the kernel has no fd: it gets counters of its own first, and the page carries what
 * the kernel counted for it until then. Anything else is refused with NotSupported and the library
 * reads over the bus, as before; so is a user past its budget of handings outstanding (handed.h). */
#include <limits.h>
#include <string.h>

#include "local-share.h"
#include "log.h"
#include "macro.h"
#include "manager-dbus.h"

int method_open_local(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        Manager *manager = userdata;
        BusTarget t;
        Context *c;
        int page = -1, state = -1, r;

        r = manager_bus_read_target(m, manager, error, &t);
        if (r < 0)
                return r;
        r = manager_get_thread(manager, &t.caller, t.pid, t.tid, &c, &t.refusal);
        if (r >= 0)
                r = manager_check_read(manager, &t.caller, c->program, c->owner_uid);
        if (r < 0)
                return manager_bus_fail(m, manager, error, r, &t);
        if (!manager_bus_local_allowed(&t, c))
                return sd_bus_error_set(error, SD_BUS_ERROR_NOT_SUPPORTED,
                                        "Only a thread's own context outside groups, made by its own process, is "
                                        "read in process");
        r = handed_ledger_charge(manager->handed, c->owner_uid, c->tid, c->thread_ino,
                                 c->owner_uid == 0 ? UINT_MAX : manager->max_contexts_per_uid);
        if (r == -EDQUOT) {
                char more[96];
                if (manager_log_budget(manager, c->owner_uid, more, sizeof(more)))
                        log_notice("Refused OpenLocal to pid %d uid %u: %u handed counters outstanding, its "
                                   "limit (MaxContextsPerUser) until the threads they count exit%s.",
                                   (int) t.caller.pid, (unsigned) c->owner_uid,
                                   handed_ledger_held(manager->handed, c->owner_uid), more);
                return sd_bus_error_set(error, SD_BUS_ERROR_NOT_SUPPORTED,
                                        "This user holds the most handed counters pmapid allows until the threads "
                                        "they count exit: read through pmapid");
        }
        if (r < 0)
                return manager_bus_fail(m, manager, error, r, &t);
        r = manager_open_own_counters(manager, c);
        if (r < 0) {
                handed_ledger_uncharge(manager->handed, c->tid);
                log_debug("Thread %d read over the bus: no counters of its own (%s).", (int) c->tid, strerror(-r));
                return sd_bus_error_set(error, SD_BUS_ERROR_NOT_SUPPORTED,
                                        "This thread's counters cannot be read in process now: read through pmapid");
        }
        context_sync_local(c);          /* a thread that asks again: its old page's switches stand */
        r = local_share_open(c, &page, &state);
        if (r < 0) {
                handed_ledger_uncharge(manager->handed, c->tid);
                return manager_bus_fail(m, manager, error, r, &t);
        }
        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_append(reply, "hhh", c->backend->sibling_fd(c->counters), page, state);
        (void) safe_close(page);
        (void) safe_close(state);
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        if (r < 0)
                handed_ledger_uncharge(manager->handed, c->tid);    /* nothing was handed */
        return r;
}
