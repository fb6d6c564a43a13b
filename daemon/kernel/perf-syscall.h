/* perf-syscall.h: the raw system calls glibc 2.36 does not wrap. */
#pragma once

#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL     /* linux 6.9+: a pidfd for one thread, not the thread group */
#endif

static inline int sys_perf_event_open(struct perf_event_attr *attr, pid_t tid, int cpu, int group_fd,
                                  unsigned long flags) {
        return (int) syscall(SYS_perf_event_open, attr, tid, cpu, group_fd, flags);
}

/* A pidfd for the whole process (pid must be a thread-group leader): readable once it has exited. */
static inline int pidfd_open_process(pid_t pid) {
        return (int) syscall(SYS_pidfd_open, pid, 0);
}

static inline int pidfd_open_thread(pid_t tid) {
        return (int) syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
}
