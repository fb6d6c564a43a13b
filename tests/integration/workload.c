/* workload.c: see workload.h. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "fresh-pages.h"
#include "workload.h"
#include "check.h"

int touch_fresh_pages(size_t n) {
        return fresh_pages_touch(n) < 0 ? -errno : 0;
}

int find_event_id(const pm_info_t *info, const char *name) {
        for (int i = 0; i < info->maxevents[0]; i++)
                if (strcmp(info->list_events[0][i].short_name, name) == 0)
                        return info->list_events[0][i].event_id;
        return -1;
}

void program_one(pm_prog_t *prog, int mode, int event) {
        memset(prog, 0, sizeof(*prog));
        prog->mode.w = mode;
        for (int c = 0; c < MAX_COUNTERS; c++)
                prog->events[c] = COUNT_NOTHING;
        prog->events[0] = event;
}

int page_fault_program(pm_prog_t *prog, int mode) {
        pm_info_t info;
        int rc = pm_init(PM_VERIFIED, &info);

        if (rc != 0) {
                fprintf(stderr, "# pm_init: %d (%s)\n", rc, pm_strerror(NULL, rc));
                return -1;
        }
        memset(prog, 0, sizeof(*prog));
        prog->mode.w = mode;
        for (int c = 0; c < MAX_COUNTERS; c++)
                prog->events[c] = COUNT_NOTHING;
        prog->events[0] = find_event_id(&info, "PM_PAGE_FLT");
        prog->events[1] = find_event_id(&info, "PM_MINOR_FLT");
        return prog->events[0] > 0 && prog->events[1] > 0 ? 0 : -1;
}

uint64_t attached_late(void) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus *bus = NULL;
        uint64_t n = 0;

        if (sd_bus_open_system(&bus) >= 0)
                (void) sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1",
                                                   "org.pmapi.PerfMon1.Manager", "ThreadsAttachedLate",
                                                   &error, 't', &n);
        sd_bus_error_free(&error);
        sd_bus_flush_close_unref(bus);
        return n;
}

long long thread_faults(void) {
        struct rusage ru;

        return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_minflt + ru.ru_majflt : -1;
}

int stop_seen_by_kernel(KernelView *k) {
        int rc;

        k->before = thread_faults();
        rc = pm_stop_mythread();
        k->after = thread_faults();
        return rc;
}

/* A Manager property of basic type `type` into ret (left as it is where it cannot be read). */
static void manager_property_trivial(const char *name, char type, void *ret) {
        sd_bus *bus = NULL;

        if (sd_bus_open_system(&bus) >= 0)
                (void) sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1",
                                                   "org.pmapi.PerfMon1.Manager", name, NULL, type, ret);
        sd_bus_flush_close_unref(bus);
}

uint64_t ambiguous_slices(void) {
        uint64_t n = 0;

        manager_property_trivial("AmbiguousSlices", 't', &n);
        return n;
}

bool task_sleeps(pid_t pid, pid_t tid) {
        char path[96], buf[512], *p;
        FILE *f;
        size_t l;

        (void) snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int) pid, (int) tid);
        f = fopen(path, "re");
        if (!f)
                return false;
        l = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[l] = '\0';
        p = strrchr(buf, ')');
        return p && p[1] == ' ' && p[2] == 'S';
}

bool kernel_inheritance(void) {
        int v = 0;

        manager_property_trivial("KernelInheritance", 'b', &v);
        return v;
}

size_t carried_events(int32_t *ids, size_t max) {
        sd_bus_message *reply = NULL;
        const int32_t *l = NULL;
        sd_bus *bus = NULL;
        size_t size = 0, n = 0;

        if (sd_bus_open_system(&bus) >= 0 &&
            sd_bus_get_property(bus, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1", "org.pmapi.PerfMon1.Manager",
                                "CarriedEvents", NULL, &reply, "ai") >= 0 &&
            sd_bus_message_read_array(reply, 'i', (const void **) &l, &size) >= 0)
                for (n = 0; n < size / sizeof(int32_t) && n < max; n++)
                        ids[n] = l[n];
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        return n;
}

uint32_t manager_property_u(const char *name) {
        uint32_t v = UINT32_MAX;

        manager_property_trivial(name, 'u', &v);
        return v;
}

int wait_for_context_count(unsigned n, int timeout_ms) {
        sd_bus *bus = NULL;
        int r = -1;

        if (sd_bus_open_system(&bus) < 0)
                return -1;
        for (int waited = 0; waited <= timeout_ms; waited += 5) {
                sd_bus_error error = SD_BUS_ERROR_NULL;
                uint32_t count;

                if (sd_bus_get_property_trivial(bus, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1",
                                                "org.pmapi.PerfMon1.Manager", "ContextCount", &error, 'u',
                                                &count) >= 0 && count == n) {
                        r = 0;
                        break;
                }
                sd_bus_error_free(&error);
                (void) nanosleep(&(struct timespec) { .tv_nsec = 5 * 1000 * 1000 }, NULL);
        }
        sd_bus_flush_close_unref(bus);
        return r;
}

int last_online_cpu(void) {
        int last = 0;

        for (int c = 1; c < (int) sysconf(_SC_NPROCESSORS_CONF); c++) {
                char path[64];
                FILE *f;

                snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", c);
                f = fopen(path, "re");
                if (f) {
                        if (fgetc(f) == '1')
                                last = c;
                        fclose(f);
                }
        }
        return last;
}

int run_pinned(int cpu, long pages) {
        char cpu_arg[16], pages_arg[32];
        int status;
        pid_t pid;

        snprintf(cpu_arg, sizeof(cpu_arg), "%d", cpu);
        snprintf(pages_arg, sizeof(pages_arg), "%ld", pages);
        pid = fork();
        if (pid < 0)
                return -1;
        if (pid == 0) {
                execlp("taskset", "taskset", "-c", cpu_arg, getenv("PMAPI_TOUCH_PAGES"), pages_arg, (char *) NULL);
                _exit(127);
        }
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return -1;
        return 0;
}

int system_stop_and_sum_cpus(pm_data_t *ret_total, long long *ret_sum) {
        int n = (int) sysconf(_SC_NPROCESSORS_CONF), r;
        long long sum = 0;
        pm_data_t d;

        r = pm_stop();
        if (r == 0)
                r = pm_get_data(ret_total);
        for (int c = 0; r == 0 && c < n; c++) {
                r = pm_get_data_lcpu(c, &d);
                if (r == PM_ECPU) {
                        r = 0;
                        continue;
                }
                if (r == 0)
                        sum += d.accu[0];
        }
        *ret_sum = sum;
        return r;
}

KernelView kernel_view_now(void) {
        long long n = thread_faults();

        return (KernelView) { n, n };
}

int perf_faults_counter(bool inherit, bool user_only) {
        struct perf_event_attr a = {
                .type = PERF_TYPE_SOFTWARE,
                .size = sizeof(a),
                .config = PERF_COUNT_SW_PAGE_FAULTS,
                .inherit = inherit,
                .exclude_kernel = user_only,
                .exclude_hv = user_only,
        };

        return (int) syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

long long clock_now_ns(clockid_t clock) {
        struct timespec ts;

        clock_gettime(clock, &ts);
        return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int perf_task_clock_of(pid_t tid) {
        struct perf_event_attr a = {
                .type = PERF_TYPE_SOFTWARE,
                .size = sizeof(a),
                .config = PERF_COUNT_SW_TASK_CLOCK,
                .exclude_kernel = 1,
                .exclude_hv = 1,
        };

        return (int) syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int perf_inherit_counter(void) {
        return perf_faults_counter(true, true);
}

long long perf_read(int fd) {
        uint64_t v;

        return read(fd, &v, sizeof(v)) == sizeof(v) ? (long long) v : -1;
}

int fault_window_open(FaultWindow *w, bool perf_optional) {
        pm_prog_t prog;

        *w = (FaultWindow) { .perf = perf_inherit_counter() };
        CHECK(w->perf >= 0 || perf_optional);
        CHECK(page_fault_program(&prog, PM_USER | PM_COUNT) == 0);
        CHECK_RC(pm_set_program_mygroup(&prog), 0);
        CHECK_RC(pm_get_data_mygroup(&w->g0), 0);
        CHECK_RC(pm_get_data_mygroup(&w->g0), 0);
        w->p0 = w->perf >= 0 ? perf_read(w->perf) : 0;
        return 0;
}

int fault_window_close(FaultWindow *w) {
        CHECK_RC(pm_get_data_mygroup(&w->g1), 0);
        w->p1 = w->perf >= 0 ? perf_read(w->perf) : 0;
        CHECK_RC(pm_get_data_mygroup(&w->g1), 0);
        CHECK_RC(pm_delete_program_mygroup(), 0);
        if (w->perf >= 0)
                close(w->perf);
        w->perf = -1;
        return 0;
}
