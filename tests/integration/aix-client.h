/* aix-client.h: what the replays of real AIX clients (test-aix-clients.c, test-aix-group-clients.c)
 * share: event lookups by short name the way those clients do them, in either catalog flavour,
 * and the harness that runs each replay in a process of its own, as root and as uid 65534. */
#pragma once

#include "pmapi.h"

/* The id of the event named name in list_events[counter], or -1 (pm_init and pm_initialize flavours). */
int client_event_id(const pm_info_t *info, int counter, const char *name);
int client_event2_id(const pm_info2_t *info, int counter, const char *name);
/* A program as the clients clear it (mode.w = 0, every counter COUNT_NOTHING) with mode and two
 * events (either may be COUNT_NOTHING). */
void client_program(pm_prog_t *prog, int mode, int event0, int event1);
/* PAPI's AIX substrate (icl-utk-edu/papi, src/aix.c): _aix_start sets the program, and on 13 (read as
 * "a context exists") deletes and sets again, then starts; _aix_stop stops and deletes. */
int client_papi_start(pm_prog_t *prog);
int client_papi_stop(void);
/* Runs body in a new process as root, then in another as uid/gid 65534; 0 when both returned 0.
 * A client starts in a process of its own: its pm_init state and contexts are its alone. */
int client_run_as_root_and_nobody(int (*body)(void *), void *arg);

/* A cmocka test that replays body as root and as nobody, then waits for pmapid to have released
 * every context the replays left (their processes exited). Needs cmocka.h and workload.h. */
#define CLIENT_TEST(name, body)                                                                    \
        static void name(void **state) {                                                           \
                (void) state;                                                                      \
                assert_int_equal(client_run_as_root_and_nobody(body, NULL), 0);                    \
                assert_int_equal(wait_for_context_count(0, 10000), 0);                             \
        }
