/* preload-target.c: the workload of test-preload.c, deliberately not linked with libpmapi (pmcount
 * preloads libpmapi-preload.so, which loads libpmapi at the first pthread_create or fork, unless
 * pmapid inherits inside the kernel). Each
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
 * so with status 124).
 * The kernel's own counts come before the libpmapi line, for a pmapid that counts threads from
 * their birth: "tid NAME TID" for each thread (and pt-child), "kernel-lives NAME[,NAME...] N", the
 * page faults of those threads' whole lives in both modes (perf's own inherited counter, less the
 * main thread's; getrusage and wait4 where perf refuses), and
 * "kernel-at-end NAME N", a toucher's own count after its touches (its exit still to come). maps
 * prints "LD_PRELOAD VALUE" and "PMAPI_INHERIT VALUE" ("unset" for none). */
#include <dlfcn.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fresh-pages.h"

typedef int (*PthreadCreate)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static size_t pages;
static PthreadCreate libc_create;
static pthread_barrier_t start_line;

/* The kernel's counts, printed by main at the end: touchers and pt-libc write them before they
 * are joined. */
#define MAX_RECORDS 16
static struct {
        unsigned n;
        struct {
                const char *what, *names;
                long long n;
        } r[MAX_RECORDS];
} records;

static void record(const char *what, const char *names, long long n) {
        unsigned i = __atomic_fetch_add(&records.n, 1, __ATOMIC_RELAXED);

        if (i < MAX_RECORDS) {
                records.r[i].what = what;
                records.r[i].names = names;
                records.r[i].n = n;
        }
}

static void print_records(void) {
        for (unsigned i = 0; i < records.n && i < MAX_RECORDS; i++)
                printf("%s %s %lld\n", records.r[i].what, records.r[i].names, records.r[i].n);
}

/* getrusage's minor and major faults: the caller's own (RUSAGE_THREAD) or the process's, its
 * exited threads included (RUSAGE_SELF). */
static long long faults(int who) {
        struct rusage ru;

        return getrusage(who, &ru) == 0 ? ru.ru_minflt + ru.ru_majflt : -1;
}

/* The faults of the other threads in a stretch of the caller's life: those it creates and joins
 * in it, when no other thread runs then. */
typedef struct Span {
        bool perf;
        long long process, own;
} Span;

/* perf's own count of main and the threads and children it makes from here on (inherit), and each
 * thread's of itself (opened at its first span: only differences are taken): the reference of perf
 * stat, whose counts pmcount's must be. -1 where perf refuses (perf_event_paranoid 3 for users):
 * getrusage's counts then. */
static int perf_process = -1;
static __thread int perf_own = -1;

static int open_faults(bool inherit) {
        struct perf_event_attr a = {
                .type = PERF_TYPE_SOFTWARE,
                .size = sizeof(a),
                .config = PERF_COUNT_SW_PAGE_FAULTS,
                .inherit = inherit,
        };

        return (int) syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static long long read_count(int fd) {
        uint64_t v;

        return read(fd, &v, sizeof(v)) == (ssize_t) sizeof(v) ? (long long) v : -1;
}

static Span span_begin(void) {
        if (perf_process >= 0 && perf_own < 0)
                perf_own = open_faults(false);
        if (perf_process >= 0 && perf_own >= 0)
                return (Span) { true, read_count(perf_process), read_count(perf_own) };
        return (Span) { false, faults(RUSAGE_SELF), faults(RUSAGE_THREAD) };
}

static long long span_others(const Span *s) {
        long long own = s->perf ? read_count(perf_own) : faults(RUSAGE_THREAD);
        long long process = s->perf ? read_count(perf_process) : faults(RUSAGE_SELF);

        return process - s->process - (own - s->own);
}

/* Maps n fresh pages (no huge pages) and writes one byte to each: n page faults. */
static int touch(size_t n) {
        return fresh_pages_touch(n);
}

/* Names the thread, then touches its pages: the name first, so that a failure shows whose it is. */
static void *toucher(void *name) {
        int r;

        (void) prctl(PR_SET_NAME, name);
        record("tid", name, gettid());
        r = touch(pages);
        record("kernel-at-end", name, faults(RUSAGE_THREAD));
        return (void *) (intptr_t) r;
}

static int join(pthread_t t) {
        void *ret;

        return pthread_join(t, &ret) == 0 && ret == NULL ? 0 : -1;
}

/* A thread made by pthread_create (this module's) that names itself name and touches the pages. */
static int spawn(pthread_t *t, const char *name) {
        return pthread_create(t, NULL, toucher, (void *) name) == 0 ? 0 : -1;
}

/* getrusage's and gettid's code and the records' page too, so that no thread pays for paging them
 * in. */
static int warm_up(void) {
        memset(&records, 0, sizeof(records));
        perf_process = open_faults(true);
        if (gettid() <= 0 || faults(RUSAGE_SELF) < 0 || faults(RUSAGE_THREAD) < 0)
                return -1;
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

/* Without the race, main waits in pthread_join meanwhile: pt-other's life is the span's. */
static void *libc_thread(void *wait) {
        pthread_t t;
        Span s;

        (void) prctl(PR_SET_NAME, "pt-libc");
        record("tid", "pt-libc", gettid());
        (void) usleep(20 * 1000);
        if (wait)
                (void) pthread_barrier_wait(&start_line);
        s = span_begin();
        if (pthread_create(&t, NULL, lingering_toucher, (void *) "pt-other") != 0 || join(t) < 0)
                return (void *) 1;
        if (!wait)
                record("kernel-lives", "pt-other", span_others(&s));
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
        printf("LD_PRELOAD %s\n", getenv("LD_PRELOAD") ?: "unset");
        printf("PMAPI_INHERIT %s\n", getenv("PMAPI_INHERIT") ?: "unset");
        print_libpmapi();
        return libs == 0 ? 0 : 3;
}

static int run_threads(void) {
        pthread_t t;
        Span s;

        if (warm_up() < 0)
                return 1;
        s = span_begin();
        if (spawn(&t, "pt-first") < 0 || join(t) < 0)
                return 1;
        record("kernel-lives", "pt-first", span_others(&s));
        pages *= 2;
        s = span_begin();
        if (spawn(&t, "pt-second") < 0 || join(t) < 0)
                return 1;
        record("kernel-lives", "pt-second", span_others(&s));
        print_records();
        print_libpmapi();
        return 0;
}

static int run_fork(void) {
        struct rusage ru;
        Span s;
        int status;
        pid_t pid;

        if (warm_up() < 0)
                return 1;
        (void) fflush(NULL);
        s = span_begin();
        pid = fork();
        if (pid < 0)
                return 1;
        if (pid == 0) {
                (void) prctl(PR_SET_NAME, "pt-child");
                _exit(touch(pages) < 0 ? 1 : 0);
        }
        if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return 1;
        record("tid", "pt-child", pid);
        record("kernel-lives", "pt-child", s.perf ? span_others(&s) : ru.ru_minflt + ru.ru_majflt);
        print_records();
        print_libpmapi();
        return 0;
}

/* In the race the three threads' lives overlap: the kernel counts them together. */
static int run_late_first(bool race) {
        pthread_t other, own;
        int r = 0;
        Span all, s;

        if (warm_up() < 0)
                return 1;
        if (race && pthread_barrier_init(&start_line, NULL, 2) != 0)
                return 1;
        all = span_begin();
        if (libc_create(&other, NULL, libc_thread, (void *) (uintptr_t) race) != 0)
                return 1;
        if (race)
                (void) pthread_barrier_wait(&start_line);
        else if (join(other) < 0)
                return 1;
        else
                record("kernel-lives", "pt-libc,pt-other", span_others(&all));
        s = span_begin();
        if (spawn(&own, "pt-main") < 0 || join(own) < 0)
                r = 1;
        if (!race)
                record("kernel-lives", "pt-main", span_others(&s));
        if (race && join(other) < 0)
                r = 1;
        if (race)
                record("kernel-lives", "pt-libc,pt-main,pt-other", span_others(&all));
        print_records();
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
