/* fifo-gate.h: a command held at a gate by the test: it writes "go" on one FIFO and waits on
 * another until the test lets it end, so that what the test does in between happens strictly while
 * the command runs (pmcount --cgroup's COMMAND, which marks the span of the count). The test holds
 * both ends of each FIFO (O_RDWR): neither open in the command blocks, and no line is lost. */
#pragma once

#include <stdbool.h>

typedef struct FifoGate {
        char go[320], done[320];        /* the FIFOs' paths */
        int go_fd, done_fd;
        char script[800];               /* sh -c text of the command */
} FifoGate;

/* Makes the FIFOs dir/name-go and dir/name-done (mode 0666: any user's command may open them) and
 * the script of a command that passes the gate, then exits with exit_status. Fails the running
 * test if it cannot. */
void fifo_gate_open(FifoGate *g, const char *dir, const char *name, int exit_status);
/* Waits up to timeout_ms for the command's "go": true once it is inside the gate. */
bool fifo_gate_wait(FifoGate *g, int timeout_ms);
/* Lets the command end. */
void fifo_gate_release(FifoGate *g);
/* Closes and removes the FIFOs. */
void fifo_gate_close(FifoGate *g);
