/* pm-init.c: pm_init() and pm_initialize(): fetch pmapid's event catalog, filter it by status and
 * hand it to the application; pm_get_procindex(), the processor type they describe. */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bus.h"
#include "catalog.h"
#include "macro.h"
#include "pmapi.h"

#define STATUS_BITS (PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT)

/* Reads GetEvents' reply; the strings point into the message. */
static int read_catalog(sd_bus_message *reply, const char **ret_processor, uint32_t *ret_counters,
                        CatalogEntry **ret_entries, size_t *ret_n) {
        CatalogEntry *l = NULL;
        size_t n = 0, allocated = 0;
        int r;

        r = sd_bus_message_read(reply, "su", ret_processor, ret_counters);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(reply, 'a', "(iusss)");
        if (r < 0)
                return r;
        for (;;) {
                CatalogEntry e = {};
                uint32_t status;

                r = sd_bus_message_read(reply, "(iusss)", &e.id, &status, &e.short_name, &e.long_name,
                                        &e.description);
                if (r < 0) {
                        free(l);
                        return r;
                }
                if (r == 0)
                        break;
                e.status = (int) status;
                if (n == allocated) {
                        CatalogEntry *p = realloc(l, (allocated = allocated ? allocated * 2 : 64) * sizeof(*l));
                        if (!p) {
                                free(l);
                                return -ENOMEM;
                        }
                        l = p;
                }
                l[n++] = e;
        }
        *ret_entries = l;
        *ret_n = n;
        return 0;
}

/* Reads GetGroups' reply into c (the groups whose events passed c's filter). */
static int read_groups(sd_bus_message *reply, Catalog *c) {
        _cleanup_free_ CatalogGroup *l = NULL;
        size_t n = 0, allocated = 0;
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "(isssai)");
        if (r < 0)
                return r;
        for (;;) {
                CatalogGroup g = {};
                const int32_t *events;
                size_t n_bytes;

                r = sd_bus_message_enter_container(reply, 'r', "isssai");
                if (r <= 0)
                        break;
                r = sd_bus_message_read(reply, "isss", &g.id, &g.short_name, &g.long_name, &g.description);
                if (r >= 0)
                        r = sd_bus_message_read_array(reply, 'i', (const void **) &events, &n_bytes);
                if (r >= 0 && n_bytes != sizeof(g.events))
                        r = -EBADMSG;
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                if (r < 0)
                        return r;
                memcpy(g.events, events, sizeof(g.events));
                if (n == allocated) {
                        CatalogGroup *p = realloc(l, (allocated = allocated ? allocated * 2 : 16) * sizeof(*l));
                        if (!p)
                                return -ENOMEM;
                        l = p;
                }
                l[n++] = g;
        }
        if (r < 0)
                return r;
        return catalog_set_groups(c, l, n);
}

/* The groups pmapid offers, into c. A pmapid that answered GetEvents but not GetGroups (one older
 * than the groups) offers none: pm_init works on as before. */
static int load_groups(Catalog *c) {
        _cleanup_(bus_reply_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = bus_call("GetGroups", &reply, NULL);
        if (r == PM_ENOMEM)
                return r;
        if (r != 0)
                return 0;
        r = read_groups(reply, c);
        return r == 0 ? 0 : r == -ENOMEM ? PM_ENOMEM : PM_EDAEMON;
}

/* Fetches and filters the catalog; installs it (initializing the library) if install is set. */
static int load(int filter, bool install, bool with_groups, Catalog **ret) {
        _cleanup_(bus_reply_unrefp) sd_bus_message *reply = NULL;
        CatalogEntry *entries = NULL;
        const char *processor;
        uint32_t counters;
        Catalog *c;
        size_t n;
        int r;

        if (!(filter & STATUS_BITS))
                return PM_EFILTER;
        r = bus_call("GetEvents", &reply, NULL);
        if (r != 0)
                return r;
        r = read_catalog(reply, &processor, &counters, &entries, &n);
        if (r < 0)
                return r == -ENOMEM ? PM_ENOMEM : PM_EDAEMON;
        r = catalog_new(processor, (int) counters, entries, n, filter, &c);
        free(entries);          /* its strings belong to the reply */
        if (r < 0)
                return PM_ENOMEM;
        if (with_groups) {
                r = load_groups(c);
                if (r != 0) {
                        catalog_free(c);
                        return r;
                }
        }
        if (install)
                catalog_install(c);
        *ret = c;
        return 0;
}

int pm_init(int filter, pm_info_t *pminfo, ...) {
        pm_groups_info_t *groups = NULL;
        Catalog *c;
        int r;

        if (!pminfo)
                return PM_EFAULT;
        if (filter & PM_GET_GROUPS) {           /* the third argument exists only with this bit */
                va_list ap;
                va_start(ap, pminfo);
                groups = va_arg(ap, pm_groups_info_t *);
                va_end(ap);
                if (!groups)
                        return PM_EFAULT;
        }
        r = load(filter, true, groups != NULL, &c);
        if (r != 0)
                return r;
        catalog_fill_info(c, pminfo);
        if (groups)
                catalog_fill_groups(c, groups);
        return 0;
}

int pm_initialize(int filter, pm_info2_t *pminfo, pm_groups_info_t *pmgroups, int proctype) {
        Catalog *c;
        int r;

        if (!pminfo || !pmgroups)
                return PM_EFAULT;
        /* The running processor, named either way (PAPI passes the type itself, not PM_CURRENT, so
         * that a second call initializes too). Another type would only describe a processor this
         * machine is not: pmapi has no tables for one. */
        if (proctype != PM_CURRENT && proctype != pm_get_procindex())
                return PM_EPROCTYPE;
        r = load(filter, true, true, &c);
        if (r != 0)
                return r;
        catalog_fill_info2(c, pminfo);
        catalog_fill_groups(c, pmgroups);
        return 0;
}

int pm_get_procindex(void) {
        /* Whatever the CPU, pmapi sees it through perf_event and libpfm4, never as a POWER type: a
         * client's switch over AIX's types takes its default branch, as on an unknown processor. */
        return PM_LINUX_PERF;
}
