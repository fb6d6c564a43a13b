/* fifo-gate.c: see fifo-gate.h. */
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "fifo-gate.h"

void fifo_gate_open(FifoGate *g, const char *dir, const char *name, int exit_status) {
        snprintf(g->go, sizeof(g->go), "%s/%s-go", dir, name);
        snprintf(g->done, sizeof(g->done), "%s/%s-done", dir, name);
        assert_int_equal(mkfifo(g->go, 0666), 0);
        assert_int_equal(mkfifo(g->done, 0666), 0);
        assert_int_equal(chmod(g->go, 0666), 0);        /* past the umask */
        assert_int_equal(chmod(g->done, 0666), 0);
        g->go_fd = open(g->go, O_RDWR | O_NONBLOCK | O_CLOEXEC);
        g->done_fd = open(g->done, O_RDWR | O_CLOEXEC);
        assert_true(g->go_fd >= 0 && g->done_fd >= 0);
        snprintf(g->script, sizeof(g->script), "echo go > %s && read x < %s; exit %d", g->go, g->done,
                 exit_status);
}

bool fifo_gate_wait(FifoGate *g, int timeout_ms) {
        struct pollfd p = { .fd = g->go_fd, .events = POLLIN };
        char line[8];

        if (poll(&p, 1, timeout_ms) != 1)
                return false;
        return read(g->go_fd, line, sizeof(line)) == 3;
}

void fifo_gate_release(FifoGate *g) {
        assert_int_equal(write(g->done_fd, "x\n", 2), 2);
}

void fifo_gate_close(FifoGate *g) {
        close(g->go_fd);
        close(g->done_fd);
        unlink(g->go);
        unlink(g->done);
}
