/* cpu-watch.h: CPU hotplug as it happens, from the kernel's uevents (NETLINK_KOBJECT_UEVENT:
 * "online@/devices/system/cpu/cpuN", "offline@..."), which the kernel sends with or without udev. */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>

typedef struct CpuWatch CpuWatch;
typedef void (*CpuWatchHandler)(unsigned cpu, bool online, void *userdata);

int cpu_watch_new(sd_event *event, CpuWatchHandler handler, void *userdata, CpuWatch **ret);
CpuWatch *cpu_watch_free(CpuWatch *w);
/* Parses one uevent datagram: 1 and *ret_cpu, *ret_online for a CPU going on- or offline, else 0. */
int cpu_watch_parse(const char *buf, size_t len, unsigned *ret_cpu, bool *ret_online);
