/* caller.c: identity of bus callers and the checks that depend on it. Racy /proc reads are only
 * used under a pin (a pidfd, or a thread pin: thread-pin.h) that is checked again after acting. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

void caller_refresh_groups(Caller *c) {
        gid_t now[CALLER_MAX_GROUPS * 4];
        int n_now = proc_read_groups(c->pid, now, ELEMENTSOF(now));
        unsigned kept = 0;
        uid_t euid;
        gid_t egid;

        if (proc_read_effective_ids(c->pid, &euid, &egid) < 0 || egid != c->egid)
                c->egid_vouched = false;
        for (unsigned i = 0; i < c->n_groups; i++)
                for (int k = 0; k < n_now; k++)
                        if (now[k] == c->groups[i]) {
                                c->groups[kept++] = c->groups[i];
                                break;
                        }
        c->n_groups = kept;
}

bool caller_in_group(const Caller *c, gid_t gid) {
        if (c->egid_vouched && c->egid == gid)
                return true;
        for (unsigned i = 0; i < c->n_groups; i++)
                if (c->groups[i] == gid)
                        return true;
        return false;
}

int proc_read_groups(pid_t pid, gid_t *ret, size_t max) {
        char path[64], *line = NULL, *p, *end;
        size_t size = 0, n = 0;
        bool found = false;
        FILE *f;

        (void) snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
        f = fopen(path, "re");
        if (!f)
                return -ESRCH;
        while (!found && getline(&line, &size, f) > 0) {
                if (strncmp(line, "Groups:", 7) != 0)
                        continue;
                found = true;
                for (p = line + 7; n < max; p = end) {
                        unsigned long v = strtoul(p, &end, 10);
                        if (end == p)
                                break;
                        ret[n++] = (gid_t) v;
                }
        }
        free(line);
        fclose(f);
        return found ? (int) n : -ESRCH;
}

/* The bus's groups that the process still holds: a group it dropped since it connected grants no
 * more. */
static void held_groups(pid_t pid, const gid_t *bus_groups, size_t n_bus, Caller *c) {
        gid_t now[CALLER_MAX_GROUPS * 4];
        int n_now = n_bus > 0 ? proc_read_groups(pid, now, ELEMENTSOF(now)) : 0;

        c->n_groups = 0;
        c->egid_vouched = false;
        for (size_t i = 0; i < n_bus; i++)
                c->egid_vouched = c->egid_vouched || bus_groups[i] == c->egid;
        for (size_t i = 0; i < n_bus && c->n_groups < CALLER_MAX_GROUPS; i++)
                for (int k = 0; k < n_now; k++)
                        if (now[k] == bus_groups[i]) {
                                c->groups[c->n_groups++] = bus_groups[i];
                                break;
                        }
}

int caller_from_creds(pid_t pid, uid_t euid, const gid_t *groups, size_t n_groups, Caller *ret, int *ret_pin) {
        _cleanup_close_ int pin = -1;
        gid_t bus_groups[CALLER_MAX_GROUPS];
        uid_t now_euid;
        gid_t egid;

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
        if (proc_read_effective_ids(pid, &now_euid, &egid) < 0 || now_euid != euid || !process_pin_alive(pin))
                return -ESTALE;
        *ret = (Caller) { .pid = pid, .euid = euid, .egid = egid };
        held_groups(pid, bus_groups, n_groups, ret);
        if (!process_pin_alive(pin))
                return -ESTALE;
        *ret_pin = TAKE_FD(pin);
        return 0;
}

int proc_read_effective_ids(pid_t pid, uid_t *ret_euid, gid_t *ret_egid) {
        char path[64], line[256];
        unsigned u[2], g[2];
        bool found_uid = false, found_gid = false;
        FILE *f;

        (void) snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
        f = fopen(path, "re");
        if (!f)
                return -ESRCH;
        while ((!found_uid || !found_gid) && fgets(line, sizeof(line), f)) {
                found_uid = found_uid || sscanf(line, "Uid: %u %u", &u[0], &u[1]) == 2;
                found_gid = found_gid || sscanf(line, "Gid: %u %u", &g[0], &g[1]) == 2;
        }
        fclose(f);
        if (!found_uid || !found_gid)
                return -ESRCH;
        *ret_euid = (uid_t) u[1];
        *ret_egid = (gid_t) g[1];
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
