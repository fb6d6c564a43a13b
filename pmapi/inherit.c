/* inherit.c: see inherit.h. pthread_create is interposed (libpmapi comes before libc in the lookup
 * order of a program linked with -lpmapi): the new thread runs a short start routine that calls
 * pmapid's Inherit and only then the user's. A fork handler does the same in a forked child before
 * fork() returns there. Threads and processes created any other way (other libraries, clone(),
 * vfork, posix_spawn) are attached by pmapid from perf fork records, a little later. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "bus.h"
#include "inherit.h"
#include "macro.h"

typedef int (*PthreadCreate)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static __thread bool thread_inherits;
static bool process_inherits;
/* Set by the fork prepare handler in the forking thread; the child's only thread is its copy. */
static __thread pid_t forking_tid;

typedef struct StartRoutine {
        void *(*routine)(void *);
        void *arg;
        pid_t parent_pid, parent_tid;
} StartRoutine;

void inherit_note_thread(bool inherits) {
        thread_inherits = inherits;
}

void inherit_note_process(bool inherits) {
        __atomic_store_n(&process_inherits, inherits, __ATOMIC_RELAXED);
}

/* Returns whether pmapid attached the calling thread; errors leave it without a context, as a
 * thread created outside libpmapi would be until pmapid reads its fork record. */
static bool ask_inherit(pid_t parent_pid, pid_t parent_tid) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int attached = 0;

        if (bus_call_self("Inherit", &reply, "ii", (int32_t) parent_pid, (int32_t) parent_tid) != 0)
                return false;
        if (sd_bus_message_read(reply, "b", &attached) < 0)
                return false;
        return attached;
}

static void *start_inheriting(void *p) {
        StartRoutine s = *(StartRoutine *) p;

        free(p);
        thread_inherits = ask_inherit(s.parent_pid, s.parent_tid);
        return s.routine(s.arg);
}

static PthreadCreate real_pthread_create(void) {
        static PthreadCreate real;
        PthreadCreate f = __atomic_load_n(&real, __ATOMIC_ACQUIRE);

        if (!f) {
                f = (PthreadCreate) dlsym(RTLD_NEXT, "pthread_create");
                __atomic_store_n(&real, f, __ATOMIC_RELEASE);
        }
        return f;
}

_public_ int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*routine)(void *),
                            void *arg) {
        PthreadCreate real = real_pthread_create();
        StartRoutine *s;
        int r;

        if (!real)
                return EAGAIN;
        if (!thread_inherits && !__atomic_load_n(&process_inherits, __ATOMIC_RELAXED))
                return real(thread, attr, routine, arg);
        s = malloc(sizeof(*s));
        if (!s)
                return EAGAIN;
        *s = (StartRoutine) { routine, arg, getpid(), gettid() };
        r = real(thread, attr, start_inheriting, s);
        if (r != 0)
                free(s);
        return r;
}

static void fork_prepare(void) {
        forking_tid = gettid();
}

static void fork_child(void) {
        /* A process group stays in its process; a descendant group and a thread context follow. */
        __atomic_store_n(&process_inherits, false, __ATOMIC_RELAXED);
        thread_inherits = thread_inherits && ask_inherit(getppid(), forking_tid);
}

/* After bus.c's handlers (priority 101), so that in the child the bus lock is free again. */
__attribute__((constructor(102))) static void inherit_register_fork_handlers(void) {
        (void) pthread_atfork(fork_prepare, NULL, fork_child);
}
