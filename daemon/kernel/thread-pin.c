/* thread-pin.c: see thread-pin.h. The one place that knows how this kernel pins a thread. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "perf-syscall.h"
#include "thread-pin.h"

/* Set once at start-up (thread_pins_init), before any other thread or any pin exists. */
static ThreadPinKind kind = THREAD_PIN_PIDFD;

/* A /proc pin's identity carries the top bit, so that it never equals a pidfs inode: a context
 * handed over from a pmapid that pinned the other way is taken for another thread, never the same. */
#define PROCFS_ID_BIT (UINT64_C(1) << 63)
#define TID_BITS 22                     /* pid_max is at most 4194304 = 2^22 */

static const char *const kind_names[_THREAD_PIN_KIND_MAX] = {
        [THREAD_PIN_PIDFD] = "pidfd",
        [THREAD_PIN_PROCFS] = "procfs",
};

const char *thread_pin_kind_name(ThreadPinKind k) {
        return k >= 0 && k < _THREAD_PIN_KIND_MAX ? kind_names[k] : "unknown";
}

ThreadPinKind thread_pins_kind(void) {
        return kind;
}

void thread_pins_set_kind(ThreadPinKind k) {
        kind = k;
}

bool thread_pins_poll(void) {
        return kind == THREAD_PIN_PIDFD;
}

int thread_pins_init(void) {
        const char *forced = getenv("PMAPID_THREAD_PINS");
        _cleanup_close_ int fd = -1;

        if (forced && strcmp(forced, "procfs") == 0)
                kind = THREAD_PIN_PROCFS;
        else {
                fd = pidfd_open_thread(gettid());
                /* Before 6.9 pidfd_open takes no flag (EINVAL); before 5.3 it does not exist (ENOSYS). */
                kind = fd >= 0 ? THREAD_PIN_PIDFD : THREAD_PIN_PROCFS;
                fd = safe_close(fd);
        }
        if (kind == THREAD_PIN_PROCFS) {
                fd = thread_pin_open(gettid());
                if (fd < 0)
                        return -errno;
        }
        return kind;
}

/* The fields of /proc/<tid>/task/<tid>/stat after the name: state, then 18 more up to starttime.
 * The name may hold spaces and parentheses; it ends at the last ')'. */
static int read_stat(int pin, char *ret_state, unsigned long long *ret_starttime, int *ret_tid) {
        char buf[1024], *close_paren;
        _cleanup_close_ int fd = openat(pin, "stat", O_RDONLY | O_CLOEXEC);
        unsigned long long starttime;
        ssize_t n;
        char state;
        int tid;

        if (fd < 0)
                return -ESRCH;          /* the task is gone: nothing resolves under its directory */
        n = read(fd, buf, sizeof(buf) - 1);
        if (n <= 0)
                return -ESRCH;
        buf[n] = '\0';
        close_paren = strrchr(buf, ')');
        if (!close_paren || sscanf(buf, "%d", &tid) != 1 ||
            sscanf(close_paren + 1, " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu",
                   &state, &starttime) != 2)
                return -EBADMSG;
        *ret_state = state;
        *ret_starttime = starttime;
        *ret_tid = tid;
        return 0;
}

int thread_pin_open(pid_t tid) {
        char path[64];
        int fd;

        if (tid <= 0) {
                errno = ESRCH;
                return -1;
        }
        if (kind == THREAD_PIN_PIDFD)
                return pidfd_open_thread(tid);
        (void) snprintf(path, sizeof(path), "/proc/%d/task/%d", (int) tid, (int) tid);
        fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT)
                errno = ESRCH;
        return fd;
}

bool process_pin_alive(int pidfd) {
        struct pollfd p = { .fd = pidfd, .events = POLLIN };

        return poll(&p, 1, 0) == 0;     /* readable once the process has exited */
}

bool thread_pin_alive(int pin) {
        if (kind == THREAD_PIN_PIDFD) {
                struct pollfd p = { .fd = pin, .events = POLLIN };

                return poll(&p, 1, 0) == 0;     /* POLLIN|POLLHUP once the thread has exited */
        }
        char state;
        unsigned long long starttime;
        int tid;

        /* A thread pidfd fires at the thread's exit, even while an exited leader waits as a zombie
         * for its other threads: a zombie is not alive here either. */
        return read_stat(pin, &state, &starttime, &tid) == 0 && state != 'Z' && state != 'X';
}

uint64_t thread_pin_id(int pin) {
        if (kind == THREAD_PIN_PIDFD) {
                struct stat st;

                return fstat(pin, &st) == 0 ? (uint64_t) st.st_ino : 0;
        }
        char state;
        unsigned long long starttime;
        int tid;

        if (read_stat(pin, &state, &starttime, &tid) < 0 || tid <= 0 || tid >= (1 << TID_BITS))
                return 0;
        return PROCFS_ID_BIT | ((uint64_t) starttime << TID_BITS) | (uint64_t) tid;
}
