/* pcp-fixture.c: see pcp-fixture.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pcp/pmapi.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pcp-fixture.h"

#define PMAPI_DOMAIN "190"

static void sleep_ms(int ms) {
        struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000 };
        nanosleep(&ts, NULL);
}

static const char *config_path(const char *name, const char *fallback, const char *rest) {
        static char path[4][512];
        static int next;
        const char *dir = pmGetOptionalConfig(name);

        next = (next + 1) % 4;
        (void) snprintf(path[next], sizeof(path[next]), "%s%s", dir ? dir : fallback, rest);
        return path[next];
}

bool pcp_available(const char **ret_why) {
        if (access(config_path("PCP_BINADM_DIR", "/usr/lib/pcp/bin", "/pmcd"), X_OK) != 0) {
                *ret_why = "pmcd is not installed (Debian's pcp package)";
                return false;
        }
        return true;
}

/* A port nobody listens on now (pmcd insists on one besides its socket). */
int pcp_free_port(void) {
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof(a);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = -1;

        if (fd >= 0 && bind(fd, (struct sockaddr *) &a, sizeof(a)) == 0 &&
            getsockname(fd, (struct sockaddr *) &a, &len) == 0)
                port = ntohs(a.sin_port);
        if (fd >= 0)
                close(fd);
        return port;
}

/* The PMNS pmcd serves: pmcd's own (pmproxy's /metrics asks for its labels) merged with
 * pmdapmapi's, as `pmdapmapi --pmns 190` writes it. */
static int write_pmns(const PcpFixture *f, const char *pmda) {
        char cmd[1500], path[512], line[512];
        FILE *in, *out;
        int ok;

        (void) snprintf(path, sizeof(path), "%s/pmapi.pmns", f->dir);
        (void) snprintf(cmd, sizeof(cmd), "'%s' --pmns " PMAPI_DOMAIN, pmda);
        out = fopen(path, "we");
        in = popen(cmd, "r");
        if (!out || !in) {
                if (out)
                        fclose(out);
                if (in)
                        pclose(in);
                return -1;
        }
        fputs("root {\n    pmapi\n}\n\n", out);
        while (fgets(line, sizeof(line), in))
                fputs(line, out);
        ok = pclose(in) == 0;
        if (fclose(out) != 0 || !ok)
                return -1;
        (void) snprintf(cmd, sizeof(cmd), "'%s' -a '%s' '%s' '%s/root.pmns'",
                        config_path("PCP_BINADM_DIR", "/usr/lib/pcp/bin", "/pmnsmerge"),
                        config_path("PCP_VAR_DIR", "/var/lib/pcp", "/pmns/root_pmcd"), path, f->dir);
        return system(cmd) == 0 ? 0 : -1;
}

static int write_config(const PcpFixture *f, const char *pmda, const char *bus_address, const char *extra) {
        char path[512];
        FILE *out;

        (void) snprintf(path, sizeof(path), "%s/pmcd.conf", f->dir);
        out = fopen(path, "we");
        if (!out)
                return -1;
        fprintf(out, "pmcd\t2\tdso\tpmcd_init\t%s\n",
                config_path("PCP_PMDAS_DIR", "/var/lib/pcp/pmdas", "/pmcd/pmda_pmcd.so"));
        fprintf(out, "pmapi\t" PMAPI_DOMAIN "\tpipe\tbinary\t%s -d " PMAPI_DOMAIN " -l %s/log/pmapi.log --bus %s %s\n",
                pmda, f->dir, bus_address, extra ? extra : "");
        return fclose(out) == 0 ? 0 : -1;
}

static void exec_pmcd(const PcpFixture *f) {
        char port[16], socket_path[320], conf[300], pmns[300], log[300], fatal[300], run[300], logdir[300];

        (void) snprintf(port, sizeof(port), "%d", f->port);
        (void) snprintf(socket_path, sizeof(socket_path), "%s/run/pmcd.socket", f->dir);
        (void) snprintf(conf, sizeof(conf), "%s/pmcd.conf", f->dir);
        (void) snprintf(pmns, sizeof(pmns), "%s/root.pmns", f->dir);
        (void) snprintf(log, sizeof(log), "%s/log/pmcd.log", f->dir);
        (void) snprintf(fatal, sizeof(fatal), "%s/log/pmcd.fatal", f->dir);
        (void) snprintf(run, sizeof(run), "%s/run", f->dir);
        (void) snprintf(logdir, sizeof(logdir), "%s/log", f->dir);
        setenv("PCP_RUN_DIR", run, 1);
        setenv("PCP_LOG_DIR", logdir, 1);
        execl(config_path("PCP_BINADM_DIR", "/usr/lib/pcp/bin", "/pmcd"), "pmcd", "-f", "-A", "-i", "127.0.0.1",
              "-p", port, "-s", socket_path, "-c", conf, "-n", pmns, "-l", log, "-x", fatal, (char *) NULL);
        _exit(127);
}

int pcp_fixture_start(PcpFixture *f, const char *pmda, const char *bus_address, const char *extra_args) {
        struct passwd *pcp = getpwnam("pcp");
        char sub[300];

        *f = (PcpFixture) { .context = -1, .pmcd_pid = -1 };
        strcpy(f->dir, "/tmp/pmapi-pcp-XXXXXX");
        if (!mkdtemp(f->dir) || chmod(f->dir, 0755) != 0)
                return -1;
        /* pmcd gives up root for the pcp user once its agents run: its directories must stay its. */
        for (int i = 0; i < 2; i++) {
                (void) snprintf(sub, sizeof(sub), "%s/%s", f->dir, i ? "log" : "run");
                if (mkdir(sub, 0755) != 0 || (pcp && chown(sub, pcp->pw_uid, pcp->pw_gid) != 0))
                        return -1;
        }
        (void) snprintf(f->host, sizeof(f->host), "unix:%s/run/pmcd.socket", f->dir);
        f->port = pcp_free_port();
        if (f->port < 0 || write_pmns(f, pmda) < 0 || write_config(f, pmda, bus_address, extra_args) < 0) {
                fprintf(stderr, "pcp-fixture: cannot write pmcd's files in %s\n", f->dir);
                return -1;
        }
        f->pmcd_pid = fork();
        if (f->pmcd_pid < 0)
                return -1;
        if (f->pmcd_pid == 0)
                exec_pmcd(f);
        /* pmcd answers once its agents have started. */
        for (int i = 0; i < 200 && f->context < 0; i++) {
                f->context = pmNewContext(PM_CONTEXT_HOST, f->host);
                if (f->context < 0)
                        sleep_ms(50);
        }
        if (f->context < 0) {
                fprintf(stderr, "pcp-fixture: pmcd does not answer on %s: %s\n", f->host, pmErrStr(f->context));
                pcp_fixture_dump_log(f);
                return -1;
        }
        return 0;
}

void pcp_fixture_stop(PcpFixture *f) {
        char cmd[400];

        if (f->context >= 0)
                (void) pmDestroyContext(f->context);
        f->context = -1;
        if (f->pmcd_pid > 0) {
                (void) kill(f->pmcd_pid, SIGTERM);
                (void) waitpid(f->pmcd_pid, NULL, 0);
        }
        f->pmcd_pid = -1;
        if (f->dir[0]) {
                (void) snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
                (void) system(cmd);
        }
        f->dir[0] = '\0';
}

void pcp_fixture_dump_log(const PcpFixture *f) {
        char cmd[700];

        (void) snprintf(cmd, sizeof(cmd), "cat '%s/log/pmcd.log' '%s/log/pmapi.log' >&2", f->dir, f->dir);
        (void) system(cmd);
}

int pcp_fixture_log_count(const PcpFixture *f, const char *text) {
        char path[400], line[1024];
        int n = 0;
        FILE *in;

        (void) snprintf(path, sizeof(path), "%s/log/pmapi.log", f->dir);
        in = fopen(path, "re");
        if (!in)
                return -1;
        while (fgets(line, sizeof(line), in))
                n += strstr(line, text) != NULL;
        fclose(in);
        return n;
}

static int lookup(PcpFixture *f, const char *metric, pmID *ret_pmid, pmDesc *ret_desc) {
        int r = pmUseContext(f->context);

        if (r >= 0)
                r = pmLookupName(1, &metric, ret_pmid);
        if (r >= 0)
                r = pmLookupDesc(*ret_pmid, ret_desc);
        return r < 0 ? r : 0;
}

/* One pmFetch of metric: its result (the caller frees it) and descriptor, or the PCP error. */
static int fetch_metric(PcpFixture *f, const char *metric, pmDesc *ret_desc, pmResult **ret) {
        pmID pmid;
        int r = lookup(f, metric, &pmid, ret_desc);

        return r < 0 ? r : pmFetch(1, &pmid, ret);
}

int pcp_fetch(PcpFixture *f, const char *metric, int *ret_inst, int64_t *ret_values, int max) {
        pmResult *res = NULL;
        pmDesc desc;
        int r, n;

        r = fetch_metric(f, metric, &desc, &res);
        if (r < 0)
                return r;
        n = res->vset[0]->numval;
        for (int i = 0; n > 0 && i < n && i < max; i++) {
                pmAtomValue atom = {};
                ret_inst[i] = res->vset[0]->vlist[i].inst;
                ret_values[i] = 0;
                if (desc.type != PM_TYPE_STRING &&
                    pmExtractValue(res->vset[0]->valfmt, &res->vset[0]->vlist[i], desc.type, &atom, PM_TYPE_64) >= 0)
                        ret_values[i] = atom.ll;
        }
        pmFreeResult(res);
        return n;
}

int pcp_fetch_one(PcpFixture *f, const char *metric, int inst, int64_t *ret) {
        int insts[4096];
        static int64_t values[4096];
        int n = pcp_fetch(f, metric, insts, values, 4096);

        for (int i = 0; i < n && i < 4096; i++)
                if (insts[i] == inst) {
                        *ret = values[i];
                        return 0;
                }
        return n < 0 ? n : 1;
}

int pcp_fetch_string(PcpFixture *f, const char *metric, int inst, char *buf, size_t size) {
        pmResult *res = NULL;
        pmDesc desc;
        int r;

        r = fetch_metric(f, metric, &desc, &res);
        if (r < 0)
                return r;
        r = res->vset[0]->numval < 0 ? res->vset[0]->numval : 1;
        for (int i = 0; i < res->vset[0]->numval; i++) {
                pmAtomValue atom = {};
                if (res->vset[0]->vlist[i].inst != inst ||
                    pmExtractValue(res->vset[0]->valfmt, &res->vset[0]->vlist[i], desc.type, &atom,
                                   PM_TYPE_STRING) < 0)
                        continue;
                (void) snprintf(buf, size, "%s", atom.cp);
                free(atom.cp);
                r = 0;
        }
        pmFreeResult(res);
        return r;
}

int pcp_instance_name(PcpFixture *f, const char *metric, int inst, char *buf, size_t size) {
        char *name = NULL;
        pmDesc desc;
        pmID pmid;
        int r;

        r = lookup(f, metric, &pmid, &desc);
        if (r >= 0)
                r = pmNameInDom(desc.indom, inst, &name);
        if (r < 0)
                return r;
        (void) snprintf(buf, size, "%s", name);
        free(name);
        return 0;
}

const char *pcp_error(int code) {
        return pmErrStr(code);
}

int pcp_err_again(void) {
        return PM_ERR_AGAIN;
}
