/* exit-recheck.c: see exit-recheck.h. One timer for every context waiting: armed by the first add,
 * it takes the whole list when it fires. It is made at the start, switched off, so that pmapid's
 * fds (sd-event's timerfd) do not change with the first attach. */
#include <errno.h>
#include <glib.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exit-recheck.h"

typedef struct Pending {
        pid_t tid;
        uint64_t attached_ns;
        unsigned tries;
} Pending;

struct ExitRecheck {
        sd_event *event;
        sd_event_source *timer;         /* off while nothing waits */
        GArray *pending;                /* Pending */
        ExitRecheckFn check;
        void *userdata;
};

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata);
static int arm(ExitRecheck *r);

int exit_recheck_new(sd_event *event, ExitRecheckFn check, void *userdata, ExitRecheck **ret) {
        ExitRecheck *r = calloc(1, sizeof(*r));
        int k;

        if (!r)
                return -ENOMEM;
        r->event = sd_event_ref(event);
        r->pending = g_array_new(FALSE, FALSE, sizeof(Pending));
        r->check = check;
        r->userdata = userdata;
        k = sd_event_add_time_relative(event, &r->timer, CLOCK_MONOTONIC, EXIT_RECHECK_DELAY_USEC, 0, on_timer, r);
        if (k >= 0)
                k = sd_event_source_set_enabled(r->timer, SD_EVENT_OFF);
        if (k < 0) {
                exit_recheck_free(r);
                return k;
        }
        *ret = r;
        return 0;
}

ExitRecheck *exit_recheck_free(ExitRecheck *r) {
        if (!r)
                return NULL;
        sd_event_source_disable_unref(r->timer);
        g_array_free(r->pending, TRUE);
        sd_event_unref(r->event);
        free(r);
        return NULL;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        ExitRecheck *r = userdata;
        GArray *due = r->pending;

        (void) s, (void) usec;
        r->pending = g_array_new(FALSE, FALSE, sizeof(Pending));   /* a check may attach again */
        for (guint i = 0; i < due->len; i++) {
                Pending p = g_array_index(due, Pending, i);
                if (r->check(p.tid, p.attached_ns, r->userdata) && ++p.tries < EXIT_RECHECK_MAX_TRIES &&
                    arm(r) >= 0)
                        g_array_append_val(r->pending, p);
        }
        g_array_free(due, TRUE);
        return 0;
}

/* The timer on, if it is not: a one-shot switches itself off when it fires. */
static int arm(ExitRecheck *r) {
        int enabled = SD_EVENT_OFF, k;

        (void) sd_event_source_get_enabled(r->timer, &enabled);
        if (enabled != SD_EVENT_OFF)
                return 0;
        k = sd_event_source_set_time_relative(r->timer, EXIT_RECHECK_DELAY_USEC);
        return k < 0 ? k : sd_event_source_set_enabled(r->timer, SD_EVENT_ONESHOT);
}

int exit_recheck_add(ExitRecheck *r, pid_t tid, uint64_t attached_ns) {
        Pending p = { tid, attached_ns, 0 };
        int k = arm(r);

        if (k < 0)
                return k;
        g_array_append_val(r->pending, p);
        return 0;
}

bool thread_exiting(pid_t pid, pid_t tid) {
        char path[64], buf[512], *p;
        unsigned long flags;
        ssize_t n;
        int fd;

        (void) snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int) pid, (int) tid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return false;
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return false;
        buf[n] = '\0';
        /* "tid (comm) state ppid pgrp session tty_nr tpgid flags ...": comm may hold anything but
         * ends at the last ')'. */
        p = strrchr(buf, ')');
        if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
                return false;
        return flags & 0x4;             /* PF_EXITING */
}
