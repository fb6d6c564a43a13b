/* raw-bus.h: a D-Bus client written on a bare socket, for the identity tests. sd-bus and GDBus
 * refuse to use a connection in a process that did not open it, which is exactly what a hostile
 * client does: it connects, forks, and its child goes on talking on the parent's connection after
 * the parent has exited. This speaks the wire protocol itself (little-endian, EXTERNAL auth) and
 * knows the few argument types pmapid's Manager takes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Connects to $DBUS_SYSTEM_BUS_ADDRESS (unix:path=...) as the calling process, authenticates and
 * says Hello. Returns the socket fd, or -1. */
int raw_bus_connect(void);

/* One argument of a call: its D-Bus type ('i', 'u', 'b', 't', 's', or 'a' for an array of 8 int32,
 * a program's events) and its value ('a': the first element; the others are COUNT_NOTHING). */
typedef struct RawArg {
        char type;
        int64_t value;                  /* 'a': the first element gets this value */
        const char *text;               /* 's' */
} RawArg;

/* Sends a call to pmapid's Manager without waiting: 0 or -1. */
int raw_bus_send(int fd, const char *method, const RawArg *args, size_t n_args);
/* Waits for the next answer to any call: 0 a method return, 1 an error (its name in error_name),
 * -1 if the connection failed. */
int raw_bus_read_answer(int fd, char *error_name, size_t error_name_size);
/* Calls method on pmapid's Manager and waits for the answer. Returns 0 for a method return, 1 for
 * an error (its name in error_name), -1 if the connection failed. */
int raw_bus_call(int fd, const char *method, const RawArg *args, size_t n_args, char *error_name,
                 size_t error_name_size);
