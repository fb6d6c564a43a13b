/* heirs-snapshot.h: a copy of the kernel's controls and counts maps (bpf/heirs-abi.h) taken in a
 * few system calls (BPF_MAP_LOOKUP_BATCH), for reading thousands of born threads at once: one
 * lookup each would be two system calls each. */
#pragma once

#include <sys/types.h>

#include "bpf/heirs-abi.h"

typedef struct HeirsSnapshot HeirsSnapshot;

/* Copies both maps; -EOPNOTSUPP where the kernel has no batch lookups (before Linux 5.6). */
int heirs_snapshot_new(int controls_fd, int counts_fd, HeirsSnapshot **ret);
HeirsSnapshot *heirs_snapshot_free(HeirsSnapshot *s);
/* tid's control and counts in the copy, or -ENOENT. */
int heirs_snapshot_find(const HeirsSnapshot *s, pid_t tid, struct heirs_control *c, struct heirs_counts *n);
