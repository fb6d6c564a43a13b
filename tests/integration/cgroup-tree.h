/* cgroup-tree.h: a test's own cgroups, made under the cgroup v2 mount and removed at the end, and
 * workers placed in them: forked processes that touch exactly the pages they are told to. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Where cgroup v2 is mounted ("" when it is not), from /proc/self/mountinfo. */
const char *cgroup_tree_mount(void);
/* Makes the test's top cgroup, /pmapi-test-<pid>: 0, or -1 with the reason printed where cgroup v2
 * is missing or not writable (the test then skips). */
int cgroup_tree_setup(void);
/* Moves every process out of the test's cgroups (to the v2 root) and removes them, deepest first. */
void cgroup_tree_teardown(void);
/* The path from the v2 root of the test's cgroup rel ("" for the top one): a static buffer. */
const char *cgroup_tree_path(const char *rel);
/* Its path on the file system (under the mount): a static buffer. */
const char *cgroup_tree_fs_path(const char *rel);
/* Makes the test's cgroup rel (parents first): 0 or -errno. */
int cgroup_tree_make(const char *rel);
/* Removes it (empty it first): 0 or -errno. */
int cgroup_tree_remove(const char *rel);
/* Its id (the inode number of its directory), or 0. */
uint64_t cgroup_tree_id(const char *rel);
/* Moves process pid into it ("-" for the v2 root): 0 or -errno. */
int cgroup_tree_move(const char *rel, pid_t pid);
/* Hands it to uid as systemd's delegation does: the directory, cgroup.procs, cgroup.threads and
 * cgroup.subtree_control. 0 or -errno. */
int cgroup_tree_delegate(const char *rel, uid_t uid);

typedef struct Worker {
        pid_t pid;
        int command;                    /* ours: page counts to touch */
        int done;                       /* ours: one byte per command done */
} Worker;

/* Forks a worker running as uid, its code and stack warmed so that its later page faults are the
 * pages it touches and nothing else. */
int worker_start(Worker *w, uid_t uid);
/* Tells it to touch pages fresh pages and waits until it has: 0 or -1. */
int worker_touch(Worker *w, long pages);
/* Ends it and reaps it. */
void worker_stop(Worker *w);
