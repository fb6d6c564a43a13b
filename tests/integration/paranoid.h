/* paranoid.h: a test that sets kernel.perf_event_paranoid puts the value it found back, at its
 * teardown, at exit and on a fatal signal (SIGABRT of a failed assertion, SIGTERM, SIGINT): a failed
 * test never leaves the machine with another policy. Only the process that first set it writes
 * it back. */
#pragma once

#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"

/* Saves the value found the first time, then writes value; 0 or -1. */
int paranoid_set_for_test(int value);
/* Writes the saved value back (nothing before the first set); async-signal-safe. */
void paranoid_restore_for_test(void);
/* The value in force now (3, the most restrictive, if unreadable). */
int paranoid_now(void);
