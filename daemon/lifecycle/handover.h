/* handover.h: pmapid's state carried into its next image, so that a planned restart (an upgrade,
 * `systemctl reload pmapid`, SIGHUP) keeps every context, group, dead member's record and
 * system-wide context, and no count is lost: the counters are kernel objects that go on counting
 * while pmapid re-executes, so what crosses is their fds, as they are, and the bookkeeping around
 * them, serialised as one GVariant (HANDOVER_TYPE) in a sealed memfd. The blob names each fd by its
 * index in a list of fd numbers it also holds: exec keeps the numbers. Not carried, because a new
 * image rebuilds them at once: the callers' pins and credentials (asked anew at each connection's
 * next call), refusal-log budgets, the bus connection (pmapid gets a new unique name; it lists the
 * names of the images before it in the Manager's Predecessors property, so that libpmapi can tell
 * a context that was deleted from one that a crash lost). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "manager.h"

/* Bumped whenever HANDOVER_TYPE changes: a new image refuses a blob of another version (its
 * contexts are then lost, and clients get PM_ERESTARTED, as after a crash). */
#define HANDOVER_VERSION 5
/* Enough that a client idle across reloads still finds the image that set its contexts (libpmapi
 * moves its record to each image that answers it): 4,096 reloads, about 40 KB of names. */
#define HANDOVER_MAX_PREDECESSORS 4096

typedef struct Handover {
        int memfd;                      /* the sealed blob */
        int *fds;                       /* every fd it names (still owned by the manager) */
        size_t n_fds;
} Handover;

/* Serialises m. self_name is this image's unique bus name (NULL off the bus): it joins the
 * predecessors. Call fork_watch_flush() first. On success the caller owns h->memfd and h->fds (the
 * array, not the fds) and must call handover_clear(). */
int handover_save(Manager *m, const char *self_name, Handover *ret);
void handover_clear(Handover *h);

/* Restores what memfd describes into m (a new manager with nothing in it). Takes memfd and every
 * fd the blob names: what cannot be restored (a catalog that changed under a program, a fd that is
 * not what the blob says) is closed and logged, the rest restored. -EPROTO for a blob of another
 * version or type, -EBADF if memfd is not a sealed memfd. The fds are where the blob's numbers say
 * (an exec kept them). */
int handover_restore(Manager *m, int memfd);
/* The same with the fds somewhere else, in any order (systemd's fd store): each is found by its key
 * (handover-type.h). Takes fds[0..n-1]: those the blob does not name are closed. */
int handover_restore_fds(Manager *m, int memfd, const int *fds, size_t n);
/* The key of an fd (handover-type.h). */
uint64_t handover_fd_key(int fd);
