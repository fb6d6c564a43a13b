/* calibrate.c: see calibrate.h. Each workload's true count is known from what it does, not from
 * another counter: pages touched, pipe round trips, affinity flips, a spin timed by the thread's
 * own CPU clock, a loop of a known number of instructions and branches. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "calibrate.h"
#include "macro.h"
#include "perf-syscall.h"

#define PAGES 2000
#define ROUND_TRIPS 200
#define FLIPS 20
#define SPIN_NS 200000000LL
#define LOOP_ITERATIONS 250000L

/* What a class's workload gave: the count, what it must be, and how close counts as verified and
 * as caveat (a slack in events, or a fraction in %). */
typedef struct Outcome {
        double measured, expected;
        double expected_high;           /* > expected: any count from expected to this is exact */
        double slack;                   /* |measured - expected| within this: verified */
        double verified_pct, caveat_pct;
        const char *unit;               /* "pages touched", ... */
        const char *why_not;            /* set: unverified for this reason */
} Outcome;

/* Opens e on the calling thread (user mode, and kernel mode when kernel), counts while work runs. */
static int count_during(const Event *e, bool kernel, void (*work)(void *), void *arg, double *ret) {
        struct perf_event_attr a = e->attr;
        uint64_t v = 0;
        int fd;

        a.size = sizeof(a);
        a.disabled = 1;
        a.exclude_kernel = !kernel;
        a.exclude_hv = 1;
        fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd < 0)
                return -errno;
        (void) ioctl(fd, PERF_EVENT_IOC_RESET, 0);
        (void) ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
        work(arg);
        (void) ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
        if (read(fd, &v, sizeof(v)) != sizeof(v)) {
                close(fd);
                return -EIO;
        }
        close(fd);
        *ret = (double) v;
        return 0;
}

/* Not instrumented: a sanitizer's own shadow writes would fault pages the workload does not touch
 * (ASan: one shadow page per 8 pages touched, 2250 faults for 2000). */
__attribute__((no_sanitize_address)) static void touch_pages(void *arg) {
        size_t n = *(size_t *) arg;
        long page = sysconf(_SC_PAGESIZE);
        volatile char *p = mmap(NULL, n * (size_t) page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

        if (p == MAP_FAILED)
                return;
        (void) madvise((void *) p, n * (size_t) page, MADV_NOHUGEPAGE);
        for (size_t i = 0; i < n; i++)
                p[i * (size_t) page] = 1;
        munmap((void *) p, n * (size_t) page);
}

static int faults(const Event *e, Outcome *o) {
        size_t warm = 16, n = PAGES;

        touch_pages(&warm);                     /* the workload's own code and stack, faulted in */
        *o = (Outcome) { .expected = n, .slack = 2, .caveat_pct = 5, .unit = "pages touched" };
        return count_during(e, false, touch_pages, &n, &o->measured);
}

typedef struct PingPong {
        int to_peer[2], from_peer[2];
} PingPong;

static void *pong(void *arg) {
        PingPong *pp = arg;
        char c;

        while (read(pp->to_peer[0], &c, 1) == 1 && c != 'q')
                if (write(pp->from_peer[1], &c, 1) != 1)
                        break;
        return NULL;
}

static void ping(void *arg) {
        PingPong *pp = arg;
        char c = 'p';

        for (int i = 0; i < ROUND_TRIPS; i++)
                if (write(pp->to_peer[1], &c, 1) != 1 || read(pp->from_peer[0], &c, 1) != 1)
                        return;
}

/* Each round trip blocks this thread on the pipe once: at least one switch each. */
static int context_switches(const Event *e, Outcome *o) {
        PingPong pp;
        pthread_t t;
        char q = 'q';
        int r;

        if (pipe2(pp.to_peer, O_CLOEXEC) < 0)
                return -errno;
        if (pipe2(pp.from_peer, O_CLOEXEC) < 0) {
                r = -errno;
                close(pp.to_peer[0]), close(pp.to_peer[1]);
                return r;
        }
        r = -pthread_create(&t, NULL, pong, &pp);
        if (r == 0) {
                *o = (Outcome) { .expected = ROUND_TRIPS, .verified_pct = 10, .caveat_pct = 50,
                                 .unit = "pipe round trips (kernel mode)" };
                r = count_during(e, true, ping, &pp, &o->measured);
                if (write(pp.to_peer[1], &q, 1) == 1)
                        pthread_join(t, NULL);
        }
        close(pp.to_peer[0]), close(pp.to_peer[1]), close(pp.from_peer[0]), close(pp.from_peer[1]);
        return r;
}

static void flip_cpus(void *arg) {
        const int *cpus = arg;

        for (int i = 0; i < FLIPS; i++) {
                cpu_set_t s;
                CPU_ZERO(&s);
                CPU_SET(cpus[i % 2], &s);
                (void) sched_setaffinity(0, sizeof(s), &s);
        }
}

/* Every flip moves the thread to the other CPU: one migration each. */
static int migrations(const Event *e, Outcome *o) {
        cpu_set_t all, start;
        int cpus[2] = { -1, -1 }, r;

        if (sched_getaffinity(0, sizeof(all), &all) < 0)
                return -errno;
        for (int c = 0, k = 0; c < CPU_SETSIZE && k < 2; c++)
                if (CPU_ISSET(c, &all))
                        cpus[k++] = c;
        *o = (Outcome) { .expected = FLIPS, .slack = 2, .caveat_pct = 25, .unit = "affinity flips (kernel mode)" };
        if (cpus[1] < 0) {
                o->why_not = "one CPU online: no migration to make";
                return 0;
        }
        CPU_ZERO(&start);
        CPU_SET(cpus[1], &start);               /* so that the first flip (to cpus[0]) moves */
        (void) sched_setaffinity(0, sizeof(start), &start);
        r = count_during(e, true, flip_cpus, cpus, &o->measured);
        (void) sched_setaffinity(0, sizeof(all), &all);
        return r;
}

static long long clock_ns(clockid_t id) {
        struct timespec ts;

        clock_gettime(id, &ts);
        return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The calling thread's time waiting on a run queue so far (schedstat's second field, ns), or -1. */
static long long run_delay_ns(void) {
        long long runtime, delay = -1;
        FILE *f = fopen("/proc/thread-self/schedstat", "re");

        if (!f)
                return -1;
        if (fscanf(f, "%lld %lld", &runtime, &delay) != 2)
                delay = -1;
        fclose(f);
        return delay;
}

typedef struct Spin {
        long long cpu_ns;               /* its CPU time, as the scheduler accounts it */
        long long on_cpu_ns;            /* its wall time less its run-queue wait, or -1 */
} Spin;

/* 200 ms of the thread's CPU time. perf's clocks count the time the thread is current: they hold
 * the interrupts and the time a hypervisor stole while it ran, which the scheduler's CPU time
 * leaves out (a CI run under load counted 2.37 % more than that). A spinner never sleeps, so its
 * wall time less its run-queue wait bounds that time from above (a run with two spinners beside it
 * gave 2.08 % more than perf's count, which matched the CPU time). The true count lies between the
 * two, whichever way a kernel and its hypervisor part them. */
static void spin(void *arg) {
        Spin *s = arg;
        long long start = clock_ns(CLOCK_THREAD_CPUTIME_ID), wall = clock_ns(CLOCK_MONOTONIC);
        long long delay = run_delay_ns();

        while (clock_ns(CLOCK_THREAD_CPUTIME_ID) - start < SPIN_NS)
                ;
        s->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - start;
        wall = clock_ns(CLOCK_MONOTONIC) - wall;
        if (delay >= 0) {
                long long waited = run_delay_ns() - delay;

                s->on_cpu_ns = waited >= 0 ? wall - waited : -1;
        }
}

/* A spin's time on a CPU: at least its CPU time, at most its wall time less its run-queue wait
 * (only the CPU time where the kernel keeps no such wait). */
static int clocks(const Event *e, Outcome *o) {
        Spin s = { 0, -1 };
        int r;

        *o = (Outcome) { .verified_pct = 1, .caveat_pct = 25,
                         .unit = "ns the thread was on a CPU (at least its CPU time, at most its wall time "
                                 "less its run-queue wait)" };
        r = count_during(e, false, spin, &s, &o->measured);
        o->expected = (double) s.cpu_ns;
        if (s.on_cpu_ns > s.cpu_ns)
                o->expected_high = (double) s.on_cpu_ns;
        if (s.on_cpu_ns < 0)
                o->unit = "ns of the thread's CPU time (no run-queue wait in /proc)";
        return r;
}

/* *arg iterations of two instructions, one of them a taken branch but the last. */
static void known_loop(void *arg) {
        long n = *(long *) arg;

#if defined(__x86_64__)
        __asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#elif defined(__aarch64__)
        __asm__ volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#endif
        (void) n;
}

/* The loop's own count: a run of 2 * LOOP_ITERATIONS less one of LOOP_ITERATIONS, so that what the
 * counting around it adds (the enable and disable calls' user-mode instructions) cancels; the least
 * of five runs of each, so that a timer interrupt landing in one (it adds instructions where the
 * PMU attributes some of its entry to user mode, as QEMU's does) does not count. The runs are short
 * (0.5 and 1 ms at 1 instruction a ns) next to a 250 Hz tick, so that some have none. */
static int loop_count(const Event *e, double *ret) {
        long lengths[2] = { LOOP_ITERATIONS, 2 * LOOP_ITERATIONS };
        double least[2] = { -1, -1 };

        for (int i = 0; i < 10; i++) {
                double v;
                int r = count_during(e, false, known_loop, &lengths[i % 2], &v);

                if (r < 0)
                        return r;
                if (least[i % 2] < 0 || v < least[i % 2])
                        least[i % 2] = v;
        }
        *ret = least[1] - least[0];
        return 0;
}

static int instructions(const Event *e, Outcome *o) {
        *o = (Outcome) { .expected = 2.0 * LOOP_ITERATIONS, .slack = 2000, .caveat_pct = 5,
                         .unit = "instructions of a known loop (user mode; 500,000 iterations less 250,000)" };
#if !defined(__x86_64__) && !defined(__aarch64__)
        o->why_not = "no known loop for this architecture";
        return 0;
#endif
        return loop_count(e, &o->measured);
}

static int branches(const Event *e, Outcome *o) {
        int r = instructions(e, o);

        o->expected = LOOP_ITERATIONS;
        o->slack = 500;
        o->unit = "branches of a known loop (user mode; 500,000 iterations less 250,000)";
        return r;
}

static int major_faults(const Event *e, Outcome *o) {
        (void) e;
        *o = (Outcome) { .why_not = "no workload with a known count: a major fault needs a page read from "
                                    "storage, and the page cache may hold it" };
        return 0;
}

static const struct {
        const char *event;
        int (*run)(const Event *e, Outcome *ret);
} workloads[] = {
        { "PM_PAGE_FLT",   faults },
        { "PM_MINOR_FLT",  faults },
        { "PM_MAJOR_FLT",  major_faults },
        { "PM_CTX_SW",     context_switches },
        { "PM_CPU_MIGR",   migrations },
        { "PM_TASK_CLOCK", clocks },
        { "PM_CPU_CLOCK",  clocks },
        { "PM_INST_CMPL",  instructions },
        { "PM_BR_CMPL",    branches },
};

/* The status an outcome earns, and the row that says so. */
static int judge(const char *name, const Outcome *o, int error, Calibration *ret) {
        double high = o->expected_high > o->expected ? o->expected_high : o->expected;
        double nearest = o->measured > high ? high : o->expected;
        double diff = o->measured >= o->expected && o->measured <= high ? 0 : fabs(o->measured - nearest);
        double pct = nearest > 0 ? 100.0 * diff / nearest : 0;
        Calibration c = { .short_name = strdup(name), .status = PM_UNVERIFIED };
        int n;

        if (error < 0)
                n = asprintf(&c.detail, "the workload failed: %s", strerror(-error));
        else if (o->why_not)
                n = asprintf(&c.detail, "%s", o->why_not);
        else {
                if (diff <= o->slack || pct <= o->verified_pct)
                        c.status = PM_VERIFIED;
                else if (pct <= o->caveat_pct)
                        c.status = PM_CAVEAT;
                c.tolerance_pct = c.status == PM_UNVERIFIED ? 0 : pct;
                if (high > o->expected)
                        n = asprintf(&c.detail, "%.0f for %.0f to %.0f %s", o->measured, o->expected, high,
                                     o->unit);
                else
                        n = asprintf(&c.detail, "%.0f for %.0f %s", o->measured, o->expected, o->unit);
        }
        if (n < 0)
                c.detail = NULL;
        if (!c.short_name || !c.detail) {
                free(c.short_name);
                free(c.detail);
                return -ENOMEM;
        }
        *ret = c;
        return 0;
}

static int calibrate_row(const EventTable *t, const EventDef *d, Calibration *ret) {
        const Event *e = event_table_find(t, d->id);
        Outcome o = {};
        int r = 0;

        if (!e)
                o.why_not = "does not open here (no CPU PMU reachable, or the kernel refuses it)";
        else {
                o.why_not = "no calibration workload for this class of event";
                for (size_t k = 0; k < ELEMENTSOF(workloads); k++)
                        if (strcmp(workloads[k].event, d->short_name) == 0) {
                                o.why_not = NULL;
                                r = workloads[k].run(e, &o);
                                break;
                        }
        }
        return judge(d->short_name, &o, r, ret);
}

int calibrate_run(const EventTable *t, CalibrationReport *ret) {
        CalibrationReport rep = { .kernel = calibration_kernel() };
        time_t now = time(NULL);
        struct tm tm;
        char when[32];
        size_t n = 0;
        int r;

        for (size_t s = 0; s < n_event_sources; s++)
                n += event_sources[s]->n_rows;
        strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
        rep.when = strdup(when);
        rep.rows = calloc(n ? n : 1, sizeof(Calibration));
        if (!rep.kernel || !rep.when || !rep.rows) {
                calibration_report_done(&rep);
                return -ENOMEM;
        }
        for (size_t s = 0; s < n_event_sources; s++)
                for (size_t i = 0; i < event_sources[s]->n_rows; i++) {
                        r = calibrate_row(t, &event_sources[s]->rows[i], &rep.rows[rep.n_rows]);
                        if (r < 0) {
                                calibration_report_done(&rep);
                                return r;
                        }
                        rep.n_rows++;
                }
        *ret = rep;
        return 0;
}

static const char *status_name(int status) {
        return status == PM_VERIFIED ? "verified" : status == PM_CAVEAT ? "caveat" : "unverified";
}

void calibration_print(const CalibrationReport *r, FILE *f) {
        fprintf(f, "# calibration on Linux %s at %s\n", r->kernel, r->when);
        for (size_t i = 0; i < r->n_rows; i++) {
                const Calibration *c = &r->rows[i];
                fprintf(f, "%-16s %-10s %7.2f%%  %s\n", c->short_name, status_name(c->status), c->tolerance_pct,
                        c->detail);
        }
}
