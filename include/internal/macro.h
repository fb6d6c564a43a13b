/* macro.h: cleanup helpers shared by pmapid and libpmapi (never installed). */
#pragma once

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _public_ __attribute__((visibility("default")))
#define TAKE_PTR(p) ({ __typeof__(p) _p = (p); (p) = NULL; _p; })
#define TAKE_FD(fd) ({ int _fd = (fd); (fd) = -1; _fd; })
#define DEFINE_FREEP(T, f) static inline void f##p(T **p) { if (*p) f(*p); }
#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

static inline void freep(void *p) {
        free(*(void **) p);
}

static inline void closep(int *fd) {
        if (*fd >= 0) {
                int e = errno;
                close(*fd);
                errno = e;
        }
}

/* Closes fd if open; returns -1 for the assignment that forgets it. */
static inline int safe_close(int fd) {
        if (fd >= 0) {
                int e = errno;
                close(fd);
                errno = e;
        }
        return -1;
}

#define _cleanup_free_  _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
