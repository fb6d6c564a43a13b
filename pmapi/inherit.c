/* inherit.c: see inherit.h. pthread_create and fork are interposed (libpmapi comes before libc in
 * the lookup order of a program linked with -lpmapi): the new thread runs a short start routine
 * that calls pmapid's Inherit and only then the user's; a forked child calls it before fork()
 * returns there. Not from a pthread_atfork child handler: libsystemd's own handler, which resets
 * its cached pid, runs after ours, and sd-bus would take the child for the parent. Threads and
 * processes created any other way (other libraries, clone(), vfork, posix_spawn) are attached by
 * pmapid from perf fork records, a little later. A program that inherited a context across exec
 * says so in its environment (PMAPI_INHERIT_ENV). Under libpmapi-preload.so (preload.c) the library
 * is loaded late, by the process's first pthread_create or fork, in the thread that makes it. */
#include <dlfcn.h>
#include <errno.h>
#include <gnu/lib-names.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "bus.h"
#include "catalog.h"
#include "inherit.h"
#include "macro.h"

typedef int (*PthreadCreate)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef pid_t (*Fork)(void);

static __thread bool thread_inherits;
/* Its program has several sets: pmapid does not inherit it inside the kernel (inherit.h). */
static __thread bool thread_asks;
static bool process_inherits;
/* The main thread's tid while PMAPI_INHERIT_ENV marks it but the constructor ran in another
 * thread, which cannot set the main thread's thread_inherits; 0 otherwise. */
static pid_t main_inherits;

typedef struct StartRoutine {
        void *(*routine)(void *);
        void *arg;
        pid_t parent_pid, parent_tid;
        uint64_t created_ns;            /* just before the clone: the creator's state then counts */
        bool asks;                      /* the creator's thread_asks: its program is not carried */
} StartRoutine;

static uint64_t now_ns(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* A program started by pmcount: its main thread inherited a context across exec, which the
 * library cannot know of otherwise. If it has none after all, pmapid answers the first Inherit
 * with "not attached" and nothing else changes. Not the process flag: a process group does not
 * follow exec into a new program. The constructor runs in the thread that loads the library: the
 * main thread at start, or under the preload module whichever thread first creates a thread or
 * forks. Only the main thread is marked: any other thread was made without libpmapi (clone(), a
 * library's own threads), as a thread created before a linked libpmapi's constructor would be. */
__attribute__((constructor)) static void inherit_from_environment(void) {
        const char *v = getenv(PMAPI_INHERIT_ENV);

        if (!v || v[0] != '1' || v[1] != '\0')
                return;
        if (gettid() == getpid())
                thread_inherits = true;
        else
                __atomic_store_n(&main_inherits, getpid(), __ATOMIC_RELAXED);
}

/* The calling thread's flag, which it takes over from main_inherits if it is the main thread. */
static bool thread_flag(void) {
        pid_t main_tid = __atomic_load_n(&main_inherits, __ATOMIC_RELAXED);

        if (main_tid != 0 && main_tid == gettid()) {
                thread_inherits = true;
                __atomic_store_n(&main_inherits, 0, __ATOMIC_RELAXED);
        }
        return thread_inherits;
}

void inherit_note_thread(bool inherits) {
        (void) thread_flag();           /* the main thread's own call overrides the environment */
        thread_inherits = inherits;
        thread_asks = false;
}

void inherit_note_thread_sets(bool inherits) {
        inherit_note_thread(inherits);
        thread_asks = inherits;
}

void inherit_note_program(const pm_prog_t *prog) {
        bool inherits = !(prog->mode.w & PM_NO_INHERIT);

        inherit_note_thread(inherits);
        /* Software events are always carried; hardware ones where the PMU had room: pmapid says. */
        thread_asks = inherits && !catalog_program_all(prog, bus_kernel_carries_event) &&
                      !(catalog_program_all(prog, bus_kernel_may_carry_event) && bus_creations_born_counting());
}

/* The kernel makes the calling thread's new threads and children counting contexts, before they
 * run: nothing to ask. A process group's other threads are not carried: they still ask. */
static bool born_in_kernel(void) {
        return thread_flag() && !thread_asks && bus_kernel_inherits();
}

void inherit_note_process(bool inherits) {
        __atomic_store_n(&process_inherits, inherits, __ATOMIC_RELAXED);
}

/* Returns whether pmapid attached the calling thread; errors leave it without a context, as a
 * thread created outside libpmapi would be until pmapid reads its fork record. */
static bool ask_inherit(pid_t parent_pid, pid_t parent_tid, uint64_t created_ns) {
        _cleanup_(bus_reply_unrefp) sd_bus_message *reply = NULL;
        int attached = 0;

        if (bus_call_self("Inherit", &reply, "iit", (int32_t) parent_pid, (int32_t) parent_tid, created_ns) != 0)
                return false;
        if (sd_bus_message_read(reply, "b", &attached) < 0)
                return false;
        return attached;
}

/* A new thread's first allocations fault in fresh pages of its malloc arena. Touch them before
 * asking, so that the library's own calls after the context exists (the reply, a later
 * pm_stop_mythread) reuse them and do not show up in the thread's page faults. Each page is
 * written, not zeroed: the compiler turns malloc and memset(0) into calloc, and glibc's calloc
 * skips the pages that come fresh from the kernel, which are exactly the ones to touch. */
#define ARENA_WARM_UP (48 * 1024)

static void warm_up_arena(void) {
        size_t page = (size_t) sysconf(_SC_PAGESIZE);
        volatile char *p = malloc(ARENA_WARM_UP);

        if (!p)
                return;
        for (size_t i = 0; i < ARENA_WARM_UP; i += page)
                p[i] = 1;
        free((void *) p);
}

static void *start_inheriting(void *p) {
        StartRoutine s = *(StartRoutine *) p;

        free(p);
        warm_up_arena();
        thread_inherits = ask_inherit(s.parent_pid, s.parent_tid, s.created_ns);
        thread_asks = thread_inherits && s.asks;        /* it has its creator's program */
        return s.routine(s.arg);
}

/* libc's own, where RTLD_NEXT finds none: libpmapi comes after libc in the global lookup order
 * (a program's libraries that name libc first). Loaded by dlopen, as libpmapi-preload.so loads it,
 * RTLD_NEXT looks in libpmapi's own dependencies and finds libc there. */
static void *libc_symbol(const char *name) {
        void *libc = dlopen(LIBC_SO, RTLD_LAZY | RTLD_NOLOAD);
        void *f;

        if (!libc)
                return NULL;
        f = dlsym(libc, name);
        (void) dlclose(libc);
        return f;
}

/* The next definition of name after libpmapi: libc's, or that of a library that interposes it in
 * turn. */
static void *next_symbol(void **cache, const char *name) {
        void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);

        if (!f) {
                f = dlsym(RTLD_NEXT, name);
                if (!f)
                        f = libc_symbol(name);
                __atomic_store_n(cache, f, __ATOMIC_RELEASE);
        }
        return f;
}

static PthreadCreate real_pthread_create(void) {
        static void *cache;
        return (PthreadCreate) next_symbol(&cache, "pthread_create");
}

static Fork real_fork(void) {
        static void *cache;
        return (Fork) next_symbol(&cache, "fork");
}

_public_ int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*routine)(void *),
                            void *arg) {
        PthreadCreate real = real_pthread_create();
        StartRoutine *s;
        int r;

        if (!real)
                return EAGAIN;
        if ((!thread_flag() && !__atomic_load_n(&process_inherits, __ATOMIC_RELAXED)) || born_in_kernel())
                return real(thread, attr, routine, arg);
        s = malloc(sizeof(*s));
        if (!s)
                return EAGAIN;
        *s = (StartRoutine) { routine, arg, getpid(), gettid(), now_ns(), thread_asks };
        r = real(thread, attr, start_inheriting, s);
        if (r != 0)
                free(s);
        return r;
}

_public_ pid_t fork(void) {
        Fork real = real_fork();
        pid_t parent_tid = gettid(), pid;
        uint64_t created_ns = now_ns();
        bool inherits = thread_flag();
        bool born = born_in_kernel();

        if (!real) {
                errno = ENOSYS;
                return -1;
        }
        pid = real();
        if (pid == 0) {
                /* A process group stays in its process; a descendant group and a thread context
                 * follow into the child. */
                __atomic_store_n(&process_inherits, false, __ATOMIC_RELAXED);
                __atomic_store_n(&main_inherits, 0, __ATOMIC_RELAXED);        /* the parent's */
                thread_inherits = inherits && (born || ask_inherit(getppid(), parent_tid, created_ns));
        }
        return pid;
}
