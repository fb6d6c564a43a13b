/* cgroup-fs.c: see cgroup-fs.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroup-fs.h"
#include "macro.h"

/* Deeper trees are refused rather than walked (each level holds an fd while it is walked). */
#define CGROUP_WALK_DEPTH 64

static char *mount_path;
static int mount_fd = -1;

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape_octal(char *s) {
        char *w = s;

        for (char *p = s; *p; p++) {
                if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' && p[3] >= '0' &&
                    p[3] <= '7') {
                        *w++ = (char) ((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
                        p += 3;
                } else
                        *w++ = *p;
        }
        *w = '\0';
}

/* The mount point of the first cgroup2 line of /proc/self/mountinfo, or NULL. */
static char *find_mount(void) {
        _cleanup_free_ char *line = NULL;
        size_t size = 0;
        char *found = NULL;
        FILE *f = fopen("/proc/self/mountinfo", "re");

        if (!f)
                return NULL;
        while (!found && getline(&line, &size, f) > 0) {
                char point[4096], fstype[64];
                const char *sep = strstr(line, " - ");

                /* id parent major:minor root mount-point options... - fstype source super-options */
                if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1 ||
                    sscanf(sep + 3, "%63s", fstype) != 1 || strcmp(fstype, "cgroup2") != 0)
                        continue;
                unescape_octal(point);
                found = strdup(point);
        }
        fclose(f);
        return found;
}

int cgroup_fs_mount(const char **ret_path, int *ret_fd) {
        if (mount_fd < 0) {
                _cleanup_free_ char *path = find_mount();
                struct statfs sf;
                int fd;

                if (!path)
                        return -ENOMEDIUM;
                fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);      /* open_by_handle_at refuses O_PATH */
                if (fd < 0)
                        return -ENOMEDIUM;
                if (fstatfs(fd, &sf) < 0 || sf.f_type != CGROUP2_SUPER_MAGIC) {
                        close(fd);
                        return -ENOMEDIUM;
                }
                mount_fd = fd;
                mount_path = TAKE_PTR(path);
        }
        if (ret_path)
                *ret_path = mount_path;
        if (ret_fd)
                *ret_fd = mount_fd;
        return 0;
}

int cgroup_path_normalize(const char *mount, const char *path, char **ret) {
        size_t ml = strlen(mount), n = 0;
        _cleanup_free_ char *out = NULL;
        const char *p = path;

        if (!path || !*path || strlen(path) > CGROUP_PATH_MAX + ml)
                return -EINVAL;
        if (strncmp(path, mount, ml) == 0 && (path[ml] == '/' || path[ml] == '\0'))
                p = path + ml;
        out = malloc(strlen(p) + 2);
        if (!out)
                return -ENOMEM;
        while (*p) {
                size_t l;

                while (*p == '/')
                        p++;
                l = strcspn(p, "/");
                if (l == 0 || (l == 1 && p[0] == '.')) {
                        p += l;
                        continue;
                }
                if (l == 2 && p[0] == '.' && p[1] == '.')
                        return -EINVAL;
                out[n++] = '/';
                memcpy(out + n, p, l);
                n += l;
                p += l;
        }
        if (n == 0)
                out[n++] = '/';
        out[n] = '\0';
        if (n > CGROUP_PATH_MAX)
                return -EINVAL;
        *ret = TAKE_PTR(out);
        return 0;
}

int cgroup_fs_normalize(const char *path, char **ret) {
        const char *mount;
        int r = cgroup_fs_mount(&mount, NULL);

        return r < 0 ? r : cgroup_path_normalize(mount, path, ret);
}

int cgroup_fs_id(int fd, uint64_t *ret) {
        struct stat st;

        /* On cgroup2 the directory's inode number is the cgroup id (kernfs), as name_to_handle_at
         * reports it. */
        if (fstat(fd, &st) < 0)
                return -errno;
        *ret = (uint64_t) st.st_ino;
        return 0;
}

int cgroup_fs_open_path(const char *path, int *ret_fd, uint64_t *ret_id, char **ret_path) {
        struct open_how how = {
                .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
                .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
        };
        _cleanup_free_ char *canonical = NULL;
        _cleanup_close_ int fd = -1;
        const char *mount;
        int root, r;

        r = cgroup_fs_mount(&mount, &root);
        if (r < 0)
                return r;
        r = cgroup_path_normalize(mount, path, &canonical);
        if (r < 0)
                return r;
        fd = (int) syscall(SYS_openat2, root, canonical[1] ? canonical + 1 : ".", &how, sizeof(how));
        if (fd < 0)
                return errno == EXDEV ? -EINVAL : -errno;
        if (ret_id) {
                r = cgroup_fs_id(fd, ret_id);
                if (r < 0)
                        return r;
        }
        if (ret_path)
                *ret_path = TAKE_PTR(canonical);
        *ret_fd = TAKE_FD(fd);
        return 0;
}

/* The path from the v2 root of the cgroup directory fd, from its /proc/self/fd link. */
static int path_of_fd(int fd, char **ret) {
        char link[64], target[CGROUP_PATH_MAX + 4096 + 2];
        const char *mount;
        ssize_t l;
        size_t ml;
        int r;

        r = cgroup_fs_mount(&mount, NULL);
        if (r < 0)
                return r;
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        l = readlink(link, target, sizeof(target) - 1);
        if (l < 0)
                return -errno;
        target[l] = '\0';
        ml = strlen(mount);
        if (strncmp(target, mount, ml) != 0 || (target[ml] != '/' && target[ml] != '\0'))
                return -ENOENT;
        *ret = strdup(target[ml] ? target + ml : "/");
        return *ret ? 0 : -ENOMEM;
}

int cgroup_fs_open_id(uint64_t id, int *ret_fd, char **ret_path) {
        struct {
                struct file_handle handle;
                uint64_t id;
        } fh = { .handle = { .handle_bytes = sizeof(uint64_t), .handle_type = 0xfe /* FILEID_KERNFS */ } };
        _cleanup_close_ int fd = -1;
        int root, r;

        r = cgroup_fs_mount(NULL, &root);
        if (r < 0)
                return r;
        if (id == 0)
                return -ENOENT;
        memcpy(fh.handle.f_handle, &id, sizeof(id));
        fd = open_by_handle_at(root, &fh.handle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return errno == ESTALE || errno == EINVAL ? -ENOENT : -errno;
        if (ret_path) {
                r = path_of_fd(fd, ret_path);
                if (r < 0)
                        return r;
        }
        *ret_fd = TAKE_FD(fd);
        return 0;
}

bool cgroup_fs_removed(int fd) {
        /* A removed cgroup's directory keeps its fd but loses every file in it. */
        return faccessat(fd, "cgroup.procs", F_OK, 0) < 0 && errno == ENOENT;
}

int cgroup_fs_owned_by(int fd, uid_t uid) {
        struct stat dir, procs;

        if (fstat(fd, &dir) < 0 || fstatat(fd, "cgroup.procs", &procs, AT_SYMLINK_NOFOLLOW) < 0)
                return -errno;
        return dir.st_uid == uid && procs.st_uid == uid ? 0 : -EPERM;
}

typedef struct Walk {
        size_t max;
        /* pids */
        pid_t *pids;
        size_t n_pids;
        /* cgroups */
        CgroupEntry *entries;
        size_t n_entries;
} Walk;

static int read_procs(int fd, Walk *w) {
        _cleanup_free_ char *line = NULL;
        size_t size = 0;
        int pfd = openat(fd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
        FILE *f;

        if (pfd < 0)
                return errno == ENOENT ? 0 : -errno;    /* removed meanwhile: nothing in it */
        f = fdopen(pfd, "re");
        if (!f) {
                close(pfd);
                return -ENOMEM;
        }
        while (getline(&line, &size, f) > 0) {
                if (w->n_pids >= w->max) {
                        fclose(f);
                        return -E2BIG;
                }
                w->pids[w->n_pids++] = (pid_t) strtol(line, NULL, 10);
        }
        fclose(f);
        return 0;
}

static int add_entry(int fd, const char *path, Walk *w) {
        CgroupEntry *e;
        int r;

        if (w->n_entries >= w->max)
                return -E2BIG;
        e = &w->entries[w->n_entries];
        r = cgroup_fs_id(fd, &e->id);
        if (r < 0)
                return r;
        e->path = strdup(path);
        if (!e->path)
                return -ENOMEM;
        w->n_entries++;
        return 0;
}

/* Visits the cgroup of fd (which it closes) and every one below it, depth first. */
static int walk(int fd, const char *path, unsigned depth, Walk *w) {
        struct dirent *de;
        DIR *d;
        int r;

        if (depth > CGROUP_WALK_DEPTH) {
                close(fd);
                return -E2BIG;
        }
        r = w->pids ? read_procs(fd, w) : add_entry(fd, path, w);
        if (r < 0) {
                close(fd);
                return r;
        }
        d = fdopendir(fd);
        if (!d) {
                close(fd);
                return -errno;
        }
        while (r >= 0 && (de = readdir(d))) {
                _cleanup_free_ char *child = NULL;
                int cfd;

                if (de->d_type != DT_DIR || strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                cfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (cfd < 0 && errno == ENOENT)
                        continue;               /* removed since it was listed */
                if (cfd < 0 && w->pids) {
                        r = -errno;             /* its processes go unchecked otherwise: refuse */
                        break;
                }
                if (cfd < 0)
                        continue;
                if (asprintf(&child, "%s%s%s", path, path[1] ? "/" : "", de->d_name) < 0) {
                        close(cfd);
                        r = -ENOMEM;
                        break;
                }
                if (!w->pids && strlen(child) > CGROUP_PATH_MAX) {
                        close(cfd);
                        continue;               /* no caller could name it */
                }
                r = walk(cfd, child, depth + 1, w);
        }
        closedir(d);
        return r;
}

int cgroup_fs_pids(int fd, size_t max, pid_t **ret, size_t *ret_n) {
        Walk w = { .max = max };
        int dfd, r;

        w.pids = calloc(max ? max : 1, sizeof(pid_t));
        if (!w.pids)
                return -ENOMEM;
        dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0) {
                free(w.pids);
                return -errno;
        }
        r = walk(dfd, "/", 0, &w);
        if (r < 0) {
                free(w.pids);
                return r;
        }
        *ret = w.pids;
        *ret_n = w.n_pids;
        return 0;
}

void cgroup_entries_free(CgroupEntry *e, size_t n) {
        for (size_t i = 0; e && i < n; i++)
                free(e[i].path);
        free(e);
}

int cgroup_fs_list(const char *path, size_t max, CgroupEntry **ret, size_t *ret_n) {
        _cleanup_free_ char *canonical = NULL;
        Walk w = { .max = max };
        int fd, r;

        r = cgroup_fs_open_path(path, &fd, NULL, &canonical);
        if (r < 0)
                return r;
        w.entries = calloc(max ? max : 1, sizeof(CgroupEntry));
        if (!w.entries) {
                close(fd);
                return -ENOMEM;
        }
        r = walk(fd, canonical, 0, &w);
        if (r < 0) {
                cgroup_entries_free(w.entries, w.n_entries);
                return r;
        }
        *ret = w.entries;
        *ret_n = w.n_entries;
        return 0;
}
