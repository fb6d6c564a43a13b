/* tool-run.c: see tool-run.h. */
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "tool-run.h"

void tool_run_start(ToolRun *r, uid_t uid, int stdin_fd, const char *const *argv) {
        *r = (ToolRun) { .status = -1 };
        r->out_fd = memfd_create("tool-out", MFD_CLOEXEC);
        r->err_fd = memfd_create("tool-err", MFD_CLOEXEC);
        assert_true(r->out_fd >= 0 && r->err_fd >= 0);
        r->pid = fork();
        assert_true(r->pid >= 0);
        if (r->pid == 0) {
                int in = stdin_fd >= 0 ? stdin_fd : open("/dev/null", O_RDONLY);

                if (in < 0 || dup2(in, STDIN_FILENO) < 0 || dup2(r->out_fd, STDOUT_FILENO) < 0 ||
                    dup2(r->err_fd, STDERR_FILENO) < 0)
                        _exit(99);
                /* The tools follow the locale: one that knows UTF-8, as users have. */
                if (setenv("LC_ALL", "C.UTF-8", 1) < 0)
                        _exit(99);
                if (uid != 0 && (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 ||
                                 setresuid(uid, uid, uid) < 0))
                        _exit(98);
                execv(argv[0], (char **) argv);
                _exit(97);
        }
}

static char *read_all(int fd) {
        struct stat st;
        char *buf;
        ssize_t n;

        assert_int_equal(fstat(fd, &st), 0);
        buf = calloc(1, (size_t) st.st_size + 1);
        assert_non_null(buf);
        n = pread(fd, buf, (size_t) st.st_size, 0);
        assert_int_equal(n, st.st_size);
        close(fd);
        return buf;
}

void tool_run_wait(ToolRun *r) {
        int status;

        assert_int_equal(waitpid(r->pid, &status, 0), r->pid);
        r->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        r->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        r->out = read_all(r->out_fd);
        r->err = read_all(r->err_fd);
}

void tool_run_done(ToolRun *r) {
        free(r->out);
        free(r->err);
        *r = (ToolRun) {};
}

void tool_run(ToolRun *r, uid_t uid, const char *const *argv) {
        tool_run_start(r, uid, -1, argv);
        tool_run_wait(r);
}
