/* s1-single-thread.c: scenario S1 of the AIX Performance Monitor API programming guide, on Linux.
 * The calling thread programs four events, counts a workload whose true counts are known between
 * pm_start_mythread() and pm_stop_mythread(), and prints what it counted beside what it expected.
 *
 *   s1-single-thread [--pages N] [--sleeps N] [--hold-ms MS]
 *
 * --hold-ms keeps the context alive after the read, so that `busctl tree org.pmapi.PerfMon1` can
 * show it. Exits 0 when every count lies between references right by construction: the pages touched
 * and the kernel's own count of the thread's faults around the start and stop calls
 * (getrusage(RUSAGE_THREAD)) for the faults, the kernel's count of its switches for the switches, the
 * thread's CPU clock for the task clock. Build: cc s1.c -lpmapi
 *
 * Scenario S2 (a debugger on S1): s1_breakpoint() marks point (1), half-way through the work. A
 * debugger stopped there may read and reprogram this thread from outside (pm_*_thread, pmctl);
 * the calls below then work on its new context, and S1 prints what that context counted, without
 * judging counts it did not program. */
#ifndef _GNU_SOURCE             /* RUSAGE_THREAD, gettid(), when built alone with cc */
#define _GNU_SOURCE
#endif
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <pmapi.h>

static const char *status_name(int s) {
        return s == PM_VERIFIED ? "verified" : s == PM_CAVEAT ? "caveat" : "unverified";
}

static const pm_events_t *find(const pm_info_t *info, const char *name) {
        for (int i = 0; i < info->maxevents[0]; i++)
                if (strcmp(info->list_events[0][i].short_name, name) == 0)
                        return &info->list_events[0][i];
        return NULL;
}

static void touch_pages(long n) {
        long page = sysconf(_SC_PAGESIZE);
        volatile char *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

        if (p == MAP_FAILED)
                return;
        madvise((void *) p, n * page, MADV_NOHUGEPAGE);         /* one fault per 4 KiB page */
        for (long i = 0; i < n; i++)
                p[i * page] = 1;
        munmap((void *) p, n * page);
}

/* Point (1) of the programming guide: `break s1_breakpoint` in a debugger. */
__attribute__((noinline)) void s1_breakpoint(void) {
        __asm__ volatile("" ::: "memory");
}

static bool same_program(const pm_prog_t *a, const pm_prog_t *b) {
        for (int c = 0; c < MAX_COUNTERS; c++)
                if (a->events[c] != b->events[c])
                        return false;
        return true;
}

static const char *event_name(const pm_info_t *info, int id) {
        for (int i = 0; i < info->maxevents[0]; i++)
                if (info->list_events[0][i].event_id == id)
                        return info->list_events[0][i].short_name;
        return id == COUNT_NOTHING ? "-" : "?";
}

/* What a context a debugger set counted: its events, no expectations. */
static void print_foreign(const pm_info_t *info, const pm_prog_t *now, const pm_data_t *data) {
        printf("the program was changed from outside (a debugger?): counts of its events\n\n");
        printf("%-3s %-14s %16s\n", "ctr", "event", "counted");
        for (int c = 0; c < MAX_COUNTERS; c++)
                if (now->events[c] != COUNT_NOTHING)
                        printf("%-3d %-14s %16lld\n", c, event_name(info, now->events[c]), data->accu[c]);
}

/* The kernel's own counts of this thread's context switches, voluntary or not, and of its page
 * faults: the truth for PM_CTX_SW and the faults, whatever else the machine is doing. */
static long long thread_switches(void) {
        struct rusage ru;
        getrusage(RUSAGE_THREAD, &ru);
        return ru.ru_nvcsw + ru.ru_nivcsw;
}

static long long thread_faults(void) {
        struct rusage ru;
        getrusage(RUSAGE_THREAD, &ru);
        return ru.ru_minflt + ru.ru_majflt;
}

static long long thread_cpu_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char *argv[]) {
        static const char *const names[] = { "PM_PAGE_FLT", "PM_MINOR_FLT", "PM_CTX_SW", "PM_TASK_CLOCK" };
        long pages = 10000, sleeps = 50, hold_ms = 0;
        const pm_events_t *ev[4];
        long long cpu_ns, switches, faults, lo[4], hi[4];
        pm_info_t info;
        pm_prog_t prog, now;
        pm_data_t data;
        int rc, failed = 0;

        for (int i = 1; i + 1 < argc; i += 2) {
                if (strcmp(argv[i], "--pages") == 0)
                        pages = atol(argv[i + 1]);
                else if (strcmp(argv[i], "--sleeps") == 0)
                        sleeps = atol(argv[i + 1]);
                else if (strcmp(argv[i], "--hold-ms") == 0)
                        hold_ms = atol(argv[i + 1]);
        }

        rc = pm_init(PM_VERIFIED | PM_CAVEAT | PM_UNVERIFIED, &info);
        if (rc) {
                pm_error("pm_init", rc);
                return 1;
        }
        prog.mode.w = 0;
        prog.mode.b.user = 1;
        prog.mode.b.kernel = 1;         /* context switches happen in the kernel */
        for (int c = 0; c < MAX_COUNTERS; c++)
                prog.events[c] = COUNT_NOTHING;
        for (int i = 0; i < 4; i++) {
                ev[i] = find(&info, names[i]);
                if (!ev[i]) {
                        fprintf(stderr, "event %s is not available here\n", names[i]);
                        return 1;
                }
                prog.events[i] = ev[i]->event_id;
        }
        rc = pm_set_program_mythread(&prog);
        if (rc) {
                pm_error("pm_set_program_mythread", rc);
                return 1;
        }

        touch_pages(123);                       /* before the start: not counted */
        switches = thread_switches();
        faults = thread_faults();
        rc = pm_start_mythread();
        if (rc) {
                pm_error("pm_start_mythread", rc);
                return 1;
        }
        cpu_ns = thread_cpu_ns();
        touch_pages(pages / 2);                 /* the work W, in two halves around point (1) */
        s1_breakpoint();
        touch_pages(pages - pages / 2);
        for (long i = 0; i < sleeps; i++)
                usleep(100);
        cpu_ns = thread_cpu_ns() - cpu_ns;
        rc = pm_stop_mythread();
        switches = thread_switches() - switches;
        faults = thread_faults() - faults;
        if (!rc)
                rc = pm_get_data_mythread(&data);
        if (!rc)
                rc = pm_get_program_mythread(&now);
        if (rc) {
                pm_error("pm_get_data_mythread", rc);
                return 1;
        }

        if (!same_program(&prog, &now)) {
                print_foreign(&info, &now, &data);
                rc = pm_delete_program_mythread();
                if (rc)
                        pm_error("pm_delete_program_mythread", rc);
                return rc ? 1 : 0;
        }
        /* Faults: each fresh page faults once, and the kernel counts every fault of the thread from
         * before the start to after the stop, the calls' own included. Switches: at most the
         * kernel's count around the start and stop calls, which it counts whole and the counters only
         * in part (their waits on the bus). Task clock: the thread's CPU clock within 2 % plus the
         * two calls around the work, less up to 20 us per switch: the CPU clock runs on through the
         * scheduler's switch, the task-clock event stops at its start. */
        lo[0] = lo[1] = pages;
        hi[0] = hi[1] = faults;
        lo[2] = switches - 6;
        hi[2] = switches;
        lo[3] = cpu_ns * 98 / 100 - switches * 20000;
        hi[3] = cpu_ns * 102 / 100 + 2000000;
        printf("pmapi S1 on %s: pid %d, thread %d, uid %d\n", info.proc_name, (int) getpid(), (int) gettid(),
               (int) getuid());
        printf("work: %ld fresh pages touched, %ld sleeps of 100 us; the kernel counted %lld faults and %lld\n"
               "switches of this thread from before the start to after the stop, and %lld ns of CPU\n\n",
               pages, sleeps, faults, switches, cpu_ns);
        printf("%-3s %-14s %-10s %16s %33s  %s\n", "ctr", "event", "status", "counted", "expected", "");
        for (int i = 0; i < 4; i++) {
                bool ok = data.accu[i] >= lo[i] && data.accu[i] <= hi[i];
                printf("%-3d %-14s %-10s %16lld %16lld..%-15lld  %s\n", i, ev[i]->short_name,
                       status_name(ev[i]->status), data.accu[i], lo[i], hi[i], ok ? "ok" : "OUT OF RANGE");
                failed |= !ok;
        }
        for (int c = 4; c < MAX_COUNTERS; c++)
                failed |= data.accu[c] != 0;
        printf("(counters 4-7: COUNT_NOTHING, read %s)\n", failed ? "see above" : "0");

        if (hold_ms > 0) {
                printf("holding the context for %ld ms: busctl tree org.pmapi.PerfMon1\n", hold_ms);
                fflush(stdout);
                usleep(hold_ms * 1000);
        }
        rc = pm_delete_program_mythread();
        if (rc) {
                pm_error("pm_delete_program_mythread", rc);
                return 1;
        }
        return failed;
}
