/* bus-fixture.c: starts and stops the private bus and pmapid for tests. Paths come from the
 * environment meson sets: PMAPID (the daemon binary), PMAPI_BUS_POLICY (the policy file),
 * PMAPI_BUS_CONF_TEMPLATE (tests/data/bus.conf.in). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "bus-fixture.h"

static void sleep_ms(int ms) {
        struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
        nanosleep(&ts, NULL);
}

/* Fills tests/data/bus.conf.in (PMAPI_BUS_CONF_TEMPLATE): @DIR@ and @POLICY@. */
static int write_bus_conf(const BusFixture *f, const char *policy) {
        const char *template = getenv("PMAPI_BUS_CONF_TEMPLATE");
        char path[300], line[1024];
        FILE *in, *o;

        if (!template || !(in = fopen(template, "re")))
                return -ENOENT;
        snprintf(path, sizeof(path), "%s/bus.conf", f->dir);
        o = fopen(path, "we");
        if (!o) {
                fclose(in);
                return -errno;
        }
        while (fgets(line, sizeof(line), in)) {
                char *at;
                if ((at = strstr(line, "@DIR@")))
                        fprintf(o, "%.*s%s%s", (int) (at - line), line, f->dir, at + 5);
                else if ((at = strstr(line, "@POLICY@")))
                        fprintf(o, "%.*s%s%s", (int) (at - line), line, policy, at + 8);
                else
                        fputs(line, o);
        }
        fclose(in);
        return fclose(o) == 0 ? 0 : -errno;
}

/* The bus and pmapid die with the test (PR_SET_PDEATHSIG: with the thread that spawned them, the
 * main thread here). A test that crashed would otherwise leave them running, and since they share
 * its stdout and stderr, meson would wait for the end of its output until the test's timeout. */
/* In the child: the fds at 3, 4, ... and the variables sd_listen_fds_with_names() reads. */
static int pass_listen_fds(const BusFixture *f) {
        char value[32];
        int *high;

        if (!f || f->n_listen_fds == 0)
                return 0;
        high = calloc(f->n_listen_fds, sizeof(int));
        if (!high)
                return -1;
        for (size_t i = 0; i < f->n_listen_fds; i++)   /* out of the way of the targets first */
                if ((high[i] = fcntl(f->listen_fds[i], F_DUPFD, 3 + (int) f->n_listen_fds)) < 0)
                        return -1;
        for (size_t i = 0; i < f->n_listen_fds; i++)
                if (dup2(high[i], 3 + (int) i) < 0)
                        return -1;
        for (size_t i = 0; i < f->n_listen_fds; i++)
                close(high[i]);
        free(high);
        (void) snprintf(value, sizeof(value), "%zu", f->n_listen_fds);
        if (setenv("LISTEN_FDS", value, 1) < 0 || setenv("LISTEN_FDNAMES", f->listen_fdnames, 1) < 0)
                return -1;
        (void) snprintf(value, sizeof(value), "%d", (int) getpid());
        return setenv("LISTEN_PID", value, 1);
}

static pid_t spawn(char *const argv[], char *const envp_extra, const char *log_path, const BusFixture *listen) {
        pid_t parent = getpid();
        pid_t pid = fork();

        if (pid == 0) {
                if (pass_listen_fds(listen) < 0)
                        _exit(127);
                if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
                        _exit(127);     /* the parent is already gone */
                if (log_path) {
                        int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
                        if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
                                _exit(127);
                }
                if (envp_extra)
                        putenv(envp_extra);
                execv(argv[0], argv);
                fprintf(stderr, "exec %s: %m\n", argv[0]);
                _exit(127);
        }
        return pid;
}

static bool name_has_owner(const char *address, const char *name) {
        sd_bus *bus = NULL;
        sd_bus_message *reply = NULL;
        int owned = 0;

        if (sd_bus_new(&bus) < 0)
                return false;
        if (sd_bus_set_address(bus, address) >= 0 && sd_bus_set_bus_client(bus, 1) >= 0 &&
            sd_bus_start(bus) >= 0 &&
            sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "NameHasOwner", NULL, &reply, "s", name) >= 0)
                (void) sd_bus_message_read(reply, "b", &owned);
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        return owned;
}

static bool bus_answers(const char *address) {
        sd_bus *bus = NULL;
        bool ok = false;

        if (sd_bus_new(&bus) < 0)
                return false;
        ok = sd_bus_set_address(bus, address) >= 0 && sd_bus_set_bus_client(bus, 1) >= 0 &&
             sd_bus_start(bus) >= 0 && sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                          "org.freedesktop.DBus", "GetId", NULL, NULL, "") >= 0;
        sd_bus_flush_close_unref(bus);
        return ok;
}

int bus_fixture_start_bus(BusFixture *f) {
        const char *policy = getenv("PMAPI_BUS_POLICY");
        char conf_arg[300];
        int r;

        memset(f, 0, sizeof(*f));
        if (geteuid() != 0) {
                fprintf(stderr, "# integration tests start pmapid and need root; skipping\n");
                exit(77);
        }
        if (!policy || access(policy, R_OK) < 0) {
                fprintf(stderr, "# PMAPI_BUS_POLICY is not set to the policy file\n");
                return 1;
        }
        snprintf(f->dir, sizeof(f->dir), "/tmp/pmapi-test-XXXXXX");
        if (!mkdtemp(f->dir))
                return 1;
        (void) chmod(f->dir, 0755);     /* unprivileged clients must reach the socket */
        snprintf(f->address, sizeof(f->address), "unix:path=%s/system_bus_socket", f->dir);
        r = write_bus_conf(f, policy);
        if (r < 0) {
                fprintf(stderr, "# cannot write bus.conf from PMAPI_BUS_CONF_TEMPLATE\n");
                return 1;
        }
        snprintf(conf_arg, sizeof(conf_arg), "--config-file=%s/bus.conf", f->dir);
        char *argv[] = { (char *) "/usr/bin/dbus-daemon", (char *) "--nofork", conf_arg, NULL };
        f->bus_pid = spawn(argv, NULL, NULL, NULL);
        for (int i = 0; i < 500 && !bus_answers(f->address); i++)
                sleep_ms(10);
        if (!bus_answers(f->address)) {
                fprintf(stderr, "# private dbus-daemon did not start\n");
                return 1;
        }
        setenv("DBUS_SYSTEM_BUS_ADDRESS", f->address, 1);
        return 0;
}

/* A copy of the unit at path, in dir, without CAP_BPF in its capability sets: its path in ret. */
/* The unit at path less the capability cap (upper case, "CAP_BPF") in its CapabilityBoundingSet= and
 * AmbientCapabilities=, written to dir: *ret its path. */
static int unit_without_cap(const char *path, const char *dir, const char *cap, char *ret, size_t size) {
        FILE *in = fopen(path, "re"), *out;
        char line[1024], word[80], *at;

        snprintf(ret, size, "%s/pmapid-without-%s.service", dir, cap);
        snprintf(word, sizeof(word), " %s", cap);
        out = fopen(ret, "we");
        if (!in || !out) {
                if (in)
                        fclose(in);
                if (out)
                        fclose(out);
                return -1;
        }
        while (fgets(line, sizeof(line), in)) {
                if ((strncmp(line, "CapabilityBoundingSet=", 22) == 0 || strncmp(line, "AmbientCapabilities=", 20) == 0) &&
                    (at = strstr(line, word)) && (at[strlen(word)] == ' ' || at[strlen(word)] == '\n'))
                        memmove(at, at + strlen(word), strlen(at + strlen(word)) + 1);
                fputs(line, out);
        }
        fclose(in);
        return fclose(out) == 0 ? 0 : -1;
}

int bus_fixture_start_daemon(BusFixture *f, const char *const *extra_args) {
        /* PMAPI_TEST_PMAPID runs the suite against another build of the daemon (a sanitizer build,
         * while the clients stay uninstrumented so their page faults stay exact). */
        const char *pmapid = getenv("PMAPI_TEST_PMAPID") ?: getenv("PMAPID");
        const char *confine = getenv("PMAPI_TEST_CONFINE");
        static char env[400];
        char *argv[20];
        size_t n = 0;

        if (!pmapid) {
                fprintf(stderr, "# PMAPID is not set to the daemon binary\n");
                return 1;
        }
        /* PMAPI_TEST_WITHOUT_CAP_BPF=1: pmapid without CAP_BPF (nor CAP_SYS_ADMIN, which allows BPF too);
         * PMAPI_TEST_DROP_CAP=NAME (upper case, without CAP_): without that capability. */
        const char *no_bpf = getenv("PMAPI_TEST_WITHOUT_CAP_BPF"), *drop = getenv("PMAPI_TEST_DROP_CAP");
        static char unit[400], cap[64], bounding[100];

        if (no_bpf && strcmp(no_bpf, "1") == 0)
                drop = "BPF";
        if (drop && *drop)
                snprintf(cap, sizeof(cap), "CAP_%s", drop);
        /* PMAPI_TEST_CONFINE=1: pmapid as pmapid.service confines it (tests/confine/), from a copy of
         * the unit without the capability dropped. */
        if (confine && strcmp(confine, "1") == 0) {
                const char *names[] = { "PMAPI_CONFINE_SCRIPT", "PMAPI_CONFINE_UNIT", "PMAPI_CONFINE_SECCOMP_EXEC" };
                for (size_t i = 0; i < 3; i++)
                        if (!(argv[n++] = getenv(names[i]))) {
                                fprintf(stderr, "# PMAPI_TEST_CONFINE=1 without $%s\n", names[i]);
                                return 1;
                        }
                if (drop && *drop) {
                        if (unit_without_cap(argv[1], f->dir, cap, unit, sizeof(unit)) < 0) {
                                fprintf(stderr, "# cannot write a unit without %s in %s\n", cap, f->dir);
                                return 1;
                        }
                        argv[1] = unit;
                }
        } else if (drop && *drop) {
                snprintf(bounding, sizeof(bounding), "--bounding-set=-%s%s", drop,
                         strcmp(drop, "BPF") == 0 ? ",-sys_admin" : "");
                for (char *p = bounding; *p; p++)
                        *p = (char) tolower((unsigned char) *p);
                argv[n++] = (char *) "/usr/bin/setpriv";
                argv[n++] = bounding;
                argv[n++] = (char *) "--";
        }
        argv[n++] = (char *) pmapid;
        /* PMAPI_TEST_PMAPID_VERBOSE=1: its debug lines too, in the test's log (a race in a guest). */
        if (getenv("PMAPI_TEST_PMAPID_VERBOSE") && strcmp(getenv("PMAPI_TEST_PMAPID_VERBOSE"), "1") == 0)
                argv[n++] = (char *) "-v";
        for (; extra_args && *extra_args && n < 19; extra_args++)
                argv[n++] = (char *) *extra_args;
        argv[n] = NULL;
        snprintf(env, sizeof(env), "DBUS_SYSTEM_BUS_ADDRESS=%s", f->address);
        if (f->capture_log)
                snprintf(f->log_path, sizeof(f->log_path), "%s/pmapid.log", f->dir);
        f->daemon_pid = spawn(argv, env, f->capture_log ? f->log_path : NULL, f);
        f->n_listen_fds = 0;
        for (int i = 0; i < 1000 && !name_has_owner(f->address, "org.pmapi.PerfMon1"); i++) {
                if (waitpid(f->daemon_pid, NULL, WNOHANG) == f->daemon_pid) {
                        fprintf(stderr, "# pmapid exited during start-up\n");
                        f->daemon_pid = 0;
                        return 1;
                }
                sleep_ms(10);
        }
        return name_has_owner(f->address, "org.pmapi.PerfMon1") ? 0 : 1;
}

int bus_fixture_start(BusFixture *f, const char *const *extra_args) {
        int r = bus_fixture_start_bus(f);
        if (r != 0)
                return r;
        return bus_fixture_start_daemon(f, extra_args);
}

/* Returns the exit status, or -1 if it had to be killed. */
static int stop_process(pid_t *pid) {
        int status;

        if (*pid <= 0)
                return 0;
        kill(*pid, SIGTERM);
        for (int i = 0; i < 300; i++) {
                if (waitpid(*pid, &status, WNOHANG) == *pid) {
                        *pid = 0;
                        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
                }
                sleep_ms(10);
        }
        kill(*pid, SIGKILL);
        waitpid(*pid, NULL, 0);
        *pid = 0;
        return -1;
}

static int log_count(const BusFixture *f, va_list args) {
        char line[2048];
        int n = 0;
        FILE *log;

        if (!f->log_path[0] || !(log = fopen(f->log_path, "re")))
                return 0;
        while (fgets(line, sizeof(line), log)) {
                bool found = true;
                const char *s;
                va_list ap;

                va_copy(ap, args);
                while (found && (s = va_arg(ap, const char *)))
                        found = strstr(line, s) != NULL;
                va_end(ap);
                n += found;
        }
        fclose(log);
        return n;
}

bool bus_fixture_log_has(const BusFixture *f, ...) {
        va_list ap;
        int n;

        va_start(ap, f);
        n = log_count(f, ap);
        va_end(ap);
        return n > 0;
}

int bus_fixture_log_count(const BusFixture *f, ...) {
        va_list ap;
        int n;

        va_start(ap, f);
        n = log_count(f, ap);
        va_end(ap);
        return n;
}

/* The captured log goes to our stderr, where meson keeps it with the test's output. */
static void copy_log(BusFixture *f) {
        char line[2048];
        FILE *log;

        if (!f->log_path[0] || !(log = fopen(f->log_path, "re")))
                return;
        while (fgets(line, sizeof(line), log))
                fputs(line, stderr);
        fclose(log);
        unlink(f->log_path);
        f->log_path[0] = '\0';
}

int bus_fixture_stop_daemon(BusFixture *f) {
        int r = stop_process(&f->daemon_pid);

        copy_log(f);
        if (r != 0)
                fprintf(stderr, "# pmapid did not exit cleanly on SIGTERM (status %d)\n", r);
        return r == 0 ? 0 : 1;
}

static int copy_file(const char *from, const char *to) {
        char buf[65536];
        ssize_t n;
        int in, out, r = 0;

        in = open(from, O_RDONLY | O_CLOEXEC);
        if (in < 0)
                return -1;
        out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
        if (out < 0) {
                close(in);
                return -1;
        }
        while ((n = read(in, buf, sizeof(buf))) > 0)
                if (write(out, buf, (size_t) n) != n) {
                        r = -1;
                        break;
                }
        if (n < 0)
                r = -1;
        close(in);
        if (close(out) < 0 || fchmodat(AT_FDCWD, to, 0755, 0) < 0)
                r = -1;
        return r;
}

static int share_one(const char *bin, const char *path, char *ret, size_t n) {
        const char *base = strrchr(path, '/');

        if (snprintf(ret, n, "%s/%s", bin, base ? base + 1 : path) >= (int) n)
                return -1;
        return copy_file(path, ret);
}

int bus_fixture_share_programs(BusFixture *f, const char *const *env_names) {
        const char *ld = getenv("LD_LIBRARY_PATH");
        char bin[300], copy[600], lib[600], ld_new[4096];
        bool found = false;

        snprintf(bin, sizeof(bin), "%s/bin", f->dir);
        if (mkdir(bin, 0755) < 0 && errno != EEXIST)
                return 1;
        (void) chmod(bin, 0755);
        for (; env_names && *env_names; env_names++) {
                const char *path = getenv(*env_names);
                if (!path || share_one(bin, path, copy, sizeof(copy)) < 0) {
                        fprintf(stderr, "# cannot copy $%s for other users\n", *env_names);
                        return 1;
                }
                setenv(*env_names, copy, 1);
        }
        /* libpmapi of this build: the first LD_LIBRARY_PATH entry that has it. */
        for (const char *d = ld; d && *d && !found; d = strchr(d, ':') ? strchr(d, ':') + 1 : NULL) {
                snprintf(lib, sizeof(lib), "%.*s/libpmapi.so.1", (int) strcspn(d, ":"), d);
                found = access(lib, R_OK) == 0 && share_one(bin, lib, copy, sizeof(copy)) == 0;
        }
        snprintf(ld_new, sizeof(ld_new), "%s%s%s", bin, ld ? ":" : "", ld ? ld : "");
        setenv("LD_LIBRARY_PATH", ld_new, 1);
        return 0;
}

/* Removes <dir>/bin and what bus_fixture_share_programs() put there. */
static void unshare_programs(BusFixture *f) {
        char bin[300], path[600 + 256];
        struct dirent *de;
        DIR *d;

        snprintf(bin, sizeof(bin), "%s/bin", f->dir);
        d = opendir(bin);
        if (!d)
                return;
        while ((de = readdir(d)))
                if (de->d_name[0] != '.') {
                        snprintf(path, sizeof(path), "%s/%s", bin, de->d_name);
                        unlink(path);
                }
        closedir(d);
        rmdir(bin);
}

int bus_fixture_restart_with_config(BusFixture *f, const char *conf_text) {
        char conf[300], arg[320];
        FILE *c;

        snprintf(conf, sizeof(conf), "%s/pmapid.conf", f->dir);
        c = fopen(conf, "we");
        if (!c)
                return 1;
        fputs(conf_text, c);
        if (fclose(c) != 0)
                return 1;
        snprintf(arg, sizeof(arg), "--config=%s", conf);
        const char *args[] = { arg, NULL };
        if (bus_fixture_stop_daemon(f) != 0)
                return 1;
        f->capture_log = true;
        return bus_fixture_start_daemon(f, args);
}

int bus_fixture_stop(BusFixture *f) {
        char path[300];
        int r;

        r = bus_fixture_stop_daemon(f);
        (void) stop_process(&f->bus_pid);
        if (f->dir[0]) {
                unshare_programs(f);
                snprintf(path, sizeof(path), "%s/pmapid.conf", f->dir);
                unlink(path);
                snprintf(path, sizeof(path), "%s/bus.conf", f->dir);
                unlink(path);
                snprintf(path, sizeof(path), "%s/system_bus_socket", f->dir);
                unlink(path);
                rmdir(f->dir);
        }
        return r;
}

int run_as_nobody(int (*fn)(void *arg), void *arg) {
        return run_as(65534, 65534, fn, arg);
}

int run_as(uid_t uid, gid_t gid, int (*fn)(void *arg), void *arg) {
        int status;
        pid_t pid = fork();

        if (pid < 0)
                return -1;
        if (pid == 0) {
                if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
                        _exit(126);
                _exit(fn(arg));
        }
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
                return -1;
        return WEXITSTATUS(status);
}

int wait_for_fds(pid_t pid, int want, int timeout_ms) {
        int n = count_fds(pid);

        for (int waited = 0; n != want && waited < timeout_ms; waited += 10) {
                sleep_ms(10);
                n = count_fds(pid);
        }
        return n;
}

long rss_kb(pid_t pid) {
        char path[64], line[256];
        long kb = -1;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
        f = fopen(path, "re");
        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
                        break;
        fclose(f);
        return kb;
}

int settled_fds(pid_t pid) {
        int n = count_fds(pid), m;

        for (int i = 0; i < 30; i++, n = m) {
                sleep_ms(100);
                m = count_fds(pid);
                if (m == n)
                        break;
        }
        return n;
}

int perf_fds_of(pid_t pid, int *ret, int max) {
        char path[64], link[320], target[64];
        struct dirent *de;
        int n = 0;
        DIR *d;

        snprintf(path, sizeof(path), "/proc/%d/fd", (int) pid);
        d = opendir(path);
        if (!d)
                return -1;
        while ((de = readdir(d))) {
                ssize_t l;

                snprintf(link, sizeof(link), "%s/%s", path, de->d_name);
                l = readlink(link, target, sizeof(target) - 1);
                if (l <= 0)
                        continue;
                target[l] = '\0';
                if (strcmp(target, "anon_inode:[perf_event]") != 0)
                        continue;
                if (ret && n < max)
                        ret[n] = atoi(de->d_name);
                n++;
        }
        closedir(d);
        return n;
}

int count_fds(pid_t pid) {
        char path[64];
        struct dirent *de;
        int n = 0;
        DIR *d;

        snprintf(path, sizeof(path), "/proc/%d/fd", (int) pid);
        d = opendir(path);
        if (!d)
                return -1;
        while ((de = readdir(d)))
                if (de->d_name[0] != '.')
                        n++;
        closedir(d);
        return n;
}
