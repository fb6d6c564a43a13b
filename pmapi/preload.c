/* preload.c: libpmapi-preload.so, what pmcount puts in LD_PRELOAD so that the threads and children
 * of a program not linked with libpmapi inherit before they run. Preloading libpmapi itself does
 * not do it: a program built against glibc calls pthread_create@GLIBC_2.34 and fork@GLIBC_2.2.5,
 * and the dynamic linker binds a versioned reference only to a definition of that version or to
 * an unversioned one, never to libpmapi's pthread_create@PMAPI_1. This module defines both calls
 * unversioned (it has no version script), so they take every program's calls.
 *
 * It needs nothing but libc, and loads libpmapi (with libsystemd and its libraries) only when the
 * process first creates a thread or forks: most processes a shell runs do neither, and then pay
 * for mapping this module alone (each library a process loads costs it page faults, about 80 for
 * libpmapi's set). That first call opens libpmapi.so.1 (beside this module in the build tree, one
 * directory up where installed, else wherever the dynamic linker finds it), whose constructor sees
 * PMAPI_INHERIT=1 and knows the main thread has a context; the call and every later one then go to
 * libpmapi's pthread_create@PMAPI_1 and fork@PMAPI_1 (found by version: dlvsym skips our own,
 * which has none). If libpmapi cannot be loaded, the module says so once and passes the calls to
 * libc's: pmapid then attaches the new threads and processes from its fork records, a little
 * later. Nothing else lives here. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"

#define LIBPMAPI_SONAME "libpmapi.so.1"

typedef int (*PthreadCreate)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef pid_t (*Fork)(void);

/* Written once by load_libpmapi() under load_once; pthread_once orders them before every read. */
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static PthreadCreate next_create;
static Fork next_fork;

/* libc's, for the thread that is loading libpmapi: a constructor of libpmapi or of a library it
 * needs that created a thread or forked would otherwise wait on load_once in its own thread. */
static __thread bool loading;
static PthreadCreate libc_create;
static Fork libc_fork;

/* The next definition after this module: libc's, or that of a library that interposes it in turn. */
static void *libc_symbol(const char *name) {
        return dlsym(RTLD_NEXT, name);
}

/* libpmapi.so.1: the one the process has already (a program linked with it: a second copy would
 * keep state of its own), beside this module, one directory up, or from the library path. */
static void *open_libpmapi(void) {
        char dir[PATH_MAX], path[PATH_MAX + sizeof("/../" LIBPMAPI_SONAME)];
        void *lib = dlopen(LIBPMAPI_SONAME, RTLD_LAZY | RTLD_NOLOAD);
        const char *slash;
        Dl_info self;

        if (lib)
                return lib;
        if (dladdr((void *) open_libpmapi, &self) != 0 && self.dli_fname &&
            (slash = strrchr(self.dli_fname, '/')) && (size_t) (slash - self.dli_fname) < sizeof(dir)) {
                memcpy(dir, self.dli_fname, (size_t) (slash - self.dli_fname));
                dir[slash - self.dli_fname] = '\0';
                for (const char *up = ""; up; up = *up ? NULL : "/..") {
                        (void) snprintf(path, sizeof(path), "%s%s/" LIBPMAPI_SONAME, dir, up);
                        if (access(path, F_OK) == 0 && (lib = dlopen(path, RTLD_LAZY | RTLD_LOCAL)))
                                return lib;
                }
        }
        return dlopen(LIBPMAPI_SONAME, RTLD_LAZY | RTLD_LOCAL);
}

static void load_libpmapi(void) {
        void *lib;

        libc_create = (PthreadCreate) libc_symbol("pthread_create");
        libc_fork = (Fork) libc_symbol("fork");
        loading = true;
        lib = open_libpmapi();
        loading = false;
        if (lib) {
                next_create = (PthreadCreate) dlvsym(lib, "pthread_create", "PMAPI_1");
                next_fork = (Fork) dlvsym(lib, "fork", "PMAPI_1");
        }
        if (!next_create || !next_fork) {
                const char *error = dlerror();

                /* The process is not ours to stop: it runs on, its new threads counted a little late. */
                (void) dprintf(STDERR_FILENO, "%s: libpmapi-preload.so: cannot use " LIBPMAPI_SONAME " (%s); "
                               "new threads and processes are counted from a little after they start\n",
                               program_invocation_short_name, error ? error : "no pthread_create@PMAPI_1");
                next_create = libc_create;
                next_fork = libc_fork;
        }
}

static void load(void) {
        if (!loading)
                (void) pthread_once(&load_once, load_libpmapi);
}

_public_ int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*routine)(void *), void *arg) {
        PthreadCreate f;

        load();
        f = loading ? libc_create : next_create;
        return f ? f(thread, attr, routine, arg) : EAGAIN;
}

_public_ pid_t fork(void) {
        Fork f;

        load();
        f = loading ? libc_fork : next_fork;
        if (!f) {
                errno = ENOSYS;
                return -1;
        }
        return f();
}
