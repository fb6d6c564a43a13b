/* preload.c: libpmapi-preload.so, what pmcount puts in LD_PRELOAD so that the threads and children
 * of a program not linked with libpmapi inherit before they run. Preloading libpmapi itself does
 * not do it: a program built against glibc calls pthread_create@GLIBC_2.34 and fork@GLIBC_2.2.5,
 * and the dynamic linker binds a versioned reference only to a definition of that version or to
 * an unversioned one, never to libpmapi's pthread_create@PMAPI_1. This module defines both calls
 * unversioned (it has no version script), so they take every program's calls, and hands each to
 * libpmapi's, which it needs (DT_NEEDED) and finds by version. libpmapi's constructor sees
 * PMAPI_INHERIT=1 and knows the main thread has a context. Nothing else lives here. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <unistd.h>

#include "macro.h"

typedef int (*PthreadCreate)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef pid_t (*Fork)(void);

/* libpmapi's definition: dlvsym skips our own, which has no version. */
static void *pmapi_symbol(void **cache, const char *name) {
        void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);

        if (!f) {
                f = dlvsym(RTLD_DEFAULT, name, "PMAPI_1");
                __atomic_store_n(cache, f, __ATOMIC_RELEASE);
        }
        return f;
}

_public_ int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*routine)(void *), void *arg) {
        static void *cache;
        PthreadCreate f = (PthreadCreate) pmapi_symbol(&cache, "pthread_create");

        return f ? f(thread, attr, routine, arg) : EAGAIN;
}

_public_ pid_t fork(void) {
        static void *cache;
        Fork f = (Fork) pmapi_symbol(&cache, "fork");

        if (!f) {
                errno = ENOSYS;
                return -1;
        }
        return f();
}
