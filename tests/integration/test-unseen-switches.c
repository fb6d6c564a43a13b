/* test-unseen-switches.c: a born thread's clocks and page faults are exact even where the scheduler's tracepoint
 * does not show every switch. On the VM this was written on, no switch away from PID 1's threads
 * reaches sched_switch's programs (perf record sees none either), so a slice that began there was
 * ambiguous and lost its clocks: a `pmcount -I 100` spin lost 9 to 50 % of its task clock while two
 * spinners kept the CPUs busy. Here the test makes switches unseen on purpose, as that PID 1 did:
 * it writes a task that is not running into pmapid's per-CPU note of the last task switched in,
 * every 200 us, while a born thread spins for its own 200 ms of CPU time, in 1 ms slices. Its PM_TASK_CLOCK and
 * PM_CPU_CLOCK must hold at least perf's own task clock of it (read just before it blocks) and no
 * more than its wall time, with many of its slices ambiguous. Not its CPU time: the scheduler's
 * runtime of a thread starts at the clock of the wakeup that brings it back, before the switch to
 * it, and on this VM each such slice took 5 to 12 us more than perf's task clock of it (1 to 2.5 ms
 * more over 200 slices); the clocks of a slice timed from switch to switch fell under it 1 run in 18
 * (docs/testing.md, "Which clock a clock is checked against"). The writer and the
 * thread run on two different CPUs: on one, the writer's own switches would show the thread coming
 * back in after each write (a CI run found 0 ambiguous slices so). The read waits for the thread's
 * switch after it took its CPU time: its counts are as of its last switch (a CI run read 18 us
 * short before that switch). The same holds for its page faults (PM_PAGE_FLT, PM_MINOR_FLT), which
 * such a slice takes from the task's own fault counts: the CPU's count since the last switch seen
 * may hold the unseen task's faults (a CI run's burst of born threads counted more than getrusage
 * said) or, where that task was pmapid, was dropped. The second test names pmapid in the note: a
 * slice that took the CPU's count would lose every fault. The third names a helper that sleeps,
 * while a born thread's faults sleep across its slices' ends (a userfaultfd): each counts once,
 * where no other task faulted on that CPU meanwhile (the pokes overwrite that task's note).
 * The fourth needs no pokes: threads whose faults sleep on mmap_lock, where the machine's own
 * switches go unseen, count exactly what perf counts of them. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "bpf/heirs-abi.h"
#include "bus-fixture.h"
#include "fresh-pages.h"
#include "pmapi.h"
#include "workload.h"

static BusFixture fixture;

#define SPIN_NS 200000000LL
#define CHUNK_NS 1000000LL
#define POKE_US 200
#define TOUCH_ROUNDS 200
#define TOUCH_PAGES 4

/* An fd of pmapid's map named name (found among the fds pmapid holds), or -1. */
static int pmapid_map(const char *name) {
        char path[64];
        DIR *d;
        struct dirent *e;
        int found = -1;

        snprintf(path, sizeof(path), "/proc/%d/fdinfo", (int) fixture.daemon_pid);
        d = opendir(path);
        if (!d)
                return -1;
        while (found < 0 && (e = readdir(d))) {
                char file[320], line[128];
                unsigned id = 0;
                FILE *f;

                if (e->d_name[0] == '.')
                        continue;
                snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
                f = fopen(file, "re");
                if (!f)
                        continue;
                while (fgets(line, sizeof(line), f))
                        if (sscanf(line, "map_id: %u", &id) == 1)
                                break;
                fclose(f);
                if (id != 0) {
                        struct bpf_map_info info = {};
                        uint32_t len = sizeof(info);
                        int fd = bpf_map_get_fd_by_id(id);

                        if (fd >= 0 && bpf_obj_get_info_by_fd(fd, &info, &len) == 0 && strcmp(info.name, name) == 0)
                                found = fd;
                        else if (fd >= 0)
                                close(fd);
                }
        }
        closedir(d);
        return found;
}

static long long clock_ns(clockid_t id) {
        struct timespec t;

        assert_int_equal(clock_gettime(id, &t), 0);
        return t.tv_sec * 1000000000LL + t.tv_nsec;
}

typedef struct Spinner {
        pid_t tid;
        long long cpu_ns, wall_ns;      /* its CPU time and wall time from its start to its end */
        long long task_clock_ns;        /* perf's task clock of it, from its first lines to cpu_ns */
        long long faults;               /* its page faults (getrusage) when it took cpu_ns */
        long long switches;             /* its context switches when it took cpu_ns */
        int rc;
        pthread_mutex_t lock;
        pthread_cond_t cond;
        bool done, release;
        bool ready, stop;               /* stand_by(): past its first faults; spin no more */
} Spinner;

/* The context switches of thread tid of this process so far (voluntary and not), or -1. */
static long long thread_switches(pid_t tid) {
        char path[64], line[128];
        long long n = 0, v;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int) tid);
        f = fopen(path, "re");
        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "voluntary_ctxt_switches: %lld", &v) == 1 ||
                    sscanf(line, "nonvoluntary_ctxt_switches: %lld", &v) == 1)
                        n += v;
        fclose(f);
        return n;
}

/* What pmapid's counts map holds of thread tid: its slices and the runtime at its last one. */
static void print_counts(pid_t tid) {
        int map = pmapid_map("counts");
        struct heirs_counts n;

        if (map >= 0 && bpf_map_lookup_elem(map, &(uint32_t) { (uint32_t) tid }, &n) == 0)
                print_message("# its counts in the map: %u slices (%lld switches), runtime %llu ns at the last, "
                              "%llu faults\n", n.slices, thread_switches(tid), (unsigned long long) n.runtime_ns,
                              (unsigned long long) (n.min_flt + n.maj_flt));
        if (map >= 0)
                close(map);
}

/* perf's task clock of the calling thread, both modes (the clock PM_TASK_CLOCK is), or -1. */
static int own_task_clock(void) {
        struct perf_event_attr a = {
                .type = PERF_TYPE_SOFTWARE,
                .size = sizeof(a),
                .config = PERF_COUNT_SW_TASK_CLOCK,
        };

        return (int) syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Says the thread is done and blocks until released: that switch ends its last slice. */
static void finish(Spinner *s, long long start) {
        pthread_mutex_lock(&s->lock);
        s->wall_ns = clock_ns(CLOCK_MONOTONIC) - start;
        s->done = true;
        pthread_cond_broadcast(&s->cond);
        while (!s->release)
                pthread_cond_wait(&s->cond, &s->lock);
        pthread_mutex_unlock(&s->lock);
}

/* Spins until its own CPU time is SPIN_NS, sleeping 50 us after each millisecond of it (a switch
 * away each time, whatever the machine's load), says so, and blocks: that switch ends its last
 * slice. */
static void *spin(void *arg) {
        Spinner *s = arg;
        long long start = clock_ns(CLOCK_MONOTONIC), now, next = CHUNK_NS;
        int task_clock;

        s->tid = (pid_t) syscall(SYS_gettid);
        task_clock = own_task_clock();
        while ((now = clock_ns(CLOCK_THREAD_CPUTIME_ID)) < SPIN_NS)
                if (now >= next) {
                        usleep(50);
                        next = now + CHUNK_NS;
                }
        s->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
        s->task_clock_ns = task_clock >= 0 ? perf_read(task_clock) : -1;
        s->switches = thread_switches(s->tid);
        finish(s, start);
        return NULL;
}

/* Touches TOUCH_PAGES fresh pages, spins a millisecond of its CPU time (for the writes to land
 * in) and sleeps 50 us (a switch away), TOUCH_ROUNDS times; notes its own faults and switches,
 * says so, and blocks. */
static void *touch(void *arg) {
        Spinner *s = arg;
        long long start = clock_ns(CLOCK_MONOTONIC);

        s->tid = (pid_t) syscall(SYS_gettid);
        for (int i = 0; i < TOUCH_ROUNDS && s->rc == 0; i++) {
                long long until = clock_ns(CLOCK_THREAD_CPUTIME_ID) + CHUNK_NS;

                s->rc = touch_fresh_pages(TOUCH_PAGES);
                while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < until)
                        ;
                usleep(50);
        }
        s->switches = thread_switches(s->tid);
        s->faults = thread_faults();
        finish(s, start);
        return NULL;
}

/* Two CPUs the calling thread may run on, which is then kept to the first; *saved: its CPUs before.
 * Skips with one: every write of the note would be undone by the writer's own switch. */
static void two_cpus(cpu_set_t *saved, int *first, int *second) {
        cpu_set_t mine;

        *first = *second = -1;
        assert_int_equal(sched_getaffinity(0, sizeof(*saved), saved), 0);
        for (int c = 0; c < CPU_SETSIZE && (*first < 0 || *second < 0); c++)
                if (CPU_ISSET(c, saved)) {
                        if (*first < 0)
                                *first = c;
                        else
                                *second = c;
                }
        if (*second < 0)
                skip();
        CPU_ZERO(&mine);
        CPU_SET(*first, &mine);
        assert_int_equal(sched_setaffinity(0, sizeof(mine), &mine), 0);
}

/* fn(arg) on a new thread kept to cpu. */
static void start_on(int cpu, pthread_t *t, void *(*fn)(void *), void *arg) {
        pthread_attr_t attr;
        cpu_set_t theirs;

        CPU_ZERO(&theirs);
        CPU_SET(cpu, &theirs);
        assert_int_equal(pthread_attr_init(&attr), 0);
        assert_int_equal(pthread_attr_setaffinity_np(&attr, sizeof(theirs), &theirs), 0);
        assert_int_equal(pthread_create(t, &attr, fn, arg), 0);
        pthread_attr_destroy(&attr);
}

/* Counts events (names, COUNT_NOTHING after the last) on the calling thread, runs fn on a born
 * thread on one CPU while this one, on another, writes note into pmapid's per-CPU note of the last
 * task switched in every POKE_US; reads the born thread's data once its last switch went by.
 * Returns the slices made ambiguous meanwhile; skips with one CPU or without kernel inheritance. */
static uint64_t run_poked(const char *const names[MAX_COUNTERS], int mode, void *(*fn)(void *), Spinner *s,
                          uint32_t note_tid, uint32_t note_tgid, pm_data_t *d) {
        int ncpu = libbpf_num_possible_cpus(), map, pokes = 0, first, second;
        struct heirs_last_seen *note;
        uint64_t ambiguous;
        pm_info_t info;
        pm_prog_t prog;
        cpu_set_t saved;
        pthread_t t;
        bool done = false;

        if (!kernel_inheritance())
                skip();
        map = pmapid_map("last_next");
        assert_true(map >= 0);
        assert_true(ncpu > 0);
        note = calloc((size_t) ncpu, sizeof(*note));
        assert_non_null(note);
        for (int i = 0; i < ncpu; i++) {
                note[i].tid = note_tid;
                note[i].tgid = note_tgid;
        }

        assert_int_equal(pm_init(PM_VERIFIED | PM_CAVEAT, &info, NULL), 0);
        memset(&prog, 0, sizeof(prog));
        for (int i = 0; i < MAX_COUNTERS; i++) {
                prog.events[i] = COUNT_NOTHING;
                if (names[i])
                        assert_true((prog.events[i] = find_event_id(&info, names[i])) >= 0);
        }
        prog.mode.w = mode | PM_COUNT;
        assert_int_equal(pm_set_program_mythread(&prog), 0);
        ambiguous = ambiguous_slices();

        /* The writer on one CPU, the thread on another. */
        two_cpus(&saved, &first, &second);
        start_on(second, &t, fn, s);
        while (!done) {
                assert_int_equal(bpf_map_update_elem(map, &(uint32_t) { 0 }, note, BPF_ANY), 0);
                pokes++;
                usleep(POKE_US);
                pthread_mutex_lock(&s->lock);
                done = s->done;
                pthread_mutex_unlock(&s->lock);
        }
        assert_int_equal(sched_setaffinity(0, sizeof(saved), &saved), 0);
        /* Its counts are as of its last switch: wait for the one after it noted its own (it blocks). */
        for (int i = 0; i < 1000 && thread_switches(s->tid) <= s->switches; i++)
                usleep(1000);
        assert_true(s->switches >= 0 && thread_switches(s->tid) > s->switches);
        ambiguous = ambiguous_slices() - ambiguous;
        assert_int_equal(pm_get_data_thread(getpid(), s->tid, d), 0);
        print_counts(s->tid);

        pthread_mutex_lock(&s->lock);
        s->release = true;
        pthread_cond_broadcast(&s->cond);
        pthread_mutex_unlock(&s->lock);
        assert_int_equal(pthread_join(t, NULL), 0);
        assert_int_equal(pm_delete_program_mythread(), 0);
        print_message("# %d pokes, %llu slices ambiguous\n", pokes, (unsigned long long) ambiguous);
        free(note);
        close(map);
        return ambiguous;
}

/* perf's task clock of a thread runs from just after its switch in to just before its switch out,
 * a slice from the switch tracepoint to the next: the two part by a microsecond or two a switch,
 * either way (test-live-reads). Slices by runtime count more than either (docs/testing.md). */
#define SWITCH_SLACK_NS 5000LL

static void test_born_clocks_survive_unseen_switches(void **state) {
        static const char *const names[MAX_COUNTERS] = { "PM_TASK_CLOCK", "PM_CPU_CLOCK" };
        Spinner s = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
        pm_data_t d;
        uint64_t ambiguous;

        (void) state;
        /* PID 1: never counted, and not running here */
        ambiguous = run_poked(names, PM_USER | PM_KERNEL, spin, &s, 1, 1, &d);
        print_message("# born thread: %lld ns of CPU (perf's task clock %lld) in %lld ns; PM_TASK_CLOCK %lld, "
                      "PM_CPU_CLOCK %lld\n", s.cpu_ns, s.task_clock_ns, s.wall_ns, d.accu[0], d.accu[1]);
        /* the pokes did make most of its 200 slices ambiguous, or this proves nothing */
        assert_true(ambiguous >= 50);
        assert_true(s.task_clock_ns > 0 && s.switches > 0);
        for (int i = 0; i < 2; i++) {
                assert_true(d.accu[i] >= s.task_clock_ns - SWITCH_SLACK_NS * s.switches);
                assert_true(d.accu[i] <= s.wall_ns);
        }
}

/* mode: both modes take the task's own faults; user mode only the lesser of those and the CPU's. */
static void faults_survive(int mode) {
        static const char *const names[MAX_COUNTERS] = { "PM_PAGE_FLT", "PM_MINOR_FLT" };
        Spinner s = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
        uint32_t daemon = (uint32_t) fixture.daemon_pid;
        pm_data_t d;
        uint64_t ambiguous;

        /* pmapid: the CPU's faults since then are never a counted task's */
        ambiguous = run_poked(names, mode, touch, &s, daemon, daemon, &d);
        print_message("# born thread, mode 0x%x: %d pages touched, %lld faults by getrusage; PM_PAGE_FLT %lld, "
                      "PM_MINOR_FLT %lld\n", mode, TOUCH_ROUNDS * TOUCH_PAGES, s.faults, d.accu[0], d.accu[1]);
        assert_int_equal(s.rc, 0);
        assert_true(ambiguous >= TOUCH_ROUNDS / 4);   /* or this proves nothing */
        /* from its first instruction to its block, after it noted its faults (which faults no more) */
        for (int i = 0; i < 2; i++) {
                assert_true(d.accu[i] >= TOUCH_ROUNDS * TOUCH_PAGES);
                assert_int_equal(d.accu[i], s.faults);
        }
}

static void test_born_faults_survive_unseen_switches(void **state) {
        (void) state;
        faults_survive(PM_USER | PM_KERNEL);
        faults_survive(PM_USER);
}

/* A fault in flight where its slice ends unseen: perf counted it as it started, the task's own
 * counts take it as it ends, in a later slice, which does not take its start. A slice of user-mode
 * faults that took the lesser of the task's own count and the CPU's lost it (test-soak's born
 * threads lost one that slept on mmap_lock, 1 run in 30). Here a born thread's faults wait on a
 * userfaultfd that this thread answers once the faulting thread sleeps, while the note names a
 * helper that sleeps too, as the VM's PID 1 threads do that come and go unseen: the CPU's count
 * less the helper's faults (none) is one more than the thread's own. Each round sleeps first, so
 * that the slice that ends in the fault holds no other fault's end. */
#define FLIGHT_ROUNDS 100

typedef struct Flier {
        Spinner s;
        volatile char *pages;
        int cpu_fd;                     /* its CPU's faults, every task's (-1: none) */
        long long cpu_faults[2];        /* that count before it was made and as it ended */
} Flier;

static void *fly(void *arg) {
        Flier *f = arg;
        long long start = clock_ns(CLOCK_MONOTONIC);
        long page = sysconf(_SC_PAGESIZE);

        f->s.tid = (pid_t) syscall(SYS_gettid);
        for (int i = 0; i < FLIGHT_ROUNDS; i++) {
                long long until;

                usleep(50);
                until = clock_ns(CLOCK_THREAD_CPUTIME_ID) + CHUNK_NS;
                while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < until)
                        ;
                f->pages[i * page] = 1;         /* sleeps until answered */
        }
        f->s.switches = thread_switches(f->s.tid);
        f->s.faults = thread_faults();
        f->cpu_faults[1] = f->cpu_fd >= 0 ? perf_read(f->cpu_fd) : -1;
        finish(&f->s, start);
        return NULL;
}

/* Spins until told to stop, sleeping 50 us after each millisecond of its CPU time (a switch in
 * that went unseen is followed by one seen), then blocks until released. It faults only before
 * its first sleep: a note of it since holds all its faults. */
static void *stand_by(void *arg) {
        Spinner *s = arg;
        long long start = clock_ns(CLOCK_MONOTONIC);

        s->tid = (pid_t) syscall(SYS_gettid);
        while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
                long long until = clock_ns(CLOCK_THREAD_CPUTIME_ID) + CHUNK_NS;

                while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < until)
                        ;
                usleep(50);
                __atomic_store_n(&s->ready, true, __ATOMIC_RELEASE);
        }
        finish(s, start);
        return NULL;
}

/* Whether thread tid of this process sleeps (S, or D: a fault may wait killable). */
static bool sleeps(pid_t tid) {
        char path[64], buf[512], *p;
        FILE *f;
        size_t n;

        snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int) tid);
        f = fopen(path, "re");
        if (!f)
                return false;
        n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        p = strrchr(buf, ')');
        return p && p[1] == ' ' && (p[2] == 'S' || p[2] == 'D');
}

static void release(Spinner *s, pthread_t t) {
        pthread_mutex_lock(&s->lock);
        s->release = true;
        pthread_cond_broadcast(&s->cond);
        pthread_mutex_unlock(&s->lock);
        assert_int_equal(pthread_join(t, NULL), 0);
}

static bool spinner_done(Spinner *s) {
        bool done;

        pthread_mutex_lock(&s->lock);
        done = s->done;
        pthread_mutex_unlock(&s->lock);
        return done;
}

/* The page faults on CPU cpu, every task's (perf's per-CPU count), or -1 where they cannot be counted. */
static int cpu_faults_counter(int cpu) {
        struct perf_event_attr a = {
                .type = PERF_TYPE_SOFTWARE,
                .size = sizeof(a),
                .config = PERF_COUNT_SW_PAGE_FAULTS,
        };

        return (int) syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* One flight: a helper noted, then a flier poked while its faults wait to be answered. */
typedef struct Flight {
        int answered;
        uint64_t ambiguous;
        long long faults;               /* the flier's, by getrusage */
        long long others;               /* other tasks' faults on the flier's CPU meanwhile (-1: not known) */
        long long counted;              /* its PM_PAGE_FLT */
} Flight;

/* Writes note into the note of cpu where that names tid (seen: room for every CPU's), leaving the
 * other CPUs' as they are. Never over another task's note: the pokes stand for a switch to tid
 * that went unseen, and another task's faults since its own switch in must stay its own. That
 * task's switch in may still come between the look and the write: microseconds in 200 us. */
static void poke_over(int map, int cpu, pid_t tid, const struct heirs_last_seen *note, struct heirs_last_seen *seen) {
        int ncpu = libbpf_num_possible_cpus();

        assert_int_equal(bpf_map_lookup_elem(map, &(uint32_t) { 0 }, seen), 0);
        if (cpu >= ncpu || seen[cpu].tid != (uint32_t) tid)
                return;
        seen[cpu] = note[cpu];
        assert_int_equal(bpf_map_update_elem(map, &(uint32_t) { 0 }, seen, BPF_ANY), 0);
}

static void fly_poked(int map, int uffd, void *zeros, Flight *out) {
        Spinner helper = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
        Flier f = { .s = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER } };
        int ncpu = libbpf_num_possible_cpus(), first, second, pending = 0, cpu_fd;
        long page = sysconf(_SC_PAGESIZE);
        struct heirs_last_seen *note = calloc((size_t) ncpu, sizeof(*note));
        struct heirs_last_seen *seen = calloc((size_t) ncpu, sizeof(*seen));
        struct uffdio_register reg;
        uint64_t at = 0;
        pm_data_t d;
        cpu_set_t saved;
        pthread_t h, t;
        bool found = false;

        assert_true(note && seen);
        *out = (Flight) { .others = -1 };
        /* The helper on the thread's CPU until the kernel's note there names it: that note, its
         * task and fault counts, is what the pokes write. */
        two_cpus(&saved, &first, &second);
        start_on(second, &h, stand_by, &helper);
        for (int i = 0; i < 1000 && !found; i++) {
                usleep(1000);
                assert_int_equal(bpf_map_lookup_elem(map, &(uint32_t) { 0 }, note), 0);
                found = __atomic_load_n(&helper.ready, __ATOMIC_ACQUIRE) &&
                        note[second].tid == (uint32_t) helper.tid;
        }
        assert_true(found);
        for (int i = 0; i < ncpu; i++)
                note[i] = note[second];
        __atomic_store_n(&helper.stop, true, __ATOMIC_RELAXED);
        while (!spinner_done(&helper))
                usleep(1000);

        f.pages = fresh_pages_map(FLIGHT_ROUNDS);
        assert_true(f.pages != MAP_FAILED);
        reg = (struct uffdio_register) { .range = { (uintptr_t) f.pages, (uint64_t) FLIGHT_ROUNDS * page },
                                         .mode = UFFDIO_REGISTER_MODE_MISSING };
        assert_int_equal(ioctl(uffd, UFFDIO_REGISTER, &reg), 0);
        cpu_fd = f.cpu_fd = cpu_faults_counter(second);
        f.cpu_faults[0] = cpu_fd >= 0 ? perf_read(cpu_fd) : -1;
        out->ambiguous = ambiguous_slices();

        /* Poke where the note names the flier, and answer a fault once the thread sleeps in it
         * (seen twice, a poke apart). */
        start_on(second, &t, fly, &f);
        while (!spinner_done(&f.s)) {
                struct uffd_msg msg;

                poke_over(map, second, f.s.tid, note, seen);
                if (!at && read(uffd, &msg, sizeof(msg)) == sizeof(msg) && msg.event == UFFD_EVENT_PAGEFAULT)
                        at = msg.arg.pagefault.address & ~(uint64_t) (page - 1);
                if (at)
                        pending = sleeps(f.s.tid) ? pending + 1 : 0;
                if (pending == 2) {
                        struct uffdio_copy copy = { .dst = at, .src = (uintptr_t) zeros, .len = (uint64_t) page };

                        assert_int_equal(ioctl(uffd, UFFDIO_COPY, &copy), 0);
                        out->answered++;
                        at = 0;
                        pending = 0;
                }
                usleep(POKE_US);
        }
        assert_int_equal(sched_setaffinity(0, sizeof(saved), &saved), 0);
        for (int i = 0; i < 1000 && thread_switches(f.s.tid) <= f.s.switches; i++)
                usleep(1000);
        assert_true(f.s.switches >= 0 && thread_switches(f.s.tid) > f.s.switches);
        out->ambiguous = ambiguous_slices() - out->ambiguous;
        assert_int_equal(pm_get_data_thread(getpid(), f.s.tid, &d), 0);
        print_counts(f.s.tid);
        release(&f.s, t);
        release(&helper, h);
        out->faults = f.s.faults;
        out->counted = d.accu[0];
        if (cpu_fd >= 0 && f.cpu_faults[0] >= 0 && f.cpu_faults[1] >= 0)
                out->others = (f.cpu_faults[1] - f.cpu_faults[0]) - f.s.faults;   /* its whole life's on that CPU */
        if (cpu_fd >= 0)
                close(cpu_fd);
        (void) ioctl(uffd, UFFDIO_UNREGISTER, &reg.range);
        (void) munmap((void *) f.pages, (size_t) FLIGHT_ROUNDS * page);
        free(note);
        free(seen);
}

static void test_born_fault_in_flight_where_switches_go_unseen(void **state) {
        static const char *const names[MAX_COUNTERS] = { "PM_PAGE_FLT" };
        int map, uffd;
        struct uffdio_api api = { .api = UFFD_API };
        long page = sysconf(_SC_PAGESIZE);
        void *zeros = aligned_alloc((size_t) page, (size_t) page);
        pm_info_t info;
        pm_prog_t prog;
        Flight fl;

        (void) state;
        if (!kernel_inheritance())
                skip();
        uffd = (int) syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
        if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) < 0) {
                print_message("# no userfaultfd here: %m\n");
                skip();
        }
        map = pmapid_map("last_next");
        assert_true(map >= 0);
        assert_non_null(zeros);
        memset(zeros, 0, (size_t) page);

        assert_int_equal(pm_init(PM_VERIFIED | PM_CAVEAT, &info, NULL), 0);
        memset(&prog, 0, sizeof(prog));
        for (int i = 0; i < MAX_COUNTERS; i++)
                prog.events[i] = COUNT_NOTHING;
        assert_true((prog.events[0] = find_event_id(&info, names[0])) >= 0);
        prog.mode.w = PM_USER | PM_COUNT;
        assert_int_equal(pm_set_program_mythread(&prog), 0);   /* the switches are read from here */
        fly_poked(map, uffd, zeros, &fl);
        print_message("# %d faults answered, %llu slices ambiguous; getrusage %lld, PM_PAGE_FLT %lld; other tasks' "
                      "faults on its CPU meanwhile %lld\n", fl.answered, (unsigned long long) fl.ambiguous,
                      fl.faults, fl.counted, fl.others);
        assert_int_equal(fl.answered, FLIGHT_ROUNDS);
        assert_true(fl.ambiguous >= FLIGHT_ROUNDS / 2);        /* or this proves nothing */
        assert_int_equal(fl.counted, fl.faults);
        assert_int_equal(pm_delete_program_mythread(), 0);
        close(uffd);
        close(map);
        free(zeros);
}

/* Faults that sleep. CONTEND_THREADS born threads each map CONTEND_PAGES pages, touch and unmap
 * them, over and over for CONTEND_ROUND_MS, so that a fault often waits on mmap_lock while a
 * sibling maps or unmaps. perf counts a fault as it starts, the task's min_flt as it ends: where a
 * switch went unseen (here, the VM's own, not pokes), a slice that took the task's own count lost a
 * fault that slept across its end, or took again one that slept across its start (4 of 40 runs of
 * 3 threads x 500,000 faults were 1 off, 2 of 30 of 4 threads x 150,000, before the slice took the
 * CPU's count less the other task's). Each round's threads must have counted, to the fault, what
 * perf's own inherited counter says of them: the process's less the main thread's. The rounds run
 * for PMAPI_CONTEND_SECONDS; the VM's unseen switches come every second or so, and how many slices
 * were ambiguous is printed. A soak, off by default: the new rule still errs by one where the task
 * the last seen switch brought in (one of PID 1's threads) had a fault in flight at its unseen
 * switch, or another unseen task faulted (1 round of 63 here, 2190501 vs 2190500, in the ASan
 * run of CI): a known limit (pmapid(8)) until a slice can tell a fault in flight. */
#define CONTEND_THREADS 4
#define CONTEND_PAGES 500
#define CONTEND_ROUND_MS 2000

typedef struct Contender {
        Spinner s;
        long long until_ns;
} Contender;

static void *contend(void *arg) {
        Contender *c = arg;
        long long start = clock_ns(CLOCK_MONOTONIC);

        c->s.tid = (pid_t) syscall(SYS_gettid);
        while (c->s.rc == 0 && clock_ns(CLOCK_MONOTONIC) < c->until_ns)
                c->s.rc = touch_fresh_pages(CONTEND_PAGES);
        c->s.switches = thread_switches(c->s.tid);
        finish(&c->s, start);
        return NULL;
}

/* One round: the threads' rows against perf's count of them; returns their sum. */
static long long contend_round(int perf_all, int perf_own) {
        Contender c[CONTEND_THREADS];
        long long all0 = perf_read(perf_all), own0 = perf_read(perf_own), rows = 0, all1, own1, until;
        pthread_t t[CONTEND_THREADS];

        until = clock_ns(CLOCK_MONOTONIC) + CONTEND_ROUND_MS * 1000000LL;
        for (int i = 0; i < CONTEND_THREADS; i++) {
                c[i] = (Contender) { .until_ns = until };
                pthread_mutex_init(&c[i].s.lock, NULL);
                pthread_cond_init(&c[i].s.cond, NULL);
                assert_int_equal(pthread_create(&t[i], NULL, contend, &c[i]), 0);
        }
        for (int i = 0; i < CONTEND_THREADS; i++) {
                Spinner *s = &c[i].s;
                bool done = false;

                while (!done) {
                        usleep(1000);
                        pthread_mutex_lock(&s->lock);
                        done = s->done;
                        pthread_mutex_unlock(&s->lock);
                }
                /* its counts are as of its last switch: the one after it noted its own (it blocks) */
                for (int j = 0; j < 1000 && thread_switches(s->tid) <= s->switches; j++)
                        usleep(1000);
                assert_true(thread_switches(s->tid) > s->switches);
                assert_int_equal(s->rc, 0);
        }
        /* they are blocked and fault no more: perf's child counters of them are current */
        all1 = perf_read(perf_all);
        own1 = perf_read(perf_own);
        for (int i = 0; i < CONTEND_THREADS; i++) {
                pm_data_t d;

                assert_int_equal(pm_get_data_thread(getpid(), c[i].s.tid, &d), 0);
                rows += d.accu[0];
        }
        for (int i = 0; i < CONTEND_THREADS; i++) {
                pthread_mutex_lock(&c[i].s.lock);
                c[i].s.release = true;
                pthread_cond_broadcast(&c[i].s.cond);
                pthread_mutex_unlock(&c[i].s.lock);
                assert_int_equal(pthread_join(t[i], NULL), 0);
        }
        print_message("# %d threads: rows %lld, perf %lld\n", CONTEND_THREADS, rows,
                      (all1 - all0) - (own1 - own0));
        assert_int_equal(rows, (all1 - all0) - (own1 - own0));
        return rows;
}

static void test_contended_faults_where_switches_go_unseen(void **state) {
        static const char *const names[MAX_COUNTERS] = { "PM_PAGE_FLT" };
        const char *env = getenv("PMAPI_CONTEND_SECONDS");
        long long seconds = env ? atoll(env) : 0, end, faults = 0;
        int perf_all = perf_faults_counter(true, false), perf_own = perf_faults_counter(false, false), rounds = 0;
        uint64_t ambiguous;
        pm_info_t info;
        pm_prog_t prog;

        (void) state;
        if (!kernel_inheritance() || seconds <= 0) {
                print_message("# a soak: PMAPI_CONTEND_SECONDS=N runs it for N seconds\n");
                skip();
        }
        assert_true(perf_all >= 0 && perf_own >= 0);
        assert_int_equal(pm_init(PM_VERIFIED | PM_CAVEAT, &info, NULL), 0);
        memset(&prog, 0, sizeof(prog));
        for (int i = 0; i < MAX_COUNTERS; i++)
                prog.events[i] = COUNT_NOTHING;
        assert_true((prog.events[0] = find_event_id(&info, names[0])) >= 0);
        prog.mode.w = PM_USER | PM_KERNEL | PM_COUNT;
        assert_int_equal(pm_set_program_mythread(&prog), 0);
        ambiguous = ambiguous_slices();
        end = clock_ns(CLOCK_MONOTONIC) + seconds * 1000000000LL;
        do {
                faults += contend_round(perf_all, perf_own);
                rounds++;
        } while (clock_ns(CLOCK_MONOTONIC) < end);
        ambiguous = ambiguous_slices() - ambiguous;
        print_message("# %d rounds, %lld faults, all exact; %llu slices ambiguous (switches the tracepoint did "
                      "not show)\n", rounds, faults, (unsigned long long) ambiguous);
        assert_int_equal(pm_delete_program_mythread(), 0);
        close(perf_all);
        close(perf_own);
}

static int setup(void **state) {
        (void) state;
        return bus_fixture_start(&fixture, NULL);
}

static int teardown(void **state) {
        (void) state;
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_born_clocks_survive_unseen_switches),
                cmocka_unit_test(test_born_faults_survive_unseen_switches),
                cmocka_unit_test(test_born_fault_in_flight_where_switches_go_unseen),
                cmocka_unit_test(test_contended_faults_where_switches_go_unseen),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
