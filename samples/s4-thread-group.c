/* s4-thread-group.c: scenario S4 of the AIX Performance Monitor API programming guide, on Linux,
 * with more threads. The main thread creates a counting group and starts it; the threads it then
 * creates inherit the program, the counting state and the membership; each counts its own work;
 * the group's data is the sum of every member's, including members that have exited.
 *
 *   s4-thread-group [--threads N] [--pages N] [--hold-ms MS]
 *
 * Thread i touches (i + 1) * pages fresh pages. --hold-ms keeps the group alive after the read so
 * that `busctl tree org.pmapi.PerfMon1` can show it. Exits 0 when the group equals the sum of its
 * members exactly and every member's count lies between two references right by construction: the
 * pages it touched (each fresh page faults once in user mode) and the kernel's own count of every
 * fault of the thread, getrusage(RUSAGE_THREAD), taken after its stop (a member counts from its
 * first instruction, its start-up's faults included; the kernel's count also has the faults taken
 * in kernel mode, which a user-mode program does not count). Build: cc s4.c -lpmapi -pthread */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <pmapi.h>

#define MAX_THREADS 64

typedef struct Member {
        long pages;
        pid_t tid;
        long long faults;       /* the kernel's count of the thread's faults, after its stop */
        pm_data_t data;
        int rc;
} Member;

/* Every page fault of the calling thread since it was created, as the kernel counts them. */
static long long thread_faults(void) {
        struct rusage ru;

        getrusage(RUSAGE_THREAD, &ru);
        return ru.ru_minflt + ru.ru_majflt;
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

/* Counts from its first instruction: it inherited "counting" from main. */
static void *member(void *p) {
        Member *m = p;

        touch_pages(m->pages);
        m->tid = gettid();
        m->rc = pm_stop_mythread();
        m->faults = thread_faults();
        if (m->rc == 0)
                m->rc = pm_get_data_mythread(&m->data);
        return NULL;
}

/* One row: a member's counts, the kernel's count of its faults while it counted (main) or in its
 * whole life (the others), and whether each count lies between the pages touched and the kernel's. */
static bool report(const char *name, pid_t tid, long pages, long long faults, const pm_data_t *data) {
        bool ok = true;

        for (int k = 0; k < 2; k++)
                ok &= data->accu[k] >= pages && data->accu[k] <= faults;
        printf("%-8s %-8d %12ld %14lld %14lld %14lld  %s\n", name, (int) tid, pages, data->accu[0], data->accu[1],
               faults, ok ? "ok" : "OUT OF RANGE");
        return ok;
}

static int find(const pm_info_t *info, const char *name) {
        for (int i = 0; i < info->maxevents[0]; i++)
                if (strcmp(info->list_events[0][i].short_name, name) == 0)
                        return info->list_events[0][i].event_id;
        return -1;
}

int main(int argc, char *argv[]) {
        long n_threads = 3, pages = 1000, hold_ms = 0;
        Member members[MAX_THREADS] = {};
        pthread_t threads[MAX_THREADS];
        long long sum[2] = {}, main_faults;
        pm_data_t mine, group;
        pm_info_t info;
        pm_prog_t prog;
        bool ok = true;
        int rc;

        for (int i = 1; i + 1 < argc; i += 2) {
                if (strcmp(argv[i], "--threads") == 0)
                        n_threads = atol(argv[i + 1]);
                else if (strcmp(argv[i], "--pages") == 0)
                        pages = atol(argv[i + 1]);
                else if (strcmp(argv[i], "--hold-ms") == 0)
                        hold_ms = atol(argv[i + 1]);
        }
        if (n_threads < 1 || n_threads > MAX_THREADS) {
                fprintf(stderr, "--threads must be 1..%d\n", MAX_THREADS);
                return 2;
        }

        rc = pm_init(PM_VERIFIED, &info);
        if (rc) {
                pm_error("pm_init", rc);
                return 1;
        }
        prog.mode.w = 0;
        prog.mode.b.user = 1;                   /* counting off: the group is started below */
        for (int c = 0; c < MAX_COUNTERS; c++)
                prog.events[c] = COUNT_NOTHING;
        prog.events[0] = find(&info, "PM_PAGE_FLT");
        prog.events[1] = find(&info, "PM_MINOR_FLT");
        rc = pm_set_program_mygroup(&prog);
        main_faults = thread_faults();
        if (!rc)
                rc = pm_start_mygroup();        /* the group and this thread */
        if (rc) {
                pm_error("pm_set_program_mygroup", rc);
                return 1;
        }
        for (long i = 0; i < n_threads; i++) {
                members[i].pages = (i + 1) * pages;
                if (pthread_create(&threads[i], NULL, member, &members[i]) != 0) {
                        perror("pthread_create");
                        return 1;
                }
        }
        touch_pages(pages / 2);                 /* main's own work */
        rc = pm_stop_mythread();
        main_faults = thread_faults() - main_faults;
        if (!rc)
                rc = pm_get_data_mythread(&mine);
        for (long i = 0; i < n_threads; i++)
                pthread_join(threads[i], NULL);  /* they have exited: their counts stay */
        if (!rc)
                rc = pm_get_data_mygroup(&group);
        if (rc) {
                pm_error("pm_get_data_mygroup", rc);
                return 1;
        }

        printf("pmapi S4 on %s: pid %d, %ld threads created by a group member, uid %d\n\n", info.proc_name,
               (int) getpid(), n_threads, (int) getuid());
        printf("kernel's: the thread's page faults as the kernel counts them (getrusage), in its whole life\n"
               "(main: while it counted); each count lies between the pages touched and the kernel's\n\n");
        printf("%-8s %-8s %12s %14s %14s %14s  %s\n", "member", "tid", "pages", "PM_PAGE_FLT", "PM_MINOR_FLT",
               "kernel's", "");
        ok &= report("main", getpid(), pages / 2, main_faults, &mine);
        for (int k = 0; k < 2; k++)
                sum[k] = mine.accu[k];
        for (long i = 0; i < n_threads; i++) {
                Member *m = &members[i];
                char name[16];

                snprintf(name, sizeof(name), "%ld", i + 1);
                ok &= m->rc == 0 && report(name, m->tid, m->pages, m->faults, &m->data);
                for (int k = 0; k < 2; k++)
                        sum[k] += m->data.accu[k];
        }
        printf("%-8s %-8s %12s %14lld %14lld\n", "sum", "", "", sum[0], sum[1]);
        printf("%-8s %-8s %12s %14lld %14lld %14s  %s\n", "group", "", "", group.accu[0], group.accu[1], "",
               group.accu[0] == sum[0] && group.accu[1] == sum[1] ? "= sum" : "!= sum");
        printf("\nginfo: members %d (live and exited), consistent %d, process %d\n", group.ginfo.members,
               group.ginfo.flags.b.consistent, group.ginfo.flags.b.process);
        ok &= group.accu[0] == sum[0] && group.accu[1] == sum[1];
        ok &= group.ginfo.members == n_threads + 1 && group.ginfo.flags.b.consistent == 1;

        if (hold_ms > 0) {
                printf("holding the group for %ld ms: busctl tree org.pmapi.PerfMon1\n", hold_ms);
                fflush(stdout);
                usleep(hold_ms * 1000);
        }
        rc = pm_delete_program_mygroup();
        if (rc) {
                pm_error("pm_delete_program_mygroup", rc);
                return 1;
        }
        return ok ? 0 : 1;
}
