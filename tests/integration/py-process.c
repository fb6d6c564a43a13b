/* py-process.c: see py-process.h. */
#include <grp.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "py-process.h"

int py_process_start(PyProcess *p, uid_t uid, const char *script, const char *arg) {
        int in[2], out[2];
        char line[16];

        if (pipe(in) < 0 || pipe(out) < 0)
                return -1;
        p->pid = fork();
        if (p->pid < 0)
                return -1;
        if (p->pid == 0) {
                if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 || setgroups(0, NULL) < 0 ||
                    setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0)
                        _exit(126);
                close(in[1]), close(out[0]);
                execlp("python3", "python3", "-c", script, arg, (char *) NULL);
                _exit(127);
        }
        close(in[0]), close(out[1]);
        p->to = fdopen(in[1], "w");
        p->from = fdopen(out[0], "r");
        return p->to && p->from && fgets(line, sizeof(line), p->from) && strcmp(line, "up\n") == 0 ? 0 : -1;
}

int py_process_say(PyProcess *p, const char *what, const char *answer) {
        char line[16];

        if (fputs(what, p->to) < 0 || fflush(p->to) != 0)
                return -1;
        return !answer || (fgets(line, sizeof(line), p->from) && strcmp(line, answer) == 0) ? 0 : -1;
}

void py_process_end(PyProcess *p) {
        int status;

        fclose(p->to);
        fclose(p->from);
        (void) waitpid(p->pid, &status, 0);
}
