/* pmstat-sample.c: one read of every CPU's system-wide counts for pmstat. The CPUs are the Linux
 * numbers 0 to sysconf(_SC_NPROCESSORS_CONF) - 1, read one after the other with
 * pm_get_data_lcpu(); a CPU that has not been online since pm_set_program() answers PM_ECPU and is
 * left out. Whether a CPU is online now comes from /sys/devices/system/cpu/online, so that an
 * offline CPU, which keeps its last counts, can be shown as such. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "pmstat.h"

#define ONLINE_PATH "/sys/devices/system/cpu/online"

int sample_new(int n_cpus, Sample **ret) {
        Sample *s;

        if (n_cpus <= 0)
                return -EINVAL;
        s = calloc(1, sizeof(Sample));
        if (!s)
                return -ENOMEM;
        s->n_cpus = n_cpus;
        s->counted = calloc((size_t) n_cpus, sizeof(bool));
        s->online = calloc((size_t) n_cpus, sizeof(bool));
        s->counts = calloc((size_t) n_cpus, sizeof(*s->counts));
        if (!s->counted || !s->online || !s->counts) {
                sample_free(s);
                return -ENOMEM;
        }
        *ret = s;
        return 0;
}

Sample *sample_free(Sample *s) {
        if (!s)
                return NULL;
        free(s->counted);
        free(s->online);
        free(s->counts);
        free(s);
        return NULL;
}

/* Marks the CPUs of the kernel's list ("0-3,6,8-9") online; false if the list cannot be read. */
static bool read_online(bool *online, int n_cpus) {
        char text[4096], *p, *end;
        size_t n;
        FILE *f;

        f = fopen(ONLINE_PATH, "re");
        if (!f)
                return false;
        n = fread(text, 1, sizeof(text) - 1, f);
        fclose(f);
        if (n == 0)
                return false;
        text[n] = '\0';
        memset(online, 0, (size_t) n_cpus * sizeof(bool));
        for (p = text; *p && *p != '\n'; p = end + (*end == ',')) {
                long first, last;

                errno = 0;
                first = strtol(p, &end, 10);
                last = first;
                if (end == p || errno != 0)
                        return false;
                if (*end == '-') {
                        p = end + 1;
                        last = strtol(p, &end, 10);
                        if (end == p || errno != 0)
                                return false;
                }
                if (*end != ',' && *end != '\n' && *end != '\0')
                        return false;
                for (long c = first; c <= last && c < n_cpus; c++)
                        if (c >= 0)
                                online[c] = true;
        }
        return true;
}

int sample_read(Sample *s, unsigned long long time_ns) {
        s->time_ns = time_ns;
        if (!read_online(s->online, s->n_cpus))
                for (int c = 0; c < s->n_cpus; c++)
                        s->online[c] = true;    /* unknown: not worth flagging */
        for (int c = 0; c < s->n_cpus; c++) {
                pm_data_t data;
                int r = pm_get_data_lcpu(c, &data);

                if (r == PM_ECPU) {
                        s->counted[c] = false;
                        continue;
                }
                if (r != 0)
                        return r;
                s->counted[c] = true;
                memcpy(s->counts[c], data.accu, sizeof(data.accu));
        }
        return 0;
}
