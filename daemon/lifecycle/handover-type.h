/* handover-type.h: the layout of a handover blob (handover.h), shared by its writer and its reader.
 *
 *   (u  version                         HANDOVER_VERSION
 *    as predecessors                    unique names of the images before, oldest first
 *    u  next_group_id
 *    t t t  attached late, missed, refused (the Manager's counters)
 *    ai fds                             fd numbers; every "fd" below is an index in this list, or -1
 *    at keys                            per fd, what finds it again when its number changed (the fd
 *                                       store hands fds back in its own order): a perf event's id
 *                                       (PERF_EVENT_IOC_ID), else its inode with the top bit set
 *                                       (and the next for a thread's pidfd)
 *    a(GROUP) a(CONTEXT) a(SYSTEM) (FORKWATCH)
 *    ai heirs)                          the fds of inheritance inside the kernel (heirs_fds()),
 *                                       empty where it did not run
 *
 *   PROGRAM   (u n_sets, u slice_ms, b multi_mode, a(u mode, ai events) sets)   MAX_COUNTERS
 *              events a set
 *   GROUP     (u id, i pid, u owner, u target, PROGRAM, b counting, b consistent, b process,
 *              u n_members, ax retained, a(i pid, i tid, ay comm, ax counts) records, u dropped,
 *              u missed, i missed_error); retained and counts hold the sets' vectors one after
 *              the other (n_sets * ACCT_SLOTS)
 *   CONTEXT   (i pid, i tid, u owner, u target, i creator, ay comm, i origin, PROGRAM, b counting,
 *              b enabled, b attached_late, a(t time, b counting) history oldest first, u group (0:
 *              none), i pidfd (-1 where the fork watch reports exits), t thread_ino, t attached_ns,
 *              aai counters (one group a set: no fds for a thread born in the kernel, whose
 *              counts are in heirs' maps), a(t t) each set's enabled and running times at its
 *              last reset)
 *   SYSTEM    (i owner_pid, u owner_uid, PROGRAM, b counting, b proctree, ai tree, i owner_pidfd,
 *              a(u cpu, b counted, ax kept (the sets' one after the other), aax bases (one per
 *              group: its raw counts and times at the last reset), aai groups (target-major, set k
 *              of target i at i * n_sets + k)) cpus, t cgroup_id (0: none),
 *              ay cgroup_path)
 *   FORKWATCH (b enabled, a(u cpu, i fd))
 *
 * Names and paths are bytes (ay): a thread's name or a cgroup's need not be UTF-8. A cgroup is
 * found again by its id (the fd is not handed over): one removed meanwhile keeps its counts. */
#pragma once

/* The top bit of a key says "an inode", not a perf event id. */
#define HANDOVER_KEY_INODE (UINT64_C(1) << 63)
/* The next one: a thread's pin (a PIDFD_THREAD pidfd, a /proc directory), not its process's pidfd. */
#define HANDOVER_KEY_THREAD (UINT64_C(1) << 62)
/* A pidfd of a kernel before pidfs (6.9), keyed by its process id: they all share one inode. */
#define HANDOVER_KEY_ANON_PIDFD (UINT64_C(1) << 61)
/* A BPF map or link (heirs.h), keyed by its id; a link's has HANDOVER_KEY_THREAD set too. */
#define HANDOVER_KEY_BPF (UINT64_C(1) << 60)

#define HANDOVER_PROGRAM "(uuba(uai))"
#define HANDOVER_GROUP "(uiuu" HANDOVER_PROGRAM "bbbuaxa(iiayax)uui)"
#define HANDOVER_CONTEXT "(iiuuiayi" HANDOVER_PROGRAM "bbba(tb)uittaaia(tt))"
#define HANDOVER_SYSTEM "(iu" HANDOVER_PROGRAM "bbaiia(ubaxaaxaai)tay)"
#define HANDOVER_FORKWATCH "(ba(ui))"
#define HANDOVER_TYPE "(uasutttaiata" HANDOVER_GROUP "a" HANDOVER_CONTEXT "a" HANDOVER_SYSTEM HANDOVER_FORKWATCH "ai)"
