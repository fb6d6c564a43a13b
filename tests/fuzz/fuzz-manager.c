/* fuzz-manager.c: pmapid's real bus objects (the Manager and the thread, group and CPU objects,
 * manager_bus_register()) fed arbitrary bytes by a D-Bus peer over a socketpair: sd-bus in server
 * mode with anonymous authentication, the fake counter backend, no event loop. The input is what
 * the peer writes after authenticating: messages, well formed or not. Built with clang's libFuzzer
 * (tests/fuzz/run.sh) it explores; built with the ordinary compiler (fuzz-manager-replay) it
 * replays the committed corpus as a unit test, under ASan too. Like systemd's fuzz-varlink.c. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-id128.h>
#include <unistd.h>

#include "counter.h"
#include "event-table.h"
#include "log.h"
#include "manager-dbus.h"
#include "manager.h"

/* Larger inputs would not fit in the socket buffer, which this harness fills before serving. */
#define FUZZ_MAX_INPUT (64 * 1024)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static const char auth[] = "\0AUTH ANONYMOUS\r\nBEGIN\r\n";
        sd_bus *server = NULL;
        EventTable *events = NULL;
        Manager *m = NULL;
        sd_id128_t id;
        char sink[4096];
        int fds[2];

        if (size > FUZZ_MAX_INPUT)
                return 0;
        log_max_level = 2;                              /* refusals are not news here */
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) < 0)
                abort();
        if (write(fds[1], auth, sizeof(auth) - 1) != (ssize_t) sizeof(auth) - 1 ||
            (size > 0 && write(fds[1], data, size) != (ssize_t) size))
                abort();
        (void) shutdown(fds[1], SHUT_WR);
        if (sd_id128_randomize(&id) < 0 || sd_bus_new(&server) < 0 || sd_bus_set_fd(server, fds[0], fds[0]) < 0 ||
            sd_bus_set_server(server, 1, id) < 0 || sd_bus_set_anonymous(server, 1) < 0 || sd_bus_start(server) < 0)
                abort();
        if (event_table_new_unprobed(event_sources, n_event_sources, &events) < 0 ||
            manager_new(NULL, &counter_backend_fake, events, &m) < 0 || manager_bus_register(m, server) < 0)
                abort();
        /* Serve until the peer's bytes are used up or the connection broke; drain the answers. */
        for (int i = 0; i < 10000; i++) {
                int r = sd_bus_process(server, NULL);
                while (read(fds[1], sink, sizeof(sink)) > 0)
                        ;
                if (r <= 0)
                        break;
        }
        sd_bus_close(server);
        manager_free(m);
        sd_bus_unref(server);
        close(fds[1]);
        return 0;
}
