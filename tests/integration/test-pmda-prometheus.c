/* test-pmda-prometheus.c: from pmapid to Prometheus through PCP, every piece real and on this
 * machine only (127.0.0.1): pmapid, pmcd with pmdapmapi, pmproxy's OpenMetrics endpoint
 * (/metrics?names=pmapi) and a Prometheus that scrapes it each second. A thread that touched a
 * known number of pages and stopped counting reads the same count in Prometheus' query API as in
 * pm_get_data_thread. Skipped, with the reason, where pmproxy or Prometheus is not installed. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fixture.h"
#include "pcp-fixture.h"
#include "pmapi.h"
#include "target.h"
#include "workload.h"

#define PMPROXY "/usr/lib/pcp/bin/pmproxy"
#define PROMETHEUS "/usr/bin/prometheus"

static BusFixture fixture;
static PcpFixture pcp;
static pid_t pmproxy_pid = -1, prometheus_pid = -1;
static int proxy_port, prometheus_port;

static void sleep_ms(int ms) {
        struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000 };
        nanosleep(&ts, NULL);
}

static pid_t spawn(char *const argv[], const char *run_dir) {
        pid_t pid = fork();
        char port[16];

        if (pid == 0) {
                (void) snprintf(port, sizeof(port), "%d", pcp.port);
                setenv("PCP_RUN_DIR", run_dir, 1);
                setenv("PMCD_PORT", port, 1);
                execv(argv[0], argv);
                _exit(127);
        }
        return pid;
}

static void stop(pid_t *pid) {
        if (*pid > 0) {
                (void) kill(*pid, SIGTERM);
                (void) waitpid(*pid, NULL, 0);
        }
        *pid = -1;
}

/* The first line of what `curl -s URL` prints into buf (size), or -1. */
static int http_get(const char *url, const char *data, char *buf, size_t size) {
        char cmd[1024];
        size_t n = 0;
        FILE *in;

        if (data)
                (void) snprintf(cmd, sizeof(cmd), "curl -s --max-time 2 '%s' --data-urlencode '%s'", url, data);
        else
                (void) snprintf(cmd, sizeof(cmd), "curl -s --max-time 2 '%s'", url);
        in = popen(cmd, "r");
        if (!in)
                return -1;
        n = fread(buf, 1, size - 1, in);
        buf[n] = '\0';
        return pclose(in) == 0 ? 0 : -1;
}

/* Prometheus' value of query, once it has one: a result's "value":[time,"N"]. */
static int query_value(const char *query, long long *ret) {
        char url[128], data[512], out[8192];
        const char *v;

        (void) snprintf(url, sizeof(url), "http://127.0.0.1:%d/api/v1/query", prometheus_port);
        (void) snprintf(data, sizeof(data), "query=%s", query);
        if (http_get(url, data, out, sizeof(out)) < 0)
                return -1;
        v = strstr(out, "\"value\":[");
        if (!v || !(v = strstr(v, ",\"")))
                return -1;
        *ret = strtoll(v + 2, NULL, 10);
        return 0;
}

static void test_prometheus_reads_what_pmapid_reads(void **state) {
        char query[256], out[65536] = "", url[128];
        long long seen = -1;
        pm_prog_t prog;
        pm_data_t d;
        pm_info_t info;
        Target t;

        (void) state;
        assert_int_equal(pm_init(PM_VERIFIED, &info), 0);
        assert_int_equal(target_start(&t, &TARGET_ROOT, 1), 0);
        program_one(&prog, PM_USER | PM_COUNT, find_event_id(&info, "PM_PAGE_FLT"));
        assert_int_equal(pm_set_program_thread(t.pid, t.tids[0], &prog), 0);
        assert_int_equal(target_touch(&t, 0, 1234), 0);
        assert_int_equal(pm_stop_thread(t.pid, t.tids[0]), 0);
        assert_int_equal(pm_get_data_thread(t.pid, t.tids[0], &d), 0);
        assert_in_range(d.accu[0], 1234, 1236);

        /* pmproxy's endpoint itself: OpenMetrics, a gauge (values fall at resets). */
        (void) snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics?names=pmapi", proxy_port);
        for (int i = 0; i < 50 && !strstr(out, "pmapi_daemon_up"); i++) {
                if (http_get(url, NULL, out, sizeof(out)) < 0)
                        out[0] = '\0';
                sleep_ms(100);
        }
        if (!strstr(out, "# TYPE pmapi_thread_counter_value gauge")) {
                fprintf(stderr, "%s gave:\n%s\n", url, out);
                pcp_fixture_dump_log(&pcp);
        }
        assert_non_null(strstr(out, "# TYPE pmapi_thread_counter_value gauge"));

        (void) snprintf(query, sizeof(query), "pmapi_thread_counter_value{instname=\"%d:0 PM_PAGE_FLT\"}",
                        (int) t.tids[0]);
        for (int i = 0; i < 150 && seen != d.accu[0]; i++) {
                if (query_value(query, &seen) < 0)
                        seen = -1;
                sleep_ms(100);
        }
        assert_int_equal(seen, d.accu[0]);
        assert_int_equal(query_value("pmapi_daemon_up", &seen), 0);
        assert_int_equal(seen, 1);
        target_kill(&t);
}

static int write_prometheus_config(char *path, size_t size) {
        FILE *f;

        (void) snprintf(path, size, "%s/prometheus.yml", pcp.dir);
        f = fopen(path, "we");
        if (!f)
                return -1;
        fprintf(f, "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                   "scrape_configs:\n  - job_name: pmapi\n    metrics_path: /metrics\n"
                   "    params:\n      names: [pmapi]\n"
                   "    static_configs:\n      - targets: ['127.0.0.1:%d']\n", proxy_port);
        return fclose(f);
}

static int setup(void **state) {
        char run[300], port[16], log[300], fatal[300], sock[300], config[300], config_arg[320], tsdb[320],
                listen[64], ready[128], out[256];
        const char *why;

        (void) state;
        if (!pcp_available(&why) || access(PMPROXY, X_OK) != 0 || access(PROMETHEUS, X_OK) != 0) {
                printf("# SKIP %s\n", access(PROMETHEUS, X_OK) != 0 ?
                                               "Prometheus is not installed (Debian's prometheus)" :
                                               "pmproxy is not installed (Debian's pcp)");
                exit(77);
        }
        if (bus_fixture_start(&fixture, NULL) != 0 ||
            pcp_fixture_start(&pcp, getenv("PMAPI_PMDA"), fixture.address, NULL) != 0)
                return -1;

        proxy_port = pcp_free_port();
        prometheus_port = pcp_free_port();
        (void) snprintf(run, sizeof(run), "%s/run", pcp.dir);
        (void) snprintf(port, sizeof(port), "%d", proxy_port);
        (void) snprintf(log, sizeof(log), "%s/log/pmproxy.log", pcp.dir);
        (void) snprintf(fatal, sizeof(fatal), "%s/log/pmproxy.fatal", pcp.dir);
        (void) snprintf(sock, sizeof(sock), "%s/run/pmproxy.socket", pcp.dir);
        /* It reads the private pmcd on PMCD_PORT. */
        pmproxy_pid = spawn((char *const[]) { PMPROXY, "-f", "-A", "-U", "root", "-i", "127.0.0.1", "-p", port,
                                              "-s", sock, "-l", log, "-x", fatal, NULL }, run);

        if (write_prometheus_config(config, sizeof(config)) != 0)
                return -1;
        (void) snprintf(config_arg, sizeof(config_arg), "--config.file=%s", config);
        (void) snprintf(tsdb, sizeof(tsdb), "--storage.tsdb.path=%s/tsdb", pcp.dir);
        (void) snprintf(listen, sizeof(listen), "--web.listen-address=127.0.0.1:%d", prometheus_port);
        prometheus_pid = spawn((char *const[]) { PROMETHEUS, config_arg, tsdb, listen, "--log.level=warn", NULL },
                               run);
        (void) snprintf(ready, sizeof(ready), "http://127.0.0.1:%d/-/ready", prometheus_port);
        for (int i = 0; i < 100; i++) {
                if (http_get(ready, NULL, out, sizeof(out)) == 0 && strstr(out, "Ready"))
                        return 0;
                sleep_ms(100);
        }
        fprintf(stderr, "Prometheus did not become ready on 127.0.0.1:%d\n", prometheus_port);
        return -1;
}

static int teardown(void **state) {
        (void) state;
        stop(&prometheus_pid);
        stop(&pmproxy_pid);
        pcp_fixture_stop(&pcp);
        return bus_fixture_stop(&fixture);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_prometheus_reads_what_pmapid_reads),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
