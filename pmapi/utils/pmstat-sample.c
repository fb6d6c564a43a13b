/* pmstat-sample.c: one read of every CPU's counts for pmstat, system-wide or of a cgroup. The CPUs
 * are the Linux numbers 0 to sysconf(_SC_NPROCESSORS_CONF) - 1, read one after the other with
 * pm_get_Tdata_lcpu() (pm_get_Tdata_lcpu_wp() for a cgroup), which also say how long each CPU's
 * counters were enabled and ran; a CPU that has not been online since the program was set answers
 * PM_ECPU and is left out. Whether a CPU is online now comes from
 * /sys/devices/system/cpu/online (read by pmapid's cpu-list.c), so that an offline CPU, which keeps
 * its last counts, can be shown as such. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpu-list.h"
#include "macro.h"
#include "pmstat.h"

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
        s->time = calloc((size_t) n_cpus, sizeof(*s->time));
        if (!s->counted || !s->online || !s->counts || !s->time) {
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
        free(s->time);
        free(s);
        return NULL;
}

/* Marks the CPUs of the kernel's online list (pmapid's parser); false if it cannot be read. */
static bool read_online(bool *online, int n_cpus) {
        _cleanup_free_ bool *now = NULL;

        if (cpu_list_read(CPU_LIST_ONLINE, (size_t) n_cpus, &now) < 0)
                return false;
        memcpy(online, now, (size_t) n_cpus * sizeof(bool));
        return true;
}

int sample_read(Sample *s, cid_t cid, unsigned long long time_ns) {
        s->time_ns = time_ns;
        if (!read_online(s->online, s->n_cpus))
                for (int c = 0; c < s->n_cpus; c++)
                        s->online[c] = true;    /* unknown: not worth flagging */
        for (int c = 0; c < s->n_cpus; c++) {
                pm_accu_time_t times;
                pm_data_t data;
                int r = cid ? pm_get_Tdata_lcpu_wp(cid, c, &data, &times)
                            : pm_get_Tdata_lcpu(c, &data, &times);

                if (r == PM_ECPU) {
                        s->counted[c] = false;
                        continue;
                }
                if (r != 0)
                        return r;
                s->counted[c] = true;
                memcpy(s->counts[c], data.accu, sizeof(data.accu));
                s->time[c] = count_time_from_accu(&times);
        }
        return 0;
}
