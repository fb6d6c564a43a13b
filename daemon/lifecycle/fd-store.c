/* fd-store.c: see fd-store.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "fd-store.h"
#include "handover.h"
#include "log.h"
#include "macro.h"
#include "reexec.h"

/* The kernel passes at most SCM_MAX_FD (253) fds in one message. */
#define FDS_PER_MESSAGE 250

bool fd_store_wanted(bool option) {
        const char *n = getenv("FDSTORE");

        if (!getenv("NOTIFY_SOCKET"))
                return false;
        return option || (n && strtoul(n, NULL, 10) > 0);
}

int fd_store_push(Manager *m, sd_bus *bus) {
        Handover h = { .memfd = -1 };
        const char *self = NULL;
        size_t stored = 0;
        int r;

        reexec_quiesce(m, bus);
        (void) sd_bus_get_unique_name(bus, &self);
        r = handover_save(m, self, &h);
        if (r < 0)
                return log_error_errno(r, "Failed to save the state for the fd store: %m; contexts are lost.");
        /* The counters first: a blob without its fds would restore nothing, fds without the blob are
         * closed by the next pmapid. */
        while (stored < h.n_fds) {
                size_t n = MIN(h.n_fds - stored, (size_t) FDS_PER_MESSAGE);

                /* FDPOLL=0: systemd must keep a counter whose thread exited (it reads POLLHUP),
                                 * or a dead group member's final counts would go with it. */
                r = sd_pid_notify_with_fds(0, false, "FDSTORE=1\nFDPOLL=0\nFDNAME=" FD_STORE_FD_NAME,
                                           h.fds + stored, (unsigned) n);
                if (r <= 0)
                        break;
                stored += n;
        }
        if (r > 0)
                r = sd_pid_notify_with_fds(0, false, "FDSTORE=1\nFDPOLL=0\nFDNAME=" FD_STORE_STATE_NAME, &h.memfd, 1);
        if (r <= 0)
                log_error_errno(r < 0 ? r : -ENOTCONN, "Failed to hand the state to the fd store after %zu of %zu "
                                "fds (%m): contexts are lost.", stored, h.n_fds);
        else
                log_info("State handed to the fd store: %zu contexts, %zu fds.", manager_n_contexts(m), h.n_fds);
        handover_clear(&h);
        return r > 0 ? 0 : (r < 0 ? r : -ENOTCONN);
}

int fd_store_restore(Manager *m) {
        _cleanup_free_ int *fds = NULL;
        char **names = NULL;
        size_t n_fds = 0;
        int memfd = -1, n, r;

        n = sd_listen_fds_with_names(true, &names);
        if (n <= 0)
                return 0;
        /* The store keeps what it was given until told: ours are taken now, so that a stop with
         * nothing to store leaves nothing stale for the next start. */
        (void) sd_notify(false, "FDSTOREREMOVE=1\nFDNAME=" FD_STORE_FD_NAME);
        (void) sd_notify(false, "FDSTOREREMOVE=1\nFDNAME=" FD_STORE_STATE_NAME);
        fds = calloc((size_t) n, sizeof(int));
        for (int i = 0; i < n; i++) {
                int fd = SD_LISTEN_FDS_START + i;
                const char *name = names ? names[i] : NULL;

                if (name && strcmp(name, FD_STORE_STATE_NAME) == 0 && memfd < 0)
                        memfd = fd;
                else if (fds && name && strcmp(name, FD_STORE_FD_NAME) == 0)
                        fds[n_fds++] = fd;
                else
                        close(fd);              /* not ours */
        }
        for (int i = 0; names && i < n; i++)
                free(names[i]);
        free(names);
        if (memfd < 0) {
                for (size_t i = 0; i < n_fds; i++)
                        close(fds[i]);
                if (n_fds > 0)
                        log_warning("The fd store passed %zu fds without a state: closed.", n_fds);
                return 0;
        }
        r = handover_restore_fds(m, memfd, fds, n_fds);
        if (r < 0)
                return log_error_errno(r, "The state in the fd store cannot be restored (%m): its contexts are lost, "
                                       "and their clients are told pmapid restarted.");
        return 1;
}
