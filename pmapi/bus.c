/* bus.c: the connection to pmapid. sd-bus objects are not thread-safe, so one connection is shared
 * behind a mutex (pmapid serializes calls anyway). That covers the messages too: each one holds a
 * reference on the connection, counted without atomics, so every message is created and dropped
 * under the mutex, replies included (bus_reply_unref). After fork the child drops the parent's
 * connection and opens its own on first use, as it does after its effective user changed (pmapid
 * refuses a connection whose process no longer runs as the user that connected). No call blocks
 * longer than CALL_TIMEOUT_USEC, plus RESTART_WAIT_USEC once when pmapid is away: a call that finds
 * no owner of pmapid's name, in a process that pmapid answered before, waits that long for one
 * while the pmapid process lives (a re-executing pmapid gives the name up for some milliseconds,
 * keeps its PID and every context; RESTART_GONE_WAIT_USEC where it is gone) and is sent again: it
 * never reached pmapid, so sending it again is safe. Until pmapid answers again, later calls do
 * not wait. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <stdbool.h>
#include <unistd.h>

#include "bus-names.h"
#include "bus.h"
#include "error-map.h"
#include "macro.h"
#include "pmapi.h"

#define CALL_TIMEOUT_USEC (10ULL * 1000 * 1000)
/* A re-exec's gap is 22 ms here, more than 1 s in a Linux 5.10 QEMU guest under load: while the
 * process of the pmapid that set our contexts lives (a re-exec keeps its PID), a call waits up to
 * RESTART_WAIT_USEC, so that a slow machine makes it slower, not failed; once that process is
 * gone (stopped, crashed, restarted by systemd), RESTART_GONE_WAIT_USEC. */
#define RESTART_WAIT_USEC (10ULL * 1000 * 1000)
#define RESTART_GONE_WAIT_USEC (1000ULL * 1000)
#define RESTART_POLL_USEC (10ULL * 1000)

static pthread_mutex_t bus_lock = PTHREAD_MUTEX_INITIALIZER;
/* pmapid's explanation of this thread's last refused call, for pm_error(). */
static __thread int last_code;
static __thread char last_detail[256];
static sd_bus *bus;
static pid_t bus_pid;
/* The unique bus name of the pmapid that answered this process's last Set* or Inherit: a
 * NoContext from another one means pmapid restarted and took the contexts with it. */
static char set_by[64];
/* set_by's process (0: not known). */
static pid_t set_by_pid;
/* The last pmapid found not to carry set_by's contexts (restarted): not asked again. */
static char not_carrier[64];
/* pmapid answered this process since a call last found its name without an owner for good. */
static bool answered;
/* This thread's last call found no owner of the name: it never reached pmapid. */
static __thread bool last_absent;
/* Whether pmapid inherits inside the kernel (its KernelInheritance), as asked of the pmapid named
 * in kernel_inherits_of (set_by then) by process kernel_inherits_pid, before a Set* call. */
static bool kernel_inherits;
static bool kernel_inherits_known;
static pid_t kernel_inherits_pid;
static char kernel_inherits_of[64];
/* Its CarriedEvents: the events a program may hold for the kernel to carry it (software events;
 * none from a pmapid that does not say). */
#define MAX_CARRIED 64
static int32_t carried_events[MAX_CARRIED];
static size_t n_carried;
/* Its CarriedHardwareEvents: those carried where the PMU's share for carried programs has room. */
static int32_t carried_hardware[MAX_CARRIED];
static size_t n_carried_hardware;

/* set_by is written after a Set* call, while the new context may count already: its page must be
 * this process's own before, or that write would fault (first touch, or copy-on-write after fork)
 * inside the count. */
static void own_set_by_page(void) {
        ((volatile char *) set_by)[sizeof(set_by) - 1] = 0;
        ((volatile char *) kernel_inherits_of)[sizeof(kernel_inherits_of) - 1] = 0;
}

void bus_prepare_fork(void) {
        pthread_mutex_lock(&bus_lock);
}

void bus_parent_after_fork(void) {
        pthread_mutex_unlock(&bus_lock);
}

void bus_child_after_fork(void) {
        pthread_mutex_unlock(&bus_lock);
        own_set_by_page();
}

__attribute__((constructor)) static void bus_own_pages(void) {
        own_set_by_page();
}

static void bus_drop_locked(void) {
        /* In a forked child sd-bus refuses most calls on the parent's object, but unref only frees
         * it and closes the child's copy of the socket. */
        bus = sd_bus_unref(bus);
}

static int bus_get_locked(sd_bus **ret) {
        int r;

        if (bus && bus_pid != getpid())
                bus_drop_locked();
        if (!bus) {
                r = sd_bus_open_system(&bus);
                if (r < 0) {
                        bus = NULL;
                        return r;
                }
                bus_pid = getpid();
        }
        *ret = bus;
        return 0;
}

static bool sets_a_context(const char *method) {
        return strncmp(method, "Set", 3) == 0 || strcmp(method, "Inherit") == 0;
}

/* Whether the pmapid named now (a unique name) carries the state of the one that set our contexts:
 * it is that one, or lists it among its Predecessors (a re-executed pmapid keeps every context). */
static bool carries_set_by_locked(const char *now) {
        char **predecessors = NULL;
        bool carried = strcmp(now, set_by) == 0;

        if (!carried && sd_bus_get_property_strv(bus, now, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE, "Predecessors",
                                                 NULL, &predecessors) >= 0)
                for (char **p = predecessors; p && *p; p++) {
                        carried = carried || strcmp(*p, set_by) == 0;
                        free(*p);
                }
        free(predecessors);
        return carried;
}

/* After a NoContext: whether the pmapid that answers now neither set our contexts nor carries the
 * state of the one that did. */
static bool pmapid_restarted_locked(void) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        const char *now = NULL;

        if (!set_by[0] || sd_bus_get_name_creds(bus, PMAPI_SERVICE, SD_BUS_CREDS_UNIQUE_NAME, &creds) < 0 ||
            sd_bus_creds_get_unique_name(creds, &now) < 0)
                return false;
        return !carries_set_by_locked(now);
}

static bool set_by_alive(void) {
        return set_by_pid > 0 && (kill(set_by_pid, 0) == 0 || errno == EPERM);
}

/* Whether pmapid's name has an owner within RESTART_WAIT_USEC (RESTART_GONE_WAIT_USEC once the
 * process of the pmapid that set our contexts is gone). */
static bool wait_for_pmapid_locked(void) {
        for (uint64_t waited = 0; waited < (set_by_alive() ? RESTART_WAIT_USEC : RESTART_GONE_WAIT_USEC) && bus;
             waited += RESTART_POLL_USEC) {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
                int has = 0;

                if (sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                       "NameHasOwner", NULL, &reply, "s", PMAPI_SERVICE) < 0 ||
                    sd_bus_message_read(reply, "b", &has) < 0)
                        return false;
                if (has)
                        return true;
                (void) usleep(RESTART_POLL_USEC);
        }
        return false;
}

/* The pmapid that set our contexts, and its process: a re-exec keeps the process. */
static void note_set_by_locked(const char *sender) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;

        (void) snprintf(set_by, sizeof(set_by), "%s", sender);
        if (sd_bus_get_name_creds(bus, sender, SD_BUS_CREDS_PID, &creds) < 0 ||
            sd_bus_creds_get_pid(creds, &set_by_pid) < 0)
                set_by_pid = 0;
}

static int call_locked(sd_bus_message *m, sd_bus_message **ret_reply) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        const char *sender;
        int r;

        r = sd_bus_call(bus, m, CALL_TIMEOUT_USEC, &error, &reply);
        if (r < 0) {
                if (secure_getenv("PMAPI_DEBUG"))
                        fprintf(stderr, "pmapi: %s: %s: %s\n", sd_bus_message_get_member(m),
                                error.name ? error.name : "(local)", error.message ? error.message : strerror(-r));
                if (!sd_bus_error_is_set(&error) || r == -ENOTCONN || r == -ECONNRESET)
                        bus_drop_locked();      /* a broken connection is reopened next time */
                last_absent = sd_bus_error_has_names(&error, SD_BUS_ERROR_SERVICE_UNKNOWN,
                                                     SD_BUS_ERROR_NAME_HAS_NO_OWNER);
                last_code = error_map_from_bus(&error, r);
                (void) snprintf(last_detail, sizeof(last_detail), "%s", error.message ? error.message : "");
                if (last_code == PM_ENOCONTEXT && bus && pmapid_restarted_locked()) {
                        last_code = PM_ERESTARTED;
                        (void) snprintf(last_detail, sizeof(last_detail), "the program was set with pmapid %s",
                                        set_by);
                }
                return last_code;
        }
        answered = true;
        sender = sd_bus_message_get_sender(reply);
        /* The pmapid that set our contexts; after a re-exec, the image that carries them on, so
         * that Predecessors (the newest 4,096) lists it however many reloads come. */
        if (sender && strcmp(set_by, sender) != 0) {
                if (sets_a_context(sd_bus_message_get_member(m)) ||
                    (set_by[0] && strcmp(not_carrier, sender) != 0 && carries_set_by_locked(sender)))
                        note_set_by_locked(sender);
                else if (set_by[0])     /* a restarted pmapid: asked once, not at every call */
                        (void) snprintf(not_carrier, sizeof(not_carrier), "%s", sender);
        }
        if (ret_reply)
                *ret_reply = reply;
        else
                sd_bus_message_unref(reply);
        return 0;
}

static int new_call_locked(const char *method, sd_bus_message **ret) {
        sd_bus *b;
        int r;

        r = bus_get_locked(&b);
        if (r < 0)
                return error_map_from_errno(r);
        r = sd_bus_message_new_method_call(b, ret, PMAPI_SERVICE, PMAPI_MANAGER_PATH,
                                           PMAPI_MANAGER_INTERFACE, method);
        return r < 0 ? error_map_from_errno(r) : 0;
}

/* The ids of Manager property name (an "ai") into ret, at most MAX_CARRIED; how many (0 on error:
 * an older pmapid has no CarriedHardwareEvents). */
static size_t read_carried_locked(sd_bus *b, const char *name, int32_t ret[MAX_CARRIED]) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const int32_t *ids;
        size_t size = 0, n;

        if (sd_bus_get_property(b, PMAPI_SERVICE, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE, name, NULL, &reply,
                                "ai") < 0 ||
            sd_bus_message_read_array(reply, 'i', (const void **) &ids, &size) < 0)
                return 0;
        n = size / sizeof(int32_t) < MAX_CARRIED ? size / sizeof(int32_t) : MAX_CARRIED;
        memcpy(ret, ids, n * sizeof(int32_t));
        return n;
}

/* Before a call that sets a program (no new context counts yet): whether the pmapid that will
 * have set it inherits inside the kernel, asked again whenever another pmapid set the last one. */
static void ask_kernel_inherits_locked(const char *method) {
        sd_bus *b;
        int v = 0;

        if (strncmp(method, "Set", 3) != 0 ||
            (kernel_inherits_known && kernel_inherits_pid == getpid() && strcmp(kernel_inherits_of, set_by) == 0))
                return;
        if (bus_get_locked(&b) < 0)
                return;
        if (sd_bus_get_property_trivial(b, PMAPI_SERVICE, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE,
                                        "KernelInheritance", NULL, 'b', &v) < 0)
                v = 0;          /* an older pmapid: the library's Inherit calls, as before */
        n_carried = v ? read_carried_locked(b, "CarriedEvents", carried_events) : 0;
        n_carried_hardware = v ? read_carried_locked(b, "CarriedHardwareEvents", carried_hardware) : 0;
        __atomic_store_n(&kernel_inherits, v != 0, __ATOMIC_RELAXED);
        kernel_inherits_known = true;
        kernel_inherits_pid = getpid();
        (void) snprintf(kernel_inherits_of, sizeof(kernel_inherits_of), "%s", set_by);
}

bool bus_kernel_inherits(void) {
        return __atomic_load_n(&kernel_inherits, __ATOMIC_RELAXED);
}

static bool listed(const int32_t *ids, size_t n, int id) {
        for (size_t i = 0; i < n; i++)
                if (ids[i] == id)
                        return true;
        return false;
}

bool bus_kernel_carries_event(int id) {
        return bus_kernel_inherits() && listed(carried_events, n_carried, id);
}

bool bus_kernel_may_carry_event(int id) {
        return bus_kernel_inherits() &&
               (listed(carried_events, n_carried, id) || listed(carried_hardware, n_carried_hardware, id));
}

bool bus_creations_born_counting(void) {
        char path[64];
        sd_bus *b;
        int v = 0;

        (void) snprintf(path, sizeof(path), PMAPI_THREAD_PREFIX "/%d", (int) gettid());
        pthread_mutex_lock(&bus_lock);
        if (bus_get_locked(&b) >= 0 &&
            sd_bus_get_property_trivial(b, PMAPI_SERVICE, path, PMAPI_THREAD_INTERFACE, "CreationsBornCounting",
                                        NULL, 'b', &v) < 0)
                v = 0;
        pthread_mutex_unlock(&bus_lock);
        return v != 0;
}

/* pid < 0: no target arguments. The request is dropped before the caller unlocks: see the top of
 * the file. */
static int callv_locked(const char *method, sd_bus_message **ret_reply, pid_t pid, pid_t tid,
                        const char *types, va_list ap) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        ask_kernel_inherits_locked(method);
        r = new_call_locked(method, &m);
        if (r == 0 && pid >= 0 && sd_bus_message_append(m, "ii", (int32_t) pid, (int32_t) tid) < 0)
                r = PM_ENOMEM;
        if (r == 0 && types && sd_bus_message_appendv(m, types, ap) < 0)
                r = PM_ENOMEM;
        if (r == 0)
                r = call_locked(m, ret_reply);
        return r;
}

/* PM_ECALLERGONE on our own connection means this process runs as another user than when it
 * connected (the bus keeps the ids of connect time): a new connection carries the ids it has now. */
static int callv(const char *method, sd_bus_message **ret_reply, pid_t pid, pid_t tid, const char *types,
                 va_list ap) {
        va_list again, after_restart;
        int r;

        va_copy(again, ap);
        va_copy(after_restart, ap);
        pthread_mutex_lock(&bus_lock);
        last_absent = false;
        r = callv_locked(method, ret_reply, pid, tid, types, ap);
        if (r == PM_ECALLERGONE) {
                bus_drop_locked();
                r = callv_locked(method, ret_reply, pid, tid, types, again);
        }
        if (r == PM_ENODAEMON && last_absent && answered) {
                answered = false;       /* one wait until pmapid answers again */
                if (wait_for_pmapid_locked())
                        r = callv_locked(method, ret_reply, pid, tid, types, after_restart);
        }
        pthread_mutex_unlock(&bus_lock);
        va_end(after_restart);
        va_end(again);
        return r;
}

int bus_can_pass_fds(void) {
        sd_bus *b;
        int r;

        pthread_mutex_lock(&bus_lock);
        r = bus_get_locked(&b);
        r = r < 0 ? error_map_from_errno(r) : sd_bus_can_send(b, SD_BUS_TYPE_UNIX_FD) > 0;
        pthread_mutex_unlock(&bus_lock);
        return r;
}

int bus_call(const char *method, sd_bus_message **ret_reply, const char *types, ...) {
        va_list ap;
        int r;

        va_start(ap, types);
        r = callv(method, ret_reply, -1, -1, types, ap);
        va_end(ap);
        return r;
}

int bus_call_target(const char *method, sd_bus_message **ret_reply, pid_t pid, pid_t tid, const char *types, ...) {
        va_list ap;
        int r;

        va_start(ap, types);
        r = callv(method, ret_reply, pid < 0 ? 0 : pid, tid, types, ap);
        va_end(ap);
        return r;
}

const char *bus_last_detail(int code) {
        return code != 0 && code == last_code && last_detail[0] ? last_detail : NULL;
}

sd_bus_message *bus_reply_unref(sd_bus_message *reply) {
        if (!reply)
                return NULL;
        pthread_mutex_lock(&bus_lock);
        sd_bus_message_unref(reply);
        pthread_mutex_unlock(&bus_lock);
        return NULL;
}

__attribute__((destructor)) static void bus_release(void) {
        if (bus && bus_pid == getpid())
                bus = sd_bus_flush_close_unref(bus);
}
