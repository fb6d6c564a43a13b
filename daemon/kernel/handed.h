/* handed.h: what pmapid has handed out and cannot take back. OpenLocal sends a thread a perf fd of
 * its context's counter group and two sealed pages (local-share.h); the thread may keep copies after
 * the context is gone, and pmapid cannot see a close in another process. So each handing is charged
 * to the context's owner until the thread it was made for exits (the counter counts only that
 * thread, and only while it lives), whether or not the thread still holds the fds: a user's handings
 * outstanding are bounded (MaxContextsPerUser), and past the bound OpenLocal is refused and
 * libpmapi reads over the bus. pmapid switches the handed counter off when the context ends, so a
 * kept fd reads nothing new (manager.c). */
#pragma once

#include <glib.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct HandedLedger HandedLedger;

HandedLedger *handed_ledger_new(void);
HandedLedger *handed_ledger_free(HandedLedger *l);
/* Charges one handing to uid for thread tid (thread_ino: its identity for the boot, thread-pin.h;
 * 0 if unknown). Past budget it first forgets the threads of uid that have exited, then refuses:
 * -EDQUOT. */
int handed_ledger_charge(HandedLedger *l, uid_t uid, pid_t tid, uint64_t thread_ino, unsigned budget);
/* The last charge for tid is taken back: its handing was not sent after all. */
void handed_ledger_uncharge(HandedLedger *l, pid_t tid);
/* Thread tid exited (the fork watch's EXIT record): its handings are no longer charged. */
void handed_ledger_thread_exited(HandedLedger *l, pid_t tid);
/* uid -> handings outstanding, for the admin's view (read only). */
GHashTable *handed_ledger_per_uid(HandedLedger *l);
/* uid's handings outstanding (threads not yet known to have exited). */
unsigned handed_ledger_held(HandedLedger *l, uid_t uid);
