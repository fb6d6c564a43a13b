/* paranoid.c: see paranoid.h. */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "paranoid.h"

static char paranoid_saved[16];
static size_t paranoid_saved_len;
static pid_t test_pid;

static int paranoid_write(const char *text, size_t n) {
        int fd = open(PARANOID_PATH, O_WRONLY | O_CLOEXEC);
        bool ok = fd >= 0 && write(fd, text, n) == (ssize_t) n;

        return fd >= 0 && close(fd) == 0 && ok ? 0 : -1;
}

void paranoid_restore_for_test(void) {
        if (paranoid_saved_len > 0 && getpid() == test_pid)
                (void) paranoid_write(paranoid_saved, paranoid_saved_len);
}

static void paranoid_restore_and_die(int sig) {
        paranoid_restore_for_test();
        raise(sig);                     /* SA_RESETHAND: the default action this time */
}

int paranoid_set_for_test(int value) {
        struct sigaction sa = { .sa_handler = paranoid_restore_and_die, .sa_flags = SA_RESETHAND };
        char text[16];
        ssize_t n;
        int fd;

        if (paranoid_saved_len == 0) {
                fd = open(PARANOID_PATH, O_RDONLY | O_CLOEXEC);
                n = fd >= 0 ? read(fd, paranoid_saved, sizeof(paranoid_saved) - 1) : -1;
                if (fd >= 0)
                        close(fd);
                if (n <= 0)
                        return -1;
                test_pid = getpid();
                paranoid_saved_len = (size_t) n;
                if (atexit(paranoid_restore_for_test) != 0 || sigaction(SIGABRT, &sa, NULL) < 0 ||
                    sigaction(SIGTERM, &sa, NULL) < 0 || sigaction(SIGINT, &sa, NULL) < 0)
                        return -1;
        }
        n = snprintf(text, sizeof(text), "%d\n", value);
        return paranoid_write(text, (size_t) n);
}

int paranoid_now(void) {
        char text[16] = "";
        int fd = open(PARANOID_PATH, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;

        if (fd >= 0)
                close(fd);
        return n > 0 ? atoi(text) : 3;
}
