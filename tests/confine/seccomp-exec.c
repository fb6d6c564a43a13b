/* seccomp-exec.c: runs a program under the seccomp filters that systemd builds from pmapid.service,
 * so that the integration suite can check pmapid under its unit's confinement on a machine whose
 * PID 1 is not systemd. It stands in for four settings of the unit:
 *   SystemCallFilter= + SystemCallErrorNumber=EPERM: an allow-list (the syscall names in LIST,
 *     one per line, as `systemd-analyze syscall-filter` expands the unit's groups), every other
 *     call fails with EPERM;
 *   SystemCallArchitectures=native: libseccomp's default context holds the native ABI alone, and a
 *     call through another ABI kills the process, as under systemd;
 *   RestrictAddressFamilies=: socket() only for the families named (EAFNOSUPPORT otherwise);
 *   MemoryDenyWriteExecute=yes: no mapping both writable and executable, no mprotect to executable.
 * Usage: seccomp-exec LIST FAMILY[,FAMILY...] -- PROGRAM [ARG...]
 * FAMILY: AF_UNIX, AF_NETLINK, AF_INET or AF_INET6. LIST "-" reads standard input, then gives the
 * program /dev/null. no_new_privs must already be set (setpriv --no-new-privs), as the unit sets it. */
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

static int family_of(const char *name) {
        static const struct { const char *name; int family; } families[] = {
                { "AF_UNIX", AF_UNIX }, { "AF_NETLINK", AF_NETLINK }, { "AF_INET", AF_INET }, { "AF_INET6", AF_INET6 },
        };
        for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
                if (strcmp(families[i].name, name) == 0)
                        return families[i].family;
        return -1;
}

/* The allow-list; names this libseccomp does not know for this ABI are skipped, as systemd does. */
static int allow_list(const char *list, scmp_filter_ctx *ret) {
        scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
        char line[128];
        int n = 0;
        FILE *f;

        if (!ctx || !(f = strcmp(list, "-") == 0 ? stdin : fopen(list, "re")))
                return -1;
        while (fgets(line, sizeof(line), f)) {
                line[strcspn(line, "\n")] = '\0';
                int nr = seccomp_syscall_resolve_name(line);
                if (line[0] == '\0' || nr == __NR_SCMP_ERROR)
                        continue;
                if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0) == 0)
                        n++;
        }
        if (f == stdin) {       /* the program gets /dev/null, as StandardInput=null gives it */
                int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
                if (null < 0 || dup2(null, STDIN_FILENO) < 0)
                        return -1;
                close(null);
        } else
                fclose(f);
        if (n == 0)
                return -1;
        *ret = ctx;
        return n;
}

/* A second filter, default allow: the kernel takes the strictest answer of all filters, so these
 * refusals hold whatever the allow-list says. */
static int restrictions(const char *families, scmp_filter_ctx *ret) {
        scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
        char buf[256], *save = NULL;
        int allowed[8], n = 0, r = 0;

        if (!ctx)
                return -1;
        snprintf(buf, sizeof(buf), "%s", families);
        for (char *t = strtok_r(buf, ",", &save); t && n < 8; t = strtok_r(NULL, ",", &save)) {
                allowed[n] = family_of(t);
                if (allowed[n++] < 0) {
                        fprintf(stderr, "seccomp-exec: unknown address family '%s'\n", t);
                        return -1;
                }
        }
        /* socket(family) for every family below AF_MAX that is not allowed. */
        for (int family = 0; family < AF_MAX && r == 0; family++) {
                bool ok = false;
                for (int i = 0; i < n; i++)
                        ok = ok || allowed[i] == family;
                if (!ok)
                        r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
                                             SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t) family));
        }
        if (r == 0)
                r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
                                     SCMP_A0(SCMP_CMP_GE, (scmp_datum_t) AF_MAX));
        /* MemoryDenyWriteExecute=yes, as systemd writes it. */
        if (r == 0)
                r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mmap), 1,
                                     SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_WRITE | PROT_EXEC, PROT_WRITE | PROT_EXEC));
        if (r == 0)
                r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mprotect), 1,
                                     SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
        if (r == 0)
                r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(pkey_mprotect), 1,
                                     SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
        if (r < 0) {
                seccomp_release(ctx);
                return -1;
        }
        *ret = ctx;
        return 0;
}

int main(int argc, char *argv[]) {
        scmp_filter_ctx allow = NULL, deny = NULL;
        int n;

        if (argc < 5 || strcmp(argv[3], "--") != 0) {
                fprintf(stderr, "usage: seccomp-exec LIST FAMILY[,FAMILY...] -- PROGRAM [ARG...]\n");
                return 2;
        }
        n = allow_list(argv[1], &allow);
        if (n < 0 || restrictions(argv[2], &deny) < 0) {
                fprintf(stderr, "seccomp-exec: cannot build the filters from '%s'\n", argv[1]);
                return 2;
        }
        /* execve must stay allowed by the list, or this is where it ends. */
        if (seccomp_load(deny) < 0 || seccomp_load(allow) < 0) {
                fprintf(stderr, "seccomp-exec: cannot load the filters (is no_new_privs set?)\n");
                return 2;
        }
        execv(argv[4], &argv[4]);
        fprintf(stderr, "seccomp-exec: exec %s: %m\n", argv[4]);
        return 127;
}
