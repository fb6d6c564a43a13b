/* snapshot.h: what pmdapmapi reads from pmapid for one PCP fetch, as an ordinary client of the
 * system bus: the daemon's health, the event catalog, and the thread contexts, groups and CPUs
 * (the every-process system context) that pmapid would let the caller's uid read, each with its
 * events and current counts. No PCP here: pmdapmapi.c turns a snapshot into PCP values. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#define SNAPSHOT_COUNTERS 8             /* MAX_COUNTERS in <pmapi.h> */

typedef struct SnapshotCounters {
        int32_t events[SNAPSHOT_COUNTERS];      /* event ids, -1 where the counter counts nothing */
        int64_t data[SNAPSHOT_COUNTERS];
        uint64_t enabled_ns, running_ns;
} SnapshotCounters;

typedef struct SnapshotThread {
        int32_t pid, tid;
        uint32_t owner_uid;
        bool counting;
        uint32_t group;                 /* group id, 0 when in none */
        SnapshotCounters c;
} SnapshotThread;

typedef struct SnapshotGroup {
        uint32_t id;
        int32_t pid;                    /* the process it was created in */
        uint32_t owner_uid;
        int32_t members;
        uint32_t flags;                 /* pm_ginfo_t.flags: 0x1 consistent, 0x2 process, 0x8 partial */
        bool counting;
        SnapshotCounters c;
} SnapshotGroup;

typedef struct SnapshotCpu {
        uint32_t cpu;
        bool online, counting;
        int32_t owner_pid;
        bool read;                      /* the system context counts it */
        SnapshotCounters c;
} SnapshotCpu;

typedef struct SnapshotEvent {
        int32_t id;
        uint32_t status;                /* PM_VERIFIED 1, PM_UNVERIFIED 2, PM_CAVEAT 4 */
        char *name;
} SnapshotEvent;

/* The catalog, kept across fetches while the same pmapid answers (its StartedAt). */
typedef struct SnapshotCatalog {
        uint64_t started_at;
        SnapshotEvent *events;
        size_t n_events;
} SnapshotCatalog;

typedef struct SnapshotHealth {
        char *version;
        uint32_t contexts, groups, max_contexts;
        uint64_t attached_late, missed, refused, started_at;
} SnapshotHealth;

/* What to read: each part costs bus calls, so a fetch asks only for what its metrics need. */
typedef enum SnapshotParts {
        SNAPSHOT_THREADS = 1 << 0,
        SNAPSHOT_GROUPS = 1 << 1,
        SNAPSHOT_CPUS = 1 << 2,
} SnapshotParts;

typedef struct Snapshot {
        SnapshotHealth health;
        SnapshotThread *threads;
        size_t n_threads;
        SnapshotGroup *groups;
        size_t n_groups;
        SnapshotCpu *cpus;
        size_t n_cpus;
        size_t calls;                   /* bus calls this snapshot took */
} Snapshot;

/* Reads pmapid on bus: the health always, the catalog when pmapid is new to *catalog, and parts:
 * the threads and groups a page of SNAPSHOT_PAGE at a time (ReadContexts, ReadGroups: pmapid
 * serves one page per call, so others wait no longer than that), the CPUs' objects with their calls
 * pipelined (at most SNAPSHOT_WINDOW outstanding: dbus-daemon's system bus allows 128 pending
 * replies per connection). All within timeout_usec. 0, or a negative errno: -EHOSTDOWN when
 * pmapid is not on the bus, -ETIMEDOUT, -ENOMEM, or the bus's own error; after a failure the
 * caller must drop bus (replies still due would land in freed memory). */
#define SNAPSHOT_PAGE 1024
#define SNAPSHOT_WINDOW 64
int snapshot_read(sd_bus *bus, SnapshotParts parts, uint64_t timeout_usec, SnapshotCatalog *catalog,
                  Snapshot **ret);
Snapshot *snapshot_free(Snapshot *s);
void snapshot_catalog_clear(SnapshotCatalog *c);

/* The catalog's row of an event id, or NULL. */
const SnapshotEvent *snapshot_catalog_find(const SnapshotCatalog *c, int32_t id);
/* "verified", "caveat", "unverified" (or "unknown"). */
const char *snapshot_status_name(uint32_t status);
