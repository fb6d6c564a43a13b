/* cgroup-fs.h: the cgroup v2 tree as pmapid sees it, for cgroup contexts (AIX's WPAR calls, _wp).
 * A cgroup is named by its path from the v2 root ("/", "/a/b", as /proc/<pid>/cgroup shows it; or
 * under the mount point, "/sys/fs/cgroup/a/b") and known afterwards by its id, the 64-bit number the
 * kernel never reuses (the inode of its directory, name_to_handle_at's handle). Resolution never
 * leaves the v2 mount: ".." is refused, symlinks too, and nothing crosses into another mount. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Longest path accepted, from the v2 root. */
#define CGROUP_PATH_MAX 4095

typedef struct CgroupEntry {
        uint64_t id;
        char *path;                     /* from the v2 root, "/" first */
} CgroupEntry;

/* Where the cgroup v2 hierarchy is mounted (found once in /proc/self/mountinfo): -ENOMEDIUM if it
 * is not. The returned string is pmapid's; ret_fd (may be NULL) a directory fd of its root. */
int cgroup_fs_mount(const char **ret_path, int *ret_fd);

/* cgroup_fs_normalize() with the mount point given (for the unit tests). */
int cgroup_path_normalize(const char *mount, const char *path, char **ret);
/* A cgroup path as given, as the path from the v2 root: the mount point taken off, "." and empty
 * components dropped ("/" for the root). -EINVAL: empty, too long, or a ".." component. */
int cgroup_fs_normalize(const char *path, char **ret);
/* Opens the cgroup at path (O_DIRECTORY): its fd, id and path from the root. -EINVAL: empty, too
 * long, or a ".." component; -ELOOP: a symlink on the way; -ENOENT: no such cgroup; -ENOTDIR: a
 * file, not a cgroup; -ENOMEDIUM: no v2 hierarchy. */
int cgroup_fs_open_path(const char *path, int *ret_fd, uint64_t *ret_id, char **ret_path);
/* Opens the cgroup with this id: -ENOENT if there is none (never was, or removed); -ENOTDIR if
 * the id is a file's (cgroup.procs has an inode number too). */
int cgroup_fs_open_id(uint64_t id, int *ret_fd, char **ret_path);
/* The id of the cgroup whose directory fd is. */
int cgroup_fs_id(int fd, uint64_t *ret);
/* Whether the cgroup of fd was removed (rmdir) since it was opened. */
bool cgroup_fs_removed(int fd);
/* 0 if uid owns both the cgroup's directory and its cgroup.procs (what a delegation hands over:
 * cgroups(7), "Delegation"), else -EPERM. */
int cgroup_fs_owned_by(int fd, uid_t uid);
/* Every process in the cgroup of fd and its descendants (cgroup.procs), up to max: -E2BIG past it
 * (or past CGROUP_WALK_DEPTH levels); a cgroup below that cannot be opened fails the whole list,
 * so that no process goes unseen. */
int cgroup_fs_pids(int fd, size_t max, pid_t **ret, size_t *ret_n);
/* The cgroup at path and every cgroup below it, depth first, up to max: -E2BIG past it. */
int cgroup_fs_list(const char *path, size_t max, CgroupEntry **ret, size_t *ret_n);
void cgroup_entries_free(CgroupEntry *e, size_t n);
