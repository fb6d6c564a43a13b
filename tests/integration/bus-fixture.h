/* bus-fixture.h: a private dbus-daemon (system-bus policy plus dbus/org.pmapi.PerfMon1.conf) and a
 * real pmapid on it, for integration tests and benchmarks. Needs root. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

typedef struct BusFixture {
        char dir[256];                  /* temporary directory: bus.conf, socket */
        char address[320];              /* unix:path=... */
        pid_t bus_pid;
        pid_t daemon_pid;
        bool capture_log;               /* pmapid's stderr to <dir>/pmapid.log, copied to ours at stop */
        char log_path[300];
        /* For the next bus_fixture_start_daemon(), as a service manager passes its fd store: these
         * fds at 3, 4, ... with $LISTEN_FDS, $LISTEN_PID and $LISTEN_FDNAMES (names: "a:b:..."). */
        const int *listen_fds;
        size_t n_listen_fds;
        const char *listen_fdnames;
} BusFixture;

/* Starts the bus and pmapid (extra_args: NULL-terminated, may be NULL) and points
 * DBUS_SYSTEM_BUS_ADDRESS at the bus. Returns 0 or 1; a process that is not root cannot run them
 * and exits 77, the skip status, after saying why. */
int bus_fixture_start(BusFixture *f, const char *const *extra_args);
/* Stops pmapid and the bus; nonzero if pmapid did not exit cleanly (a crash, a sanitizer report). */
int bus_fixture_stop(BusFixture *f);
/* Stops only pmapid (to start it again with other arguments); nonzero as above. */
int bus_fixture_stop_daemon(BusFixture *f);
/* Starts only the bus (no pmapid). */
int bus_fixture_start_bus(BusFixture *f);
int bus_fixture_start_daemon(BusFixture *f, const char *const *extra_args);
/* Stops pmapid and starts it again, its log captured, with a pmapid.conf of conf_text in the
 * fixture's directory (removed at bus_fixture_stop). 0 or 1. */
int bus_fixture_restart_with_config(BusFixture *f, const char *conf_text);
/* Whether pmapid's log (capture_log) has a line containing every one of the NULL-terminated
 * strings. */
bool bus_fixture_log_has(const BusFixture *f, ...) __attribute__((sentinel));
/* How many lines of pmapid's log have every one of the NULL-terminated strings. */
int bus_fixture_log_count(const BusFixture *f, ...) __attribute__((sentinel));

/* Programs that other users run (pmctl, gdb's inferiors) must be reachable by them, and a clone
 * may sit in a directory only root can enter (/root). Copies the programs the NULL-terminated
 * environment variables name, and libpmapi.so.1 from LD_LIBRARY_PATH, into <dir>/bin (0755),
 * points the variables at the copies and puts <dir>/bin first in LD_LIBRARY_PATH. 0 or 1. */
int bus_fixture_share_programs(BusFixture *f, const char *const *env_names);

/* Runs fn(arg) in a forked child as uid/gid 65534 (nobody) and returns its exit status. */
int run_as_nobody(int (*fn)(void *arg), void *arg);
/* The same as uid/gid (all three ids each, no supplementary groups). */
int run_as(uid_t uid, gid_t gid, int (*fn)(void *arg), void *arg);
/* Number of open fds of a process. */
int count_fds(pid_t pid);
/* Its perf_event fds ("anon_inode:[perf_event]"): their number, and the first max of them in ret
 * (may be NULL), in /proc order; -1 if /proc cannot be read. */
int perf_fds_of(pid_t pid, int *ret, int max);
/* VmRSS of a process in KB, or -1. */
long rss_kb(pid_t pid);
/* Waits up to timeout_ms for pid to hold want fds (pmapid drops a closed client connection's pin
 * when the bus tells it, on its own time); returns the last count. */
int wait_for_fds(pid_t pid, int want, int timeout_ms);
/* The fds of pid once they stop changing (two counts 100 ms apart agree, 3 s at most): a baseline
 * that the pins of connections closed just before do not inflate. */
int settled_fds(pid_t pid);
