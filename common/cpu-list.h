/* cpu-list.h: the kernel's CPU lists ("0-3,5,7-8" in /sys/devices/system/cpu/{online,possible}) as
 * arrays of flags indexed by CPU number. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define CPU_LIST_ONLINE   "/sys/devices/system/cpu/online"
#define CPU_LIST_POSSIBLE "/sys/devices/system/cpu/possible"

/* Sets set[n] for every CPU n in text; CPUs at or above n_set are an error (-ERANGE). -EINVAL on
 * text that is not a CPU list. */
int cpu_list_parse(const char *text, bool *set, size_t n_set);
/* The number of CPU numbers the kernel may ever use: the highest possible CPU + 1. */
int cpu_list_n_possible(size_t *ret);
/* Reads a list file into a fresh array of n flags. */
int cpu_list_read(const char *path, size_t n, bool **ret);
