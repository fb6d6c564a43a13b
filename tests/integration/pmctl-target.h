/* pmctl-target.h: a process for pmctl to act on, in the tests test-pmctl.c, test-pmctl-watch.c and
 * test-pmctl-output.c, and the short forms of running pmctl there. */
#pragma once

#include <stddef.h>
#include <json-glib/json-glib.h>

#include "target.h"
#include "tool-run.h"

/* A root child process (target.h) whose main thread relays commands to a worker, tids[1]; the
 * worker touches the pages it is told to. Parked threads take no user-mode page faults, so the
 * counts are exactly what the test asks for (+-2). Killed by tool_target_kill, the teardown of
 * each test that starts it, even after a failure. */
extern Target tool_target;
#define PID (tool_target.pid)
#define WORKER (tool_target.tids[1])

#define PMCTL getenv("PMAPI_PMCTL")
#define run_pmctl(run, ...) tool_runf(run, 0, NULL, PMCTL, __VA_ARGS__)
#define pmctl_ok(run, ...) tool_runf_ok(run, PMCTL, __VA_ARGS__)

/* Starts it, or fails the test. */
void tool_target_start(void);
/* The worker touches n fresh pages. */
void tool_target_touch(size_t n);
/* A cmocka teardown: kills it and waits until pmapid has dropped its threads' contexts. */
int tool_target_kill(void **state);
/* The value of counter i in pmctl --json OPTIONS data of the worker. */
long long pmctl_data_value(const char *options, guint i);
