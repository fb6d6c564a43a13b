/* cgroup-tree.c: see cgroup-tree.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup-tree.h"
#include "workload.h"

static char mount_point[512];
static char top[64];                    /* "/pmapi-test-<pid>" */
/* The cgroups made, in order: removed in reverse. */
static char made[16][128];
static int n_made;

const char *cgroup_tree_mount(void) {
        char line[1024];
        FILE *f;

        if (mount_point[0])
                return mount_point;
        f = fopen("/proc/self/mountinfo", "re");
        if (!f)
                return "";
        while (fgets(line, sizeof(line), f)) {
                char point[512], fstype[64];
                const char *sep = strstr(line, " - ");

                if (sep && sscanf(line, "%*s %*s %*s %*s %511s", point) == 1 && sscanf(sep + 3, "%63s", fstype) == 1 &&
                    strcmp(fstype, "cgroup2") == 0) {
                        snprintf(mount_point, sizeof(mount_point), "%s", point);
                        break;
                }
        }
        fclose(f);
        return mount_point;
}

const char *cgroup_tree_path(const char *rel) {
        static char path[256];

        snprintf(path, sizeof(path), "%s%s%s", top, rel[0] ? "/" : "", rel);
        return path;
}

const char *cgroup_tree_fs_path(const char *rel) {
        static char path[1024];

        snprintf(path, sizeof(path), "%s%s", cgroup_tree_mount(), cgroup_tree_path(rel));
        return path;
}

int cgroup_tree_make(const char *rel) {
        if (mkdir(cgroup_tree_fs_path(rel), 0755) < 0)
                return -errno;
        if (n_made < (int) (sizeof(made) / sizeof(made[0])))
                snprintf(made[n_made++], sizeof(made[0]), "%s", rel);
        return 0;
}

int cgroup_tree_setup(void) {
        int r;

        if (!cgroup_tree_mount()[0]) {
                printf("# skip: no cgroup v2 hierarchy is mounted\n");
                return -1;
        }
        snprintf(top, sizeof(top), "/pmapi-test-%d", (int) getpid());
        r = cgroup_tree_make("");
        if (r < 0) {
                printf("# skip: cannot make a cgroup under %s: %s\n", cgroup_tree_mount(), strerror(-r));
                return -1;
        }
        return 0;
}

static int write_file(const char *path, const char *text) {
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        ssize_t l;

        if (fd < 0)
                return -errno;
        l = write(fd, text, strlen(text));
        l = l < 0 ? -errno : 0;
        close(fd);
        return (int) l;
}

int cgroup_tree_move(const char *rel, pid_t pid) {
        char path[1100], text[32];

        if (strcmp(rel, "-") == 0)
                snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup_tree_mount());
        else
                snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup_tree_fs_path(rel));
        snprintf(text, sizeof(text), "%d\n", (int) pid);
        return write_file(path, text);
}

/* Moves every process of cgroup rel to the v2 root. */
static void empty(const char *rel) {
        char path[1100];
        long pid;
        FILE *f;

        snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup_tree_fs_path(rel));
        f = fopen(path, "re");
        if (!f)
                return;
        while (fscanf(f, "%ld", &pid) == 1)
                (void) cgroup_tree_move("-", (pid_t) pid);
        fclose(f);
}

int cgroup_tree_remove(const char *rel) {
        empty(rel);
        for (int i = 0; i < n_made; i++)
                if (strcmp(made[i], rel) == 0)
                        made[i][0] = '\x01';            /* removed: skipped at teardown */
        return rmdir(cgroup_tree_fs_path(rel)) < 0 ? -errno : 0;
}

void cgroup_tree_teardown(void) {
        for (int i = n_made - 1; i >= 0; i--) {
                if (made[i][0] == '\x01')
                        continue;
                empty(made[i]);
                if (rmdir(cgroup_tree_fs_path(made[i])) < 0 && errno != ENOENT)
                        fprintf(stderr, "# could not remove cgroup %s: %m\n", cgroup_tree_path(made[i]));
        }
        n_made = 0;
}

uint64_t cgroup_tree_id(const char *rel) {
        struct stat st;

        return stat(cgroup_tree_fs_path(rel), &st) < 0 ? 0 : (uint64_t) st.st_ino;
}

int cgroup_tree_delegate(const char *rel, uid_t uid) {
        static const char *const files[] = { "", "/cgroup.procs", "/cgroup.threads", "/cgroup.subtree_control" };
        char path[1100];

        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
                snprintf(path, sizeof(path), "%s%s", cgroup_tree_fs_path(rel), files[i]);
                if (chown(path, uid, (gid_t) -1) < 0)
                        return -errno;
        }
        return 0;
}

static void worker_main(int command, int done) {
        long pages;

        /* Warm: the touch loop, the pipe calls and their stack have run once before any count. */
        if (touch_fresh_pages(1) < 0 || write(done, "w", 1) != 1)
                _exit(1);
        while (read(command, &pages, sizeof(pages)) == sizeof(pages)) {
                if (pages < 0)
                        _exit(0);
                if (touch_fresh_pages((size_t) pages) < 0 || write(done, "d", 1) != 1)
                        _exit(1);
        }
        _exit(0);
}

int worker_start(Worker *w, uid_t uid) {
        int command[2], done[2];
        char c;

        if (pipe2(command, O_CLOEXEC) < 0 || pipe2(done, O_CLOEXEC) < 0)
                return -1;
        w->pid = fork();
        if (w->pid < 0)
                return -1;
        if (w->pid == 0) {
                close(command[1]);
                close(done[0]);
                /* Dumpable again after the change of uid, as after the exec of a login: its owner may
                 * trace it. */
                if (uid != 0 && (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 ||
                                 setresuid(uid, uid, uid) < 0 || prctl(PR_SET_DUMPABLE, 1) < 0))
                        _exit(126);
                worker_main(command[0], done[1]);
        }
        close(command[0]);
        close(done[1]);
        w->command = command[1];
        w->done = done[0];
        return read(w->done, &c, 1) == 1 && c == 'w' ? 0 : -1;
}

int worker_touch(Worker *w, long pages) {
        char c;

        if (write(w->command, &pages, sizeof(pages)) != sizeof(pages))
                return -1;
        return read(w->done, &c, 1) == 1 && c == 'd' ? 0 : -1;
}

void worker_stop(Worker *w) {
        long quit = -1;

        if (w->pid <= 0)
                return;
        (void) !write(w->command, &quit, sizeof(quit));
        close(w->command);
        close(w->done);
        waitpid(w->pid, NULL, 0);
        w->pid = 0;
}
