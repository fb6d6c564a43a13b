/* raw-bus.c: see raw-bus.h. The D-Bus specification's wire format, little-endian: a 16-byte fixed
 * header, an array of (code, variant) header fields, padding to 8, the body. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "raw-bus.h"

enum { FIELD_PATH = 1, FIELD_INTERFACE, FIELD_MEMBER, FIELD_ERROR_NAME, FIELD_REPLY_SERIAL, FIELD_DESTINATION,
       FIELD_SENDER, FIELD_SIGNATURE };
enum { TYPE_METHOD_CALL = 1, TYPE_METHOD_RETURN, TYPE_ERROR, TYPE_SIGNAL };

typedef struct Buf {
        uint8_t data[1024];
        size_t n;
} Buf;

static void pad(Buf *b, size_t align) {
        while (b->n % align)
                b->data[b->n++] = 0;
}

static void put(Buf *b, const void *p, size_t n, size_t align) {
        pad(b, align);
        memcpy(b->data + b->n, p, n);
        b->n += n;
}

static void put_u32(Buf *b, uint32_t v) {
        put(b, &v, 4, 4);
}

static void put_string(Buf *b, const char *s) {          /* 's' and 'o' */
        put_u32(b, (uint32_t) strlen(s));
        put(b, s, strlen(s) + 1, 1);
}

static void put_signature(Buf *b, const char *s) {       /* 'g' */
        uint8_t len = (uint8_t) strlen(s);
        put(b, &len, 1, 1);
        put(b, s, strlen(s) + 1, 1);
}

static void put_field(Buf *b, uint8_t code, char type, const char *value) {
        char sig[2] = { type, 0 };

        pad(b, 8);
        put(b, &code, 1, 1);
        put_signature(b, sig);
        if (type == 'g')
                put_signature(b, value);
        else
                put_string(b, value);
}

static int write_all(int fd, const void *p, size_t n) {
        for (size_t done = 0; done < n;) {
                ssize_t k = write(fd, (const uint8_t *) p + done, n - done);
                if (k <= 0)
                        return -1;
                done += (size_t) k;
        }
        return 0;
}

static int read_all(int fd, void *p, size_t n) {
        for (size_t done = 0; done < n;) {
                ssize_t k = read(fd, (uint8_t *) p + done, n - done);
                if (k <= 0)
                        return -1;
                done += (size_t) k;
        }
        return 0;
}

static int send_call(int fd, uint32_t serial, const char *destination, const char *path, const char *interface,
                     const char *member, const RawArg *args, size_t n_args) {
        Buf header = {}, body = {};
        char signature[32] = "";
        uint8_t fixed[4] = { 'l', TYPE_METHOD_CALL, 0, 1 };

        for (size_t i = 0; i < n_args && i < 8; i++) {
                const RawArg *a = &args[i];
                strcat(signature, a->type == 'a' ? "ai" : (char[]) { a->type, 0 });
                if (a->type == 'i' || a->type == 'u' || a->type == 'b') {
                        uint32_t v = (uint32_t) a->value;
                        put(&body, &v, 4, 4);
                } else if (a->type == 't') {
                        uint64_t v = (uint64_t) a->value;
                        put(&body, &v, 8, 8);
                } else if (a->type == 's') {
                        put_string(&body, a->text ? a->text : "");
                } else {                                /* ai of 8 elements */
                        put_u32(&body, 8 * 4);
                        for (int k = 0; k < 8; k++) {
                                int32_t v = k == 0 ? (int32_t) a->value : -1;
                                put(&body, &v, 4, 4);
                        }
                }
        }
        put(&header, fixed, 4, 1);
        put_u32(&header, (uint32_t) body.n);
        put_u32(&header, serial);
        put_u32(&header, 0);                            /* the fields' length, filled in below */
        put_field(&header, FIELD_PATH, 'o', path);
        put_field(&header, FIELD_INTERFACE, 's', interface);
        put_field(&header, FIELD_MEMBER, 's', member);
        put_field(&header, FIELD_DESTINATION, 's', destination);
        if (signature[0])
                put_field(&header, FIELD_SIGNATURE, 'g', signature);
        uint32_t fields = (uint32_t) (header.n - 16);
        memcpy(header.data + 12, &fields, 4);
        pad(&header, 8);
        return write_all(fd, header.data, header.n) < 0 || write_all(fd, body.data, body.n) < 0 ? -1 : 0;
}

/* Reads messages until the answer to serial (0: to any call); its type, and its error name if it is
 * an error. */
static int read_answer(int fd, uint32_t serial, char *error_name, size_t size) {
        for (;;) {
                uint8_t fixed[16], *rest;
                uint32_t body_len, fields_len, reply_serial = 0;
                size_t total, off = 16;
                char error[256] = "";

                if (read_all(fd, fixed, 16) < 0)
                        return -1;
                memcpy(&body_len, fixed + 4, 4);
                memcpy(&fields_len, fixed + 12, 4);
                total = ((16 + fields_len + 7) & ~(size_t) 7) + body_len;
                if (fixed[0] != 'l' || total > 1 << 20)
                        return -1;
                rest = malloc(total);
                if (!rest)
                        return -1;
                memcpy(rest, fixed, 16);
                if (read_all(fd, rest + 16, total - 16) < 0) {
                        free(rest);
                        return -1;
                }
                while (off < 16 + fields_len) {
                        uint8_t code, sig_len;
                        char type;

                        off = (off + 7) & ~(size_t) 7;
                        code = rest[off++];
                        sig_len = rest[off++];
                        type = (char) rest[off];
                        off += sig_len + 1;
                        if (type == 'g') {
                                off += rest[off] + 2;
                        } else if (type == 'u') {
                                off = (off + 3) & ~(size_t) 3;
                                if (code == FIELD_REPLY_SERIAL)
                                        memcpy(&reply_serial, rest + off, 4);
                                off += 4;
                        } else {                        /* 's' or 'o' */
                                uint32_t len;
                                off = (off + 3) & ~(size_t) 3;
                                memcpy(&len, rest + off, 4);
                                if (code == FIELD_ERROR_NAME && len < sizeof(error))
                                        memcpy(error, rest + off + 4, len + 1);
                                off += 4 + len + 1;
                        }
                }
                int type = rest[1];
                free(rest);
                if ((type == TYPE_METHOD_RETURN || type == TYPE_ERROR) && (reply_serial == serial || serial == 0)) {
                        if (error_name)
                                snprintf(error_name, size, "%s", error);
                        return type == TYPE_ERROR ? 1 : 0;
                }
        }
}

static uint32_t next_serial = 1;

int raw_bus_connect(void) {
        const char *address = getenv("DBUS_SYSTEM_BUS_ADDRESS");
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        char line[256], hex[32], uid[16];
        ssize_t n;
        int fd;

        if (!address || strncmp(address, "unix:path=", 10) != 0)
                return -1;
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", address + 10);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -1;
        snprintf(uid, sizeof(uid), "%u", (unsigned) geteuid());
        for (size_t i = 0; uid[i]; i++)
                snprintf(hex + 2 * i, 3, "%02x", (unsigned) (unsigned char) uid[i]);
        snprintf(line, sizeof(line), "AUTH EXTERNAL %s\r\n", hex);
        if (connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0 || write_all(fd, "", 1) < 0 ||
            write_all(fd, line, strlen(line)) < 0 || (n = read(fd, line, sizeof(line) - 1)) < 3 ||
            strncmp(line, "OK ", 3) != 0 || write_all(fd, "BEGIN\r\n", 7) < 0) {
                close(fd);
                return -1;
        }
        uint32_t serial = next_serial++;
        if (send_call(fd, serial, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello",
                      NULL, 0) < 0 || read_answer(fd, serial, NULL, 0) != 0) {
                close(fd);
                return -1;
        }
        return fd;
}

int raw_bus_call(int fd, const char *method, const RawArg *args, size_t n_args, char *error_name,
                 size_t error_name_size) {
        uint32_t serial = next_serial++;

        if (send_call(fd, serial, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1", "org.pmapi.PerfMon1.Manager", method,
                      args, n_args) < 0)
                return -1;
        return read_answer(fd, serial, error_name, error_name_size);
}

int raw_bus_send(int fd, const char *method, const RawArg *args, size_t n_args) {
        return send_call(fd, next_serial++, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1", "org.pmapi.PerfMon1.Manager",
                         method, args, n_args);
}

int raw_bus_read_answer(int fd, char *error_name, size_t error_name_size) {
        return read_answer(fd, 0, error_name, error_name_size);
}
