/* reexec.c: see reexec.h. */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "bus-names.h"
#include "clock.h"
#include "handover.h"
#include "log.h"
#include "macro.h"
#include "reexec.h"

/* How long the calls routed before the name went may wait for their callers' credentials. */
#define REEXEC_DRAIN_USEC (2ULL * 1000 * 1000)

static char binary[PATH_MAX];
static char **arguments;

int reexec_remember(char **argv) {
        ssize_t l = readlink("/proc/self/exe", binary, sizeof(binary) - 1);

        if (l < 0)
                return -errno;
        binary[l] = '\0';
        arguments = argv;
        return 0;
}

static int set_cloexec(int fd, bool on) {
        int flags = fcntl(fd, F_GETFD);

        if (flags < 0)
                return -errno;
        flags = on ? flags | FD_CLOEXEC : flags & ~FD_CLOEXEC;
        return fcntl(fd, F_SETFD, flags) < 0 ? -errno : 0;
}

static void set_cloexec_all(const Handover *h, bool on) {
        (void) set_cloexec(h->memfd, on);
        for (size_t i = 0; i < h->n_fds; i++)
                (void) set_cloexec(h->fds[i], on);
}

/* Serves every call routed here before the name went, and those held for credentials. */
static void drain(Manager *m, sd_bus *bus) {
        uint64_t deadline = now_monotonic_ns() + REEXEC_DRAIN_USEC * 1000;
        int r;

        for (;;) {
                r = sd_bus_process(bus, NULL);
                if (r > 0)
                        continue;
                if (r < 0 || caller_lookup_n_waiting(m->lookup) == 0 || now_monotonic_ns() >= deadline)
                        break;
                (void) sd_bus_wait(bus, 50 * 1000);
        }
        if (caller_lookup_n_waiting(m->lookup) > 0)
                log_warning("%zu callers' credentials did not come in time: their calls get no answer.",
                            caller_lookup_n_waiting(m->lookup));
        (void) sd_bus_flush(bus);
}

void reexec_quiesce(Manager *m, sd_bus *bus) {
        int r;

        m->releasing_name = true;
        r = sd_bus_release_name(bus, PMAPI_SERVICE);
        if (r < 0)
                log_warning_errno(r, "Failed to release '%s' (%m): calls sent meanwhile get no answer.",
                                  PMAPI_SERVICE);
        drain(m, bus);
        if (m->fork_watch)
                fork_watch_flush(m->fork_watch);
        /* Threads reading in process fall back to the bus, then ask the next pmapid for new pages. */
        manager_close_local(m);
}

int reexec_resume(Manager *m, sd_bus *bus) {
        int r = sd_bus_request_name(bus, PMAPI_SERVICE, SD_BUS_NAME_ALLOW_REPLACEMENT);

        m->releasing_name = false;
        if (r < 0)
                return log_error_errno(r, "Failed to take '%s' back: %m", PMAPI_SERVICE);
        (void) sd_notify(false, "READY=1\nSTATUS=Serving");
        return 0;
}

int reexec(Manager *m, sd_bus *bus) {
        Handover h = { .memfd = -1 };
        const char *self = NULL;
        char value[16];
        int r;

        if (!binary[0] || !arguments)
                return log_error_errno(-ENOEXEC, "Cannot re-execute: the binary's path is unknown.");
        if (access(binary, X_OK) < 0)
                return log_error_errno(-errno, "Cannot re-execute %s: %m; serving on.", binary);
        log_info("Re-executing %s with %zu contexts.", binary, manager_n_contexts(m));
        (void) sd_notify(false, "RELOADING=1\nSTATUS=Re-executing");
        reexec_quiesce(m, bus);
        (void) sd_bus_get_unique_name(bus, &self);
        r = handover_save(m, self, &h);
        if (r < 0) {
                log_error_errno(r, "Failed to save the state for the new image: %m; serving on.");
                goto fail;
        }
        set_cloexec_all(&h, false);
        (void) snprintf(value, sizeof(value), "%d", h.memfd);
        if (setenv(REEXEC_ENV, value, 1) < 0) {
                r = -errno;
                goto fail;
        }
        execv(binary, arguments);
        r = log_error_errno(-errno, "Failed to execute %s: %m; serving on.", binary);
        (void) unsetenv(REEXEC_ENV);
fail:
        if (h.memfd >= 0)
                set_cloexec_all(&h, true);
        handover_clear(&h);
        (void) reexec_resume(m, bus);
        return r;
}

/* What a failed restore could not take: the fds the exec brought (ours are all close-on-exec). */
static void close_inherited_fds(void) {
        _cleanup_free_ int *fds = NULL;
        size_t n = 0, allocated = 0;
        struct dirent *de;
        DIR *d = opendir("/proc/self/fd");

        if (!d)
                return;
        while ((de = readdir(d))) {
                char *end;
                long fd = strtol(de->d_name, &end, 10);
                int flags;

                if (*end != '\0' || fd < 3 || fd == dirfd(d))
                        continue;
                flags = fcntl((int) fd, F_GETFD);
                if (flags < 0 || (flags & FD_CLOEXEC))
                        continue;
                if (n == allocated) {
                        int *l = reallocarray(fds, allocated = allocated ? 2 * allocated : 64, sizeof(int));
                        if (!l)
                                break;
                        fds = l;
                }
                fds[n++] = (int) fd;
        }
        closedir(d);
        for (size_t i = 0; i < n; i++)
                close(fds[i]);
}

int reexec_restore(Manager *m) {
        const char *v = getenv(REEXEC_ENV);
        char *end;
        long fd;
        int r;

        if (!v)
                return 0;
        errno = 0;
        fd = strtol(v, &end, 10);
        (void) unsetenv(REEXEC_ENV);    /* v is gone with it */
        if (errno != 0 || end == v || *end != '\0' || fd < 3 || fd > INT_MAX)
                r = -EINVAL;
        else
                r = handover_restore(m, (int) fd);
        if (r < 0) {
                close_inherited_fds();
                return log_error_errno(r, "The previous image's state cannot be restored (%m): its contexts are "
                                       "lost, and their clients are told pmapid restarted.");
        }
        return 1;
}
