/* pmdapmapi: a Performance Co-Pilot agent (a daemon PMDA) that serves pmapid's live contexts to
 * pmcd, and from there to pmlogger, pmproxy and Prometheus. It is an ordinary client of pmapid on
 * the system bus and reads it afresh on every fetch, as PCP's perfevent agent reads its counters;
 * it sees what its uid may see through pmapid (root: every context). pmapid absent or
 * restarting gives no values (pmapi.daemon.up 0), never the last ones; the agent logs the outage
 * once and reconnects on a later fetch. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "metrics.h"
#include "snapshot.h"

#define PMAPI_DOMAIN 190                        /* unassigned in PCP's stdpmid; Install may pick another */
#define READ_TIMEOUT_USEC (3ULL * 1000 * 1000)  /* within pmcd's 5 s wait for an agent */

static sd_bus *bus;
static const char *bus_address;                 /* --bus; else the system bus */
static SnapshotCatalog catalog;
static Snapshot *snapshot;
static PmdaStats stats;
static bool outage_logged;
static pmdaIndom indoms[_INDOM_MAX] = {
        { INDOM_THREAD, 0, NULL }, { INDOM_THREAD_COUNTER, 0, NULL }, { INDOM_GROUP, 0, NULL },
        { INDOM_GROUP_COUNTER, 0, NULL }, { INDOM_CPU, 0, NULL }, { INDOM_CPU_COUNTER, 0, NULL },
};
static IndomNames indom_names;

static uint64_t now_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

static int connect_bus(void) {
        int r;

        if (!bus_address)
                return sd_bus_open_system(&bus);
        r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_address(bus, bus_address);
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, 1);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0)
                bus = sd_bus_flush_close_unref(bus);
        return r;
}

/* A new snapshot of parts, or none while pmapid does not answer. */
static void refresh(SnapshotParts parts) {
        uint64_t start = now_usec();
        Snapshot *s = NULL;
        int r = 0;

        snapshot = snapshot_free(snapshot);
        if (!bus)
                r = connect_bus();
        if (r >= 0)
                r = snapshot_read(bus, parts, READ_TIMEOUT_USEC, &catalog, &s);
        stats.last_read_usec = now_usec() - start;
        if (r < 0) {
                /* The connection may hold replies still due to a freed pipeline: start anew. */
                bus = sd_bus_flush_close_unref(bus);
                stats.failures++;
                if (!outage_logged)
                        pmNotifyErr(LOG_WARNING, "pmapid does not answer on %s (%s): no values until it does",
                                    bus_address ? bus_address : "the system bus", strerror(-r));
                outage_logged = true;
        } else {
                if (outage_logged)
                        pmNotifyErr(LOG_INFO, "pmapid %s answers again", s->health.version ? s->health.version : "");
                outage_logged = false;
                stats.bus_calls += s->calls;
                snapshot = s;
        }
        if (metrics_build_indoms(snapshot, &catalog, indoms, &indom_names) < 0)
                pmNotifyErr(LOG_ERR, "out of memory building the instance domains");
}

static const MetricDef *def_of(pmID pmid) {
        for (size_t i = 0; i < n_metric_defs; i++)
                if (pmID_cluster(pmid) == metric_defs[i].cluster && pmID_item(pmid) == metric_defs[i].item)
                        return &metric_defs[i];
        return NULL;
}

static int pmapi_fetch(int n, pmID *pmids, pmResult **resp, pmdaExt *pmda) {
        SnapshotParts parts = 0;

        for (int i = 0; i < n; i++) {
                const MetricDef *d = def_of(pmids[i]);
                if (d)
                        parts |= metrics_parts_of(d);
        }
        refresh(parts);
        return pmdaFetch(n, pmids, resp, pmda);
}

static int pmapi_instance(pmInDom indom, int inst, char *name, pmInResult **result, pmdaExt *pmda) {
        static const SnapshotParts parts_of_indom[_INDOM_MAX] = {
                SNAPSHOT_THREADS, SNAPSHOT_THREADS, SNAPSHOT_GROUPS, SNAPSHOT_GROUPS, SNAPSHOT_CPUS, SNAPSHOT_CPUS,
        };
        unsigned serial = pmInDom_serial(indom);

        refresh(serial < _INDOM_MAX ? parts_of_indom[serial] : 0);
        return pmdaInstance(indom, inst, name, result, pmda);
}

static int pmapi_fetch_value(pmdaMetric *m, unsigned int inst, pmAtomValue *atom) {
        return metrics_value(m->m_user, inst, snapshot, &catalog, &stats, atom);
}

static int pmapi_text(int ident, int type, char **buffer, pmdaExt *pmda) {
        const char *t = NULL;

        (void) pmda;
        if (type & PM_TEXT_PMID) {
                const MetricDef *d = def_of((pmID) ident);
                t = d ? metrics_text(d, type) : NULL;
        } else if (type & PM_TEXT_INDOM)
                t = metrics_indom_text((MetricIndom) pmInDom_serial((pmInDom) ident), type);
        if (!t)
                return PM_ERR_TEXT;
        *buffer = (char *) t;
        return 0;
}

static pmLongOptions long_options[] = {
        PMDA_OPTIONS_HEADER("Options"),
        PMOPT_DEBUG,
        PMDAOPT_DOMAIN,
        PMDAOPT_LOGFILE,
        PMDAOPT_USERNAME,
        { "bus", 1, 'B', "ADDRESS", "pmapid's bus (default: the system bus, DBUS_SYSTEM_BUS_ADDRESS)" },
        PMOPT_HELP,
        PMDA_OPTIONS_TEXT("\nExactly one of the following options may appear:"),
        PMDAOPT_INET,
        PMDAOPT_PIPE,
        PMDAOPT_UNIX,
        PMDAOPT_IPV6,
        PMDA_OPTIONS_TEXT("\npmdapmapi --pmns [DOMAIN] writes the PMNS and exits."),
        PMDA_OPTIONS_END
};

int main(int argc, char **argv) {
        pmdaOptions opts = { .short_options = "B:D:d:i:l:pu:U:6:?", .long_options = long_options };
        pmdaInterface dispatch = {};
        pmdaMetric *table;
        int c;

        if (argc >= 2 && strcmp(argv[1], "--pmns") == 0) {
                metrics_write_pmns(stdout, argc >= 3 ? argv[2] : "PMAPI");
                return fflush(stdout) == 0 ? 0 : 1;
        }
        pmSetProgname(argv[0]);
        pmdaDaemon(&dispatch, PMDA_INTERFACE_7, pmGetProgname(), PMAPI_DOMAIN, "pmapi.log", NULL);
        while ((c = pmdaGetOptions(argc, argv, &opts, &dispatch)) != EOF)
                if (c == 'B')
                        bus_address = opts.optarg;
        if (opts.errors || opts.optind != argc) {
                pmdaUsageMessage(&opts);
                return 1;
        }
        pmdaOpenLog(&dispatch);
        /* Root sees every context through pmapid; -U names a user to see only what it may see. */
        if (opts.username)
                pmSetProcessIdentity(opts.username);
        table = metrics_table_new();
        if (!table) {
                pmNotifyErr(LOG_ERR, "out of memory");
                return 1;
        }
        dispatch.version.seven.fetch = pmapi_fetch;
        dispatch.version.seven.instance = pmapi_instance;
        dispatch.version.seven.text = pmapi_text;
        pmdaSetFetchCallBack(&dispatch, pmapi_fetch_value);
        pmdaInit(&dispatch, indoms, _INDOM_MAX, table, (int) n_metric_defs);
        pmdaConnect(&dispatch);
        pmdaMain(&dispatch);
        return 0;
}
