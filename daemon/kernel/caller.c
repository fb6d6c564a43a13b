/* caller.c: identity of bus callers and the checks that depend on it. Racy /proc reads are only
 * used under a pin (a pidfd, or a thread pin: thread-pin.h) that is checked again after acting. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "caller.h"
#include "macro.h"
#include "perf-syscall.h"

int caller_from_message(sd_bus_message *m, Caller *ret, int *ret_pin) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        pid_t pid;
        uid_t euid;
        int r;

        const gid_t *groups = NULL;
        int n_groups;

        r = sd_bus_query_sender_creds(m, SD_BUS_CREDS_PID | SD_BUS_CREDS_EUID | SD_BUS_CREDS_SUPPLEMENTARY_GIDS,
                                      &creds);
        if (r < 0)
                return r;
        r = sd_bus_creds_get_pid(creds, &pid);
        if (r < 0)
                return r;
        r = sd_bus_creds_get_euid(creds, &euid);
        if (r < 0)
                return r;
        /* A bus or peer that cannot say them grants no group: never more than the kernel's rules. */
        n_groups = sd_bus_creds_get_supplementary_gids(creds, &groups);
        return caller_from_creds(pid, euid, groups, n_groups > 0 ? (size_t) n_groups : 0, ret, ret_pin);
}

/* Keeps of c's groups those the process holds now (ids: what the kernel says of it now). */
static void keep_held_groups(Caller *c, const ProcIds *ids) {
        unsigned kept = 0;

        for (unsigned i = 0; i < c->n_groups; i++)
                for (unsigned k = 0; k < ids->n_groups; k++)
                        if (ids->groups[k] == c->groups[i]) {
                                c->groups[kept++] = c->groups[i];
                                break;
                        }
        c->n_groups = kept;
}

/* PIDFD_GET_INFO (Linux 6.13) tells a pidfd's credentials with one ioctl; /proc/<pid>/status costs
 * about 11 µs a call to format. Defined here: Debian 12's headers predate it. */
struct pidfd_creds_info {
        uint64_t mask, cgroupid;
        uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid, spare0[1];
};
#define PIDFD_INFO_CREDS_BIT (1ULL << 1)
#define PIDFD_GET_INFO_IOCTL _IOWR(0xFF, 11, struct pidfd_creds_info)

static bool pidfd_info_missing;

/* The effective ids of the process pin names, from the kernel's pidfd: 0, -ESRCH, or -EOPNOTSUPP on
 * a kernel without PIDFD_GET_INFO. */
static int pidfd_read_effective_ids(int pin, uid_t *ret_euid, gid_t *ret_egid) {
        struct pidfd_creds_info info = { .mask = PIDFD_INFO_CREDS_BIT };

        if (pidfd_info_missing)
                return -EOPNOTSUPP;
        if (ioctl(pin, PIDFD_GET_INFO_IOCTL, &info) < 0) {
                if (errno != ENOTTY && errno != EINVAL)
                        return -ESRCH;
                pidfd_info_missing = true;
                return -EOPNOTSUPP;
        }
        if (!(info.mask & PIDFD_INFO_CREDS_BIT))
                return -ESRCH;
        *ret_euid = info.euid;
        *ret_egid = info.egid;
        return 0;
}

int caller_follow_process(Caller *c, int pin, bool want_groups) {
        ProcIds ids;
        bool have_groups = false;
        int r = want_groups ? -EOPNOTSUPP : pidfd_read_effective_ids(pin, &ids.euid, &ids.egid);

        if (r == -EOPNOTSUPP) {
                r = proc_read_ids(c->pid, &ids);
                have_groups = true;
        }
        if (r < 0 || ids.euid != c->euid)
                return -ESTALE;
        if (ids.egid != c->egid) {
                c->egid = ids.egid;
                c->egid_vouched = false;
        }
        if (have_groups)
                keep_held_groups(c, &ids);
        return 0;
}

bool caller_in_group(const Caller *c, gid_t gid) {
        if (c->egid_vouched && c->egid == gid)
                return true;
        for (unsigned i = 0; i < c->n_groups; i++)
                if (c->groups[i] == gid)
                        return true;
        return false;
}

/* The bus's groups that the process still holds: a group it dropped since it connected grants no
 * more. */
static void held_groups(const gid_t *bus_groups, size_t n_bus, const ProcIds *ids, Caller *c) {
        c->n_groups = 0;
        c->egid_vouched = false;
        for (size_t i = 0; i < n_bus; i++)
                c->egid_vouched = c->egid_vouched || bus_groups[i] == c->egid;
        for (size_t i = 0; i < n_bus && c->n_groups < CALLER_MAX_GROUPS; i++)
                c->groups[c->n_groups++] = bus_groups[i];
        keep_held_groups(c, ids);
}

int caller_from_creds(pid_t pid, uid_t euid, const gid_t *groups, size_t n_groups, Caller *ret, int *ret_pin) {
        _cleanup_close_ int pin = -1;
        gid_t bus_groups[CALLER_MAX_GROUPS];
        ProcIds ids;

        /* A copy: groups may be ret's own (caller-cache.c keeps the bus's list there). */
        n_groups = n_groups < CALLER_MAX_GROUPS ? n_groups : CALLER_MAX_GROUPS;
        if (n_groups > 0)
                memcpy(bus_groups, groups, n_groups * sizeof(gid_t));

        if (pid <= 0)
                return -ESTALE;
        /* The bus took pid and euid when the process connected; the pid may have been freed and
         * given to another process since. The pin fixes which process pid names from now on; the
         * euid check refuses a process that runs as another user than the one that connected. */
        pin = pidfd_open_process(pid);
        if (pin < 0)
                return -ESTALE;
        if (proc_read_ids(pid, &ids) < 0 || ids.euid != euid || !process_pin_alive(pin))
                return -ESTALE;
        *ret = (Caller) { .pid = pid, .euid = euid, .egid = ids.egid };
        held_groups(bus_groups, n_groups, &ids, ret);
        if (!process_pin_alive(pin))
                return -ESTALE;
        *ret_pin = TAKE_FD(pin);
        return 0;
}

int proc_read_ids(pid_t pid, ProcIds *ret) {
        char path[64], *line = NULL;
        size_t size = 0;
        unsigned u[2], g[2];
        bool found_uid = false, found_gid = false, found_groups = false;
        FILE *f;

        (void) snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
        f = fopen(path, "re");
        if (!f)
                return -ESRCH;
        ret->n_groups = 0;
        /* Uid, Gid and Groups come in that order, in the first lines: stop at Groups. */
        while (!found_groups && getline(&line, &size, f) > 0) {
                found_uid = found_uid || sscanf(line, "Uid: %u %u", &u[0], &u[1]) == 2;
                found_gid = found_gid || sscanf(line, "Gid: %u %u", &g[0], &g[1]) == 2;
                if (strncmp(line, "Groups:", 7) != 0)
                        continue;
                found_groups = true;
                for (char *p = line + 7, *end; ret->n_groups < ELEMENTSOF(ret->groups); p = end) {
                        unsigned long v = strtoul(p, &end, 10);
                        if (end == p)
                                break;
                        ret->groups[ret->n_groups++] = (gid_t) v;
                }
        }
        free(line);
        fclose(f);
        if (!found_uid || !found_gid || !found_groups)
                return -ESRCH;
        ret->euid = (uid_t) u[1];
        ret->egid = (gid_t) g[1];
        return 0;
}

int thread_pin(pid_t pid, pid_t tid, int *ret_pidfd) {
        _cleanup_close_ int pidfd = -1;
        char path[64];
        struct stat st;

        if (pid <= 0 || tid <= 0)
                return -ESRCH;
        pidfd = thread_pin_open(tid);
        if (pidfd < 0)
                return errno == EMFILE || errno == ENFILE ? -ENFILE : -ESRCH;   /* out of fds: a limit */
        (void) snprintf(path, sizeof(path), "/proc/%d/task/%d", (int) pid, (int) tid);
        if (stat(path, &st) < 0 || !thread_pin_alive(pidfd))
                return -ESRCH;
        *ret_pidfd = TAKE_FD(pidfd);
        return 0;
}

int perf_event_paranoid(void) {
        _cleanup_close_ int fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY | O_CLOEXEC);
        char buf[16] = {};

        if (fd < 0 || read(fd, buf, sizeof(buf) - 1) <= 0)
                return 3;
        return atoi(buf);
}

CountVerdict caller_may_count(uid_t euid, int paranoid, bool wants_kernel, bool owner_may_count_kernel) {
        if (euid == 0)
                return COUNT_ALLOWED;
        if (paranoid >= 3)
                return COUNT_DENIED;
        if (!wants_kernel || paranoid <= 1 || owner_may_count_kernel)
                return COUNT_ALLOWED;
        return COUNT_KERNEL_DENIED;
}

pid_t proc_parent_pid(pid_t pid) {
        char path[64], line[256];
        int ppid = -1;
        FILE *f;

        (void) snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
        f = fopen(path, "re");
        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "PPid: %d", &ppid) == 1)
                        break;
        fclose(f);
        return ppid;
}
