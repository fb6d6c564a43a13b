/* manager.h: owns every context, keyed by thread id, enforces per-user limits, and frees a context
 * when its thread exits. The D-Bus face is manager-dbus.c. Errors are negative errnos with these
 * meanings: -ESRCH no such thread of the caller, -EEXIST context exists, -ENODATA no context,
 * -EDQUOT per-user limit, -EPERM perf refused to the caller, -EACCES kernel mode refused,
 * -ENODEV the kernel refused to open the counters, -ENOMEM. */
#pragma once

#include <glib.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "caller-cache.h"
#include "caller.h"
#include "context.h"
#include "counter.h"
#include "event-table.h"

#define MANAGER_DEFAULT_MAX_CONTEXTS_PER_UID 512

typedef struct Manager {
        sd_event *event;
        const CounterBackend *backend;
        EventTable *events;
        GHashTable *threads;            /* tid -> Context*, owned */
        GHashTable *contexts_per_uid;   /* uid -> count */
        CallerCache *callers;           /* NULL until on a bus */
        unsigned max_contexts_per_uid;
} Manager;

/* Takes ownership of events. bus may be NULL (unit tests). */
int manager_new(sd_event *event, const CounterBackend *backend, EventTable *events, Manager **ret);
Manager *manager_free(Manager *m);

/* The program must have passed program_check_thread(). */
int manager_set_program(Manager *m, const Caller *caller, pid_t pid, pid_t tid, const Program *program);
/* The caller's context on thread tid of process pid. */
int manager_get_thread(Manager *m, const Caller *caller, pid_t pid, pid_t tid, Context **ret);
void manager_delete_context(Manager *m, Context *c);
size_t manager_n_contexts(Manager *m);
