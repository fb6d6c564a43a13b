/* manager-dbus-local.c: the Manager's OpenLocal: a thread asks for what it needs to read its own
 * context in process (include/internal/local-page.h): a sibling perf fd of the context's counter
 * group and the context's sealed page. Only the thread's own process, only the context's owner,
 * only a context outside any group (its group sums and the AND rule stay pmapid's), and only what
 * GetData would let the caller read (kernel-mode counts under perf_event_paranoid). Anything else
 * is refused with NotSupported and the library reads over the bus, as before. */
#include "local-share.h"
#include "macro.h"
#include "manager-dbus.h"

int method_open_local(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        Manager *manager = userdata;
        BusTarget t;
        Context *c;
        int page = -1, state = -1, sibling, r;

        r = manager_bus_read_target(m, manager, error, &t);
        if (r < 0)
                return r;
        r = manager_get_thread(manager, &t.caller, t.pid, t.tid, &c, &t.refusal);
        if (r >= 0)
                r = manager_check_read(manager, &t.caller, &c->program, c->owner_uid);
        if (r < 0)
                return manager_bus_fail(m, manager, error, r, &t);
        if (t.pid != t.caller.pid || c->owner_uid != t.caller.euid || c->group)
                return sd_bus_error_set(error, SD_BUS_ERROR_NOT_SUPPORTED,
                                        "Only a thread's own context outside groups is read in process");
        sibling = c->backend->sibling_fd(c->counters);
        r = sibling < 0 ? -EOPNOTSUPP : manager_open_local(manager, c, &page, &state);
        if (r == -EOPNOTSUPP)
                return sd_bus_error_set(error, SD_BUS_ERROR_NOT_SUPPORTED,
                                        "This context was not made to be read in process");
        if (r < 0)
                return manager_bus_fail(m, manager, error, r, &t);
        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_append(reply, "hhh", sibling, page, state);  /* sd-bus sends copies */
        (void) safe_close(page);
        (void) safe_close(state);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}
