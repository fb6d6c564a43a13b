/* pcp-fixture.h: a private Performance Co-Pilot pmcd (its own socket, port, config, PMNS and log
 * directory; no system file touched) running pmdapmapi against the test's private bus, and a
 * client of it through libpcp, for test-pmda and bench-pmda. Kept apart from the tests' own files:
 * PCP's <pcp/pmapi.h> and ours both claim names. Needs root and PCP (the pcp package). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct PcpFixture {
        char dir[256];                  /* run/, log/, pmcd.conf, root.pmns */
        char host[300];                 /* "unix:<dir>/run/pmcd.socket", for -h and pmNewContext */
        int port;
        pid_t pmcd_pid;
        int context;                    /* libpcp's, -1 when not connected */
} PcpFixture;

/* A loopback TCP port nobody listens on now (the kernel's choice). */
int pcp_free_port(void);
/* Whether pmcd is installed (PCP_BINADM_DIR/pmcd); why not in *ret_why. */
bool pcp_available(const char **ret_why);
/* Starts pmcd with pmdapmapi (the program at pmda, its bus bus_address, extra_args after them:
 * may be NULL) and connects to it. 0 or -1 (said on stderr). */
int pcp_fixture_start(PcpFixture *f, const char *pmda, const char *bus_address, const char *extra_args);
/* Disconnects and stops pmcd (and so the agent). */
void pcp_fixture_stop(PcpFixture *f);
/* The agent's log, to stderr (after a failure). */
void pcp_fixture_dump_log(const PcpFixture *f);
/* How many lines of the agent's log contain text. */
int pcp_fixture_log_count(const PcpFixture *f, const char *text);

/* One fetch of metric. For each of its values, inst and value in ret_inst/ret_values (at most max;
 * strings are not returned). Returns the number of values (0 for none), or the PCP error of the
 * metric (< 0: PM_ERR_AGAIN when the agent has none now). */
int pcp_fetch(PcpFixture *f, const char *metric, int *ret_inst, int64_t *ret_values, int max);
/* The value of metric for instance inst (PM_IN_NULL -1 for a singular metric): 0 and *ret, 1 when
 * that instance has no value, or the PCP error (< 0). */
int pcp_fetch_one(PcpFixture *f, const char *metric, int inst, int64_t *ret);
/* A string value of metric for instance inst into buf: 0, 1 when none, or the PCP error. */
int pcp_fetch_string(PcpFixture *f, const char *metric, int inst, char *buf, size_t size);
/* The name of instance inst of metric's instance domain into buf: 0 or the PCP error. */
int pcp_instance_name(PcpFixture *f, const char *metric, int inst, char *buf, size_t size);
/* PCP's text for an error code. */
const char *pcp_error(int code);
/* The PCP error code for "try again". */
int pcp_err_again(void);
