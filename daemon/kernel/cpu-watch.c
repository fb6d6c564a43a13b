/* cpu-watch.c: see cpu-watch.h. */
#include <errno.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cpu-watch.h"
#include "log.h"
#include "macro.h"

#define CPU_DEVPATH "/devices/system/cpu/cpu"

struct CpuWatch {
        int fd;
        sd_event_source *source;
        CpuWatchHandler handler;
        void *userdata;
};

CpuWatch *cpu_watch_free(CpuWatch *w) {
        if (!w)
                return NULL;
        sd_event_source_disable_unref(w->source);
        if (w->fd >= 0)
                close(w->fd);
        free(w);
        return NULL;
}
DEFINE_FREEP(CpuWatch, cpu_watch_free);

/* The header "ACTION@DEVPATH" carries both; the KEY=value lines after it repeat them. */
int cpu_watch_parse(const char *buf, size_t len, unsigned *ret_cpu, bool *ret_online) {
        const char *at, *number;
        unsigned long cpu;
        char *end;
        size_t header;
        bool online;

        header = strnlen(buf, len);
        if (header == len)
                return 0;                       /* no terminated header */
        if (strncmp(buf, "online@", 7) == 0)
                online = true;
        else if (strncmp(buf, "offline@", 8) == 0)
                online = false;
        else
                return 0;
        at = strchr(buf, '@') + 1;
        if (strncmp(at, CPU_DEVPATH, strlen(CPU_DEVPATH)) != 0)
                return 0;
        number = at + strlen(CPU_DEVPATH);
        if (*number < '0' || *number > '9')
                return 0;
        cpu = strtoul(number, &end, 10);
        if (*end != '\0' || cpu >= 65536)
                return 0;
        *ret_cpu = (unsigned) cpu;
        *ret_online = online;
        return 1;
}

static int on_uevent(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        CpuWatch *w = userdata;
        char buf[8192];

        (void) s, (void) revents;
        for (;;) {
                ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
                unsigned cpu;
                bool online;

                if (n < 0) {
                        if (errno != EAGAIN && errno != EINTR && errno != ENOBUFS)
                                log_warning_errno(-errno, "Reading CPU hotplug events failed: %m");
                        return 0;
                }
                buf[n] = '\0';
                if (cpu_watch_parse(buf, (size_t) n, &cpu, &online) > 0) {
                        log_info("CPU %u went %s.", cpu, online ? "online" : "offline");
                        w->handler(cpu, online, w->userdata);
                }
        }
}

int cpu_watch_new(sd_event *event, CpuWatchHandler handler, void *userdata, CpuWatch **ret) {
        _cleanup_(cpu_watch_freep) CpuWatch *w = NULL;
        struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
        int r;

        w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        w->handler = handler;
        w->userdata = userdata;
        w->fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT);
        if (w->fd < 0)
                return -errno;
        if (bind(w->fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                return -errno;
        r = sd_event_add_io(event, &w->source, w->fd, EPOLLIN, on_uevent, w);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(w);
        return 0;
}
