/* main.c: pmapid's entry point: options, the event catalog, the bus name, the sd-event loop and
 * signals. Everything else lives in the pmapid-core library. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <systemd/sd-daemon.h>

#include "bus-names.h"
#include "calibrate.h"
#include "config.h"
#include "log.h"
#include "pmu-budget.h"
#include "macro.h"
#include "manager-dbus.h"
#include "perf-syscall.h"
#include "thread-pin.h"
#include "fd-store.h"
#include "reexec.h"

#define DEFAULT_CONFIG PMAPI_SYSCONFDIR "/pmapi/pmapid.conf"
#define DEFAULT_CALIBRATION PMAPI_LOCALSTATEDIR "/lib/pmapi/calibration"

static unsigned arg_max_contexts_per_uid;       /* 0: the configuration's */
static const char *arg_config = DEFAULT_CONFIG;
static bool arg_config_required;
static bool arg_list_events;
static bool arg_fd_store;
static bool arg_check_config;
static bool arg_calibrate;
static const char *arg_calibration = DEFAULT_CALIBRATION;

static void help(void) {
        printf("pmapid [OPTIONS...]\n\n"
               "The pmapi performance monitor daemon: owns perf_event counting contexts for\n"
               "libpmapi clients on the system bus (%s).\n\n"
               "  -h --help                      Show this help\n"
               "     --version                   Show the version\n"
               "     --config=FILE               Read limits and the access policy from FILE\n"
               "                                 (default %s)\n"
               "     --check-config              Print the effective configuration and exit\n"
               "     --max-contexts-per-user=N   Contexts one uid but root may hold (default %u)\n"
               "     --list-events               Print the event catalog of this machine and exit\n"
               "     --calibrate                 Give each curated event a status by counting known\n"
               "                                 workloads here, write it to the calibration file, exit\n"
               "     --calibration=FILE          The calibration file (default %s)\n"
               "     --fd-store                  At SIGTERM, hand every context to the service\n"
               "                                 manager's fd store, for the next pmapid\n"
               "  -v --verbose                   Log debug messages\n",
               PMAPI_SERVICE, DEFAULT_CONFIG, manager_default_max_contexts_per_uid(), DEFAULT_CALIBRATION);
}

static int parse_argv(int argc, char *argv[]) {
        enum { ARG_VERSION = 0x100, ARG_CONFIG, ARG_MAX_CONTEXTS, ARG_LIST_EVENTS, ARG_FD_STORE, ARG_CHECK_CONFIG,
               ARG_CALIBRATE, ARG_CALIBRATION };
        static const struct option options[] = {
                { "help",                  no_argument,       NULL, 'h' },
                { "version",               no_argument,       NULL, ARG_VERSION },
                { "config",                required_argument, NULL, ARG_CONFIG },
                { "max-contexts-per-user", required_argument, NULL, ARG_MAX_CONTEXTS },
                { "list-events",           no_argument,       NULL, ARG_LIST_EVENTS },
                { "fd-store",              no_argument,       NULL, ARG_FD_STORE },
                { "check-config",          no_argument,       NULL, ARG_CHECK_CONFIG },
                { "calibrate",             no_argument,       NULL, ARG_CALIBRATE },
                { "calibration",           required_argument, NULL, ARG_CALIBRATION },
                { "verbose",               no_argument,       NULL, 'v' },
                {}
        };
        int c;

        while ((c = getopt_long(argc, argv, "hv", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("pmapid %s\n", PMAPI_VERSION);
                        return 0;
                case ARG_CONFIG:
                        arg_config = optarg;
                        arg_config_required = true;
                        break;
                case ARG_MAX_CONTEXTS: {
                        char *end;
                        unsigned long v = strtoul(optarg, &end, 10);
                        if (*optarg == '\0' || *end != '\0' || v == 0 || v > CONFIG_MAX_LIMIT) {
                                log_error("Invalid --max-contexts-per-user '%s'.", optarg);
                                return -EINVAL;
                        }
                        arg_max_contexts_per_uid = v;
                        break;
                }
                case ARG_LIST_EVENTS:
                        arg_list_events = true;
                        break;
                case ARG_FD_STORE:
                        arg_fd_store = true;
                        break;
                case ARG_CHECK_CONFIG:
                        arg_check_config = true;
                        break;
                case ARG_CALIBRATE:
                        arg_calibrate = true;
                        break;
                case ARG_CALIBRATION:
                        arg_calibration = optarg;
                        break;
                case 'v':
                        log_max_level = 7;
                        break;
                default:
                        return -EINVAL;
                }
        if (optind < argc) {
                log_error("%s takes no arguments.", argv[0]);
                return -EINVAL;
        }
        return 1;
}

static void list_events(const EventTable *t) {
        static const char *status[] = { [PM_VERIFIED] = "verified", [PM_UNVERIFIED] = "unverified",
                                        [PM_CAVEAT] = "caveat" };

        printf("# %s\n", t->pmu_name);
        for (size_t i = 0; i < t->n_events; i++)
                printf("%5d  %-10s  %-24s %s\n", t->events[i].id, status[t->events[i].status],
                       t->events[i].short_name, t->events[i].long_name);
}

/* --calibrate: the report on stdout and in the calibration file. */
static int calibrate(const EventTable *t) {
        CalibrationReport rep;
        int r = calibrate_run(t, &rep);

        if (r < 0)
                return log_error_errno(r, "Calibration failed: %m");
        calibration_print(&rep, stdout);
        r = calibration_save(&rep, arg_calibration);
        calibration_report_done(&rep);
        if (r >= 0)
                printf("# written to %s\n", arg_calibration);
        return fflush(stdout) == 0 && r >= 0 ? 0 : -EIO;
}

/* The statuses a calibration on this kernel measured replace the tables' (calibrate.h). */
static void apply_calibration(EventTable *t) {
        CalibrationReport rep;
        int r = calibration_load(arg_calibration, &rep);

        if (r == -ENOENT)
                return;
        if (r < 0)
                return;                 /* said why */
        r = calibration_apply(&rep, t);
        if (r == -ESTALE)
                log_warning("The calibration in %s was made on Linux %s, not this kernel: not applied (run pmapid "
                            "--calibrate again).", arg_calibration, rep.kernel);
        else if (r >= 0)
                log_info("Calibration of %s on Linux %s applied to %d events.", rep.when, rep.kernel, r);
        calibration_report_done(&rep);
}

/* What this kernel gives for pmapid's guarantees (pmapid(8), KERNELS), logged at start. Process
 * pidfds (pidfd_open, Linux 5.3) pin every caller's process and openat2 (5.6) resolves cgroup paths:
 * a kernel without them is refused here, naming what it lacks, rather than refusing every call.
 * Threads are pinned by thread pidfds where the kernel has them (6.9) and by /proc otherwise
 * (thread-pin.h). */
static int check_kernel(void) {
        struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC };
        struct utsname u = {};
        int fd, r;

        (void) uname(&u);
        fd = pidfd_open_process(getpid());
        if (fd < 0)
                return log_error_errno(-errno, "pidfd_open() is not supported on Linux %s (%m): pmapid needs "
                                       "Linux 5.3 or later (5.10 is the oldest tested).", u.release);
        close(fd);
        fd = (int) syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));
        if (fd < 0 && errno == ENOSYS)
                return log_error_errno(-errno, "openat2() is not supported on Linux %s (%m): pmapid needs "
                                       "Linux 5.6 or later (5.10 is the oldest tested).", u.release);
        if (fd >= 0)
                close(fd);
        r = thread_pins_init();
        if (r < 0)
                return log_error_errno(r, "Cannot pin threads on Linux %s: no thread pidfds and no "
                                       "/proc/<tid>/task/<tid> (%m).", u.release);
        if (thread_pins_kind() == THREAD_PIN_PIDFD)
                log_info("Linux %s: threads pinned by thread pidfds (PIDFD_THREAD).", u.release);
        else
                log_info("Linux %s: threads pinned by their /proc directories (no PIDFD_THREAD before Linux 6.9); "
                         "exits come from perf's task records.", u.release);
        return 0;
}

/* Every context holds fds: take all the kernel lets us have before the limits are computed. */
static void raise_fd_limit(void) {
        struct rlimit rl;

        if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
                rl.rlim_cur = rl.rlim_max;
                if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
                        log_warning_errno(-errno, "Cannot raise the fd limit: %m, ignoring");
        }
}

typedef struct Daemon {
        Manager *manager;
        sd_bus *bus;
        bool stored;                    /* the contexts wait in the fd store */
} Daemon;

/* SIGHUP (`systemctl reload pmapid`): the binary on disk replaces this one, with every context. */
static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Daemon *d = userdata;

        (void) s, (void) si;
        (void) reexec(d->manager, d->bus);      /* returns only if it failed, serving on */
        return 0;
}

/* SIGTERM: under a service manager with a fd store, the contexts wait there for the next pmapid. */
static int on_sigterm(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Daemon *d = userdata;

        (void) si;
        if (fd_store_wanted(arg_fd_store) && manager_n_contexts(d->manager) + system_owners_count(d->manager->systems) > 0)
                d->stored = fd_store_push(d->manager, d->bus) >= 0;
        return sd_event_exit(sd_event_source_get_event(s), 0);
}

/* Another pmapid took the name (a restored image replacing one the bus activated meanwhile). */
static int on_name_lost(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Daemon *d = userdata;
        const char *name = NULL;

        (void) error;
        if (sd_bus_message_read(message, "s", &name) < 0 || strcmp(name, PMAPI_SERVICE) != 0 ||
            d->manager->releasing_name)
                return 0;
        log_warning("Another pmapid owns '%s' now: exiting, %zu contexts released.", PMAPI_SERVICE,
                    manager_n_contexts(d->manager));
        return sd_event_exit(sd_bus_get_event(d->bus), 0);
}

/* --check-config: what pmapid would run with, on this machine's perf_event_paranoid now. */
static int check_config(void) {
        Config config;

        if (config_load(arg_config, arg_config_required, &config) < 0)
                return EXIT_FAILURE;
        if (arg_max_contexts_per_uid > 0)
                config.max_contexts_per_uid = arg_max_contexts_per_uid;
        config_print(&config, perf_event_paranoid(), stdout);
        return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* The CPU PMU's counters less the NMI watchdog's, and the share of them that carried hardware
 * events' sources may pin (pmu-budget.h): CarriedCounters, or by default all but two, so that a
 * thread's own program of two hardware events always fits beside them. */
static void configure_pmu_budget(unsigned counters, int carried) {
        unsigned watchdog = counters > 0 ? pmu_budget_watchdog_pins() : 0;
        unsigned usable = counters > watchdog ? counters - watchdog : 0;
        unsigned share = carried != CONFIG_CARRIED_COUNTERS_AUTO ? (unsigned) carried :
                         usable > 2 ? usable - 2 : usable / 2;

        pmu_budget_configure(usable, share);
        if (counters > 0)
                log_info("PMU: %u counters on each CPU%s; carried programs' hardware events may pin %u of them "
                         "(CarriedCounters%s).", usable, watchdog ? " besides the NMI watchdog's" : "",
                         pmu_budget_share(), carried == CONFIG_CARRIED_COUNTERS_AUTO ? "=auto" : "");
}

static int run(void) {
        _cleanup_(sd_event_unrefp) sd_event *event = NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        EventTable *events = NULL;
        Manager *m = NULL;
        Daemon daemon = {};
        bool restored;
        Config config;
        int r;

        r = check_kernel();
        if (r < 0)
                return r;
        raise_fd_limit();
        r = event_table_load(&events);
        if (r < 0)
                return log_error_errno(r, "Failed to build the event catalog: %m");
        if (arg_calibrate) {
                r = calibrate(events);
                event_table_free(events);
                return r;
        }
        apply_calibration(events);
        if (arg_list_events) {
                list_events(events);
                event_table_free(events);
                return 0;
        }
        r = config_load(arg_config, arg_config_required, &config);
        if (r < 0) {
                event_table_free(events);
                return r;
        }
        if (arg_max_contexts_per_uid > 0)
                config.max_contexts_per_uid = arg_max_contexts_per_uid;
        if (config.max_contexts > manager_fd_budget())
                log_warning("MaxContexts=%u is more than pmapid's fd limit allows (%u fds for counters); calls "
                            "past it will fail with LimitExceeded when the fds run out, ignoring.",
                            config.max_contexts, manager_fd_budget());

        r = sd_event_default(&event);
        if (r < 0)
                return log_error_errno(r, "Failed to allocate the event loop: %m");
        r = manager_new(event, &counter_backend_perf, events, &m);
        if (r < 0) {
                event_table_free(events);
                return log_error_errno(r, "Failed to allocate the manager: %m");
        }
        m->max_contexts_per_uid = config.max_contexts_per_uid;
        m->max_contexts = config.max_contexts;
        m->max_sets = config.max_sets;
        m->policy = config.access;
        if (config.access.user_mode.n + config.access.kernel_mode.n + config.access.only.n > 0)
                log_info("Access: %zu UserModeGroups, %zu KernelModeGroups, %zu OnlyGroups (pmapid --check-config "
                         "names them).", config.access.user_mode.n, config.access.kernel_mode.n,
                         config.access.only.n);
        log_info("Limits: %u contexts per user (root: no per-user limit), %u in all, %u fds for counters.",
                 m->max_contexts_per_uid, m->max_contexts, m->fd_budget);
        configure_pmu_budget(events->pmu_counters, config.carried_counters);
        restored = reexec_restore(m) > 0 || fd_store_restore(m) > 0;
        manager_start_heirs(m, config.max_contexts);
        if (!m->fork_watch) {
                r = manager_watch_forks(m);
                if (r >= 0 && restored)
                        manager_exits_lost(0, m);       /* exits in the gap were not recorded */
        }
        manager_update_fork_watch(m);
        if (r < 0 && !thread_pins_poll()) {
                /* A /proc pin does not fire at its thread's exit: perf's EXIT records must say it. */
                log_error_errno(r, "Cannot read perf task records (%m), and this kernel has no thread pidfds "
                                "(Linux 6.9): pmapid could not tell when a counted thread exits.");
                goto finish;
        }
        if (r < 0)
                log_warning_errno(r, "Cannot read perf fork records (%m): threads not created through "
                                  "libpmapi's pthread_create will not inherit contexts.");

        r = sd_bus_open_system(&bus);
        if (r < 0) {
                log_error_errno(r, "Failed to connect to the system bus: %m");
                goto finish;
        }
        daemon = (Daemon) { .manager = m, .bus = bus };
        r = manager_bus_register(m, bus);
        if (r < 0)
                goto finish;
        r = sd_bus_match_signal(bus, NULL, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                "NameLost", on_name_lost, &daemon);
        if (r < 0) {
                log_error_errno(r, "Failed to watch the bus name: %m");
                goto finish;
        }
        /* Any pmapid lets a restored one take the name: the bus may have activated a new one while
         * the previous image re-executed. */
        r = sd_bus_request_name(bus, PMAPI_SERVICE, SD_BUS_NAME_ALLOW_REPLACEMENT |
                                (restored ? SD_BUS_NAME_REPLACE_EXISTING : 0));
        if (r < 0) {
                log_error_errno(r, "Failed to acquire '%s': %m", PMAPI_SERVICE);
                goto finish;
        }
        r = sd_bus_attach_event(bus, event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0) {
                log_error_errno(r, "Failed to attach the bus to the event loop: %m");
                goto finish;
        }

        sigset_t mask;
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        (void) sd_event_add_signal(event, NULL, SIGTERM, on_sigterm, &daemon);
        (void) sd_event_add_signal(event, NULL, SIGINT, NULL, NULL);
        (void) sd_event_add_signal(event, NULL, SIGHUP, on_sighup, &daemon);

        log_info("pmapid %s serving '%s'.", PMAPI_VERSION, PMAPI_SERVICE);
        (void) sd_notify(false, "READY=1\nSTATUS=Serving");
        r = sd_event_loop(event);
        if (r < 0)
                log_error_errno(r, "Event loop failed: %m");
        (void) sd_notify(false, "STOPPING=1");
        if (daemon.stored)
                log_info("pmapid stopping, %zu contexts kept in the fd store.", manager_n_contexts(m));
        else
                log_info("pmapid stopping, %zu contexts released.", manager_n_contexts(m));
finish:
        /* Contexts go before the bus and the loop they reference. */
        manager_free(m);
        return r;
}

int main(int argc, char *argv[]) {
        int r;

        setvbuf(stderr, NULL, _IOLBF, 0);
        r = parse_argv(argc, argv);
        if (r <= 0)
                return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
        if (arg_check_config)
                return check_config();
        if (reexec_remember(argv) < 0)
                log_warning("Cannot tell where this binary is: SIGHUP will not re-execute it.");
        r = run();
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
