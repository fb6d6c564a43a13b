/* preload-target.c: the workload of test-preload.c, deliberately not linked with libpmapi (pmcount
 * preloads libpmapi-preload.so, which loads libpmapi at the first pthread_create or fork). Each
 * mode ends by printing "libpmapi PATH", the libpmapi.so.1 file mapped then ("none" if there is
 * none), and exits with 0, or 1 if a call failed.
 *   maps              creates no thread and forks no child; prints "module-pages N", the pages
 *                     mapped from libpmapi-preload.so; exits 3 if libpmapi or libsystemd is mapped
 *   threads PAGES     pt-first, the first thread made through pthread_create, touches PAGES fresh
 *                     pages; then pt-second touches 2 * PAGES
 *   fork PAGES        the first fork(): the child, pt-child, touches PAGES
 *   late-first PAGES  the first pthread_create comes from pt-libc, a thread libc's own made:
 *                     its thread pt-other touches PAGES; then main's thread pt-main touches PAGES
 *   race PAGES        main and pt-libc call pthread_create at once, the first calls in the
 *                     process: pt-main and pt-other each touch PAGES
 * Each mode first runs the touch loop once in main, so that its code is paged in before the threads
 * count. pt-libc sleeps 20 ms first, and pt-other after its touches: pmapid attaches them from their
 * fork records meanwhile (a thread that exits unattached leaves the group partial, and pmcount says
 * so with status 124). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

typedef int (*PthreadCreate)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static size_t pages;
static PthreadCreate libc_create;
static pthread_barrier_t start_line;

/* Maps n fresh pages (no huge pages) and writes one byte to each: n page faults. */
static int touch(size_t n) {
        size_t page = (size_t) sysconf(_SC_PAGESIZE);
        volatile char *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

        if (p == MAP_FAILED)
                return -1;
        (void) madvise((void *) p, n * page, MADV_NOHUGEPAGE);
        for (size_t i = 0; i < n; i++)
                p[i * page] = 1;
        munmap((void *) p, n * page);
        return 0;
}

/* Names the thread, then touches its pages: the name first, so that a failure shows whose it is. */
static void *toucher(void *name) {
        (void) prctl(PR_SET_NAME, name);
        return (void *) (intptr_t) touch(pages);
}

static int join(pthread_t t) {
        void *ret;

        return pthread_join(t, &ret) == 0 && ret == NULL ? 0 : -1;
}

/* A thread made by pthread_create (this module's) that names itself name and touches the pages. */
static int spawn(pthread_t *t, const char *name) {
        return pthread_create(t, NULL, toucher, (void *) name) == 0 ? 0 : -1;
}

static int warm_up(void) {
        return touch(1);
}

/* pt-libc: makes pt-other through pthread_create, first waiting at the start line if told to. */
/* pt-other: pmapid attaches it from its fork record, late; it stays 20 ms after its touches so that
 * it is attached before it exits. */
static void *lingering_toucher(void *name) {
        void *r = toucher(name);

        (void) usleep(20 * 1000);
        return r;
}

static void *libc_thread(void *wait) {
        pthread_t t;

        (void) prctl(PR_SET_NAME, "pt-libc");
        (void) usleep(20 * 1000);
        if (wait)
                (void) pthread_barrier_wait(&start_line);
        if (pthread_create(&t, NULL, lingering_toucher, (void *) "pt-other") != 0 || join(t) < 0)
                return (void *) 1;
        return NULL;
}

static int maps_line_count(const char *needle, int *ret_pages) {
        long page = sysconf(_SC_PAGESIZE);
        char line[4096];
        int n = 0;
        FILE *f = fopen("/proc/self/maps", "re");

        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f)) {
                unsigned long start, end;
                char *path = strchr(line, '/');

                if (!path || !strstr(path, needle) || sscanf(line, "%lx-%lx", &start, &end) != 2)
                        continue;
                n++;
                if (ret_pages)
                        *ret_pages += (int) ((end - start) / (unsigned long) page);
        }
        fclose(f);
        return n;
}

/* "libpmapi PATH" for each libpmapi.so.1 file mapped (its mappings are consecutive lines), or
 * "libpmapi none". */
static void print_libpmapi(void) {
        char line[4096], last[4096] = "";
        FILE *f = fopen("/proc/self/maps", "re");

        while (f && fgets(line, sizeof(line), f)) {
                char *path = strchr(line, '/');

                if (!path || !strstr(path, "/libpmapi.so.1") || strcmp(path, last) == 0)
                        continue;
                snprintf(last, sizeof(last), "%s", path);
                printf("libpmapi %s", path);
        }
        if (f)
                fclose(f);
        if (!last[0])
                printf("libpmapi none\n");
}

static int run_maps(void) {
        int module_pages = 0, libs;

        (void) maps_line_count("/libpmapi-preload.so", &module_pages);
        libs = maps_line_count("/libpmapi.so", NULL) + maps_line_count("/libsystemd.so", NULL);
        printf("module-pages %d\n", module_pages);
        print_libpmapi();
        return libs == 0 ? 0 : 3;
}

static int run_threads(void) {
        pthread_t t;

        if (warm_up() < 0 || spawn(&t, "pt-first") < 0 || join(t) < 0)
                return 1;
        pages *= 2;
        if (spawn(&t, "pt-second") < 0 || join(t) < 0)
                return 1;
        print_libpmapi();
        return 0;
}

static int run_fork(void) {
        int status;
        pid_t pid;

        if (warm_up() < 0)
                return 1;
        (void) fflush(NULL);
        pid = fork();
        if (pid < 0)
                return 1;
        if (pid == 0) {
                (void) prctl(PR_SET_NAME, "pt-child");
                _exit(touch(pages) < 0 ? 1 : 0);
        }
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return 1;
        print_libpmapi();
        return 0;
}

static int run_late_first(bool race) {
        pthread_t other, own;
        int r = 0;

        if (warm_up() < 0)
                return 1;
        if (race && pthread_barrier_init(&start_line, NULL, 2) != 0)
                return 1;
        if (libc_create(&other, NULL, libc_thread, (void *) (uintptr_t) race) != 0)
                return 1;
        if (race)
                (void) pthread_barrier_wait(&start_line);
        else if (join(other) < 0)
                return 1;
        if (spawn(&own, "pt-main") < 0 || join(own) < 0)
                r = 1;
        if (race && join(other) < 0)
                r = 1;
        print_libpmapi();
        return r;
}

int main(int argc, char *argv[]) {
        const char *mode = argc > 1 ? argv[1] : "";

        libc_create = (PthreadCreate) dlvsym(RTLD_NEXT, "pthread_create", "GLIBC_2.34");
        if (argc == 2 && strcmp(mode, "maps") == 0)
                return run_maps();
        if (argc != 3 || !libc_create) {
                fprintf(stderr, "Usage: preload-target maps | threads|fork|late-first|race PAGES\n");
                return 1;
        }
        pages = (size_t) atol(argv[2]);
        if (strcmp(mode, "threads") == 0)
                return run_threads();
        if (strcmp(mode, "fork") == 0)
                return run_fork();
        if (strcmp(mode, "late-first") == 0 || strcmp(mode, "race") == 0)
                return run_late_first(strcmp(mode, "race") == 0);
        fprintf(stderr, "preload-target: unknown mode '%s'\n", mode);
        return 1;
}
