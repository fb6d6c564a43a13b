/* fork-hooks.c: what libpmapi does around a fork(), in order: the bus connection's lock is taken
 * first and given back last, and the handles of reads in process, which read the parent's threads,
 * go in the child. Above both: neither calls the other. */
#include <pthread.h>

#include "bus.h"
#include "local.h"

static void prepare(void) {
        bus_prepare_fork();
        local_prepare_fork();
}

static void parent(void) {
        local_parent_after_fork();
        bus_parent_after_fork();
}

static void child(void) {
        bus_child_after_fork();
        local_forget_after_fork();      /* every handle reads a parent's thread */
}

__attribute__((constructor)) static void register_fork_hooks(void) {
        (void) pthread_atfork(prepare, parent, child);
}
