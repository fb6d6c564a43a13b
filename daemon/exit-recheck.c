/* exit-recheck.c: see exit-recheck.h. One timer for every context waiting: armed by the first add,
 * it takes the whole list when it fires. It is made at the start, switched off, so that pmapid's
 * fds (sd-event's timerfd) do not change with the first attach. */
#include <errno.h>
#include <glib.h>
#include <stdlib.h>

#include "exit-recheck.h"

typedef struct Pending {
        pid_t tid;
        uint64_t attached_ns;
} Pending;

struct ExitRecheck {
        sd_event *event;
        sd_event_source *timer;         /* off while nothing waits */
        GArray *pending;                /* Pending */
        ExitRecheckFn check;
        void *userdata;
};

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata);

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
                const Pending *p = &g_array_index(due, Pending, i);
                r->check(p->tid, p->attached_ns, r->userdata);
        }
        g_array_free(due, TRUE);
        return 0;
}

int exit_recheck_add(ExitRecheck *r, pid_t tid, uint64_t attached_ns) {
        Pending p = { tid, attached_ns };
        int enabled = SD_EVENT_OFF, k;

        (void) sd_event_source_get_enabled(r->timer, &enabled);
        if (enabled == SD_EVENT_OFF) {          /* a one-shot switches itself off when it fires */
                k = sd_event_source_set_time_relative(r->timer, EXIT_RECHECK_DELAY_USEC);
                if (k >= 0)
                        k = sd_event_source_set_enabled(r->timer, SD_EVENT_ONESHOT);
                if (k < 0)
                        return k;
        }
        g_array_append_val(r->pending, p);
        return 0;
}
