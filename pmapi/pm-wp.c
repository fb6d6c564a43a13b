/* pm-wp.c: the cgroup calls (pm_set_program_wp(3)), AIX's WPAR calls with a cgroup v2 for the
 * WPAR. pm_get_wplist() names cgroups by path; the other calls take the id it returns (cid and
 * handle alike). pmapid checks who may count which cgroup; the calling process owns the context. */
#include <string.h>

#include "bus.h"
#include "catalog.h"
#include "macro.h"
#include "reply.h"

_Static_assert(MAX_COUNTERS == 8, "SetCgroupProgram below spells out eight events");

int pm_get_wplist(const char *name, pm_wpar_ctx_info_t *wp_list, int *size) {
        _cleanup_(bus_reply_unrefp) sd_bus_message *reply = NULL;
        int room, n = 0, r;

        if (!size || (wp_list && *size < 0))
                return PM_EFAULT;
        room = wp_list ? *size : 0;
        r = bus_call("ListCgroups", &reply, "sb", name ? name : "/", (int) (name == NULL));
        if (r != 0)
                return r;
        if (sd_bus_message_enter_container(reply, 'a', "(tsb)") < 0)
                return PM_EDAEMON;
        for (;;) {
                const char *path;
                uint64_t id;
                int removed;

                r = sd_bus_message_read(reply, "(tsb)", &id, &path, &removed);
                if (r < 0)
                        return PM_EDAEMON;
                if (r == 0)
                        break;
                if (n < room) {
                        pm_wpar_ctx_info_t *e = &wp_list[n];
                        size_t l = strlen(path);

                        memset(e, 0, sizeof(*e));
                        e->cid = id;
                        e->hwpar = id;
                        e->removed = removed;
                        /* pmapid sends at most 4095 bytes of path: only what its escaping of bytes that
                         * are not UTF-8 added can pass the field, and is cut. */
                        memcpy(e->name, path, l < MAXCORRALNAMELEN ? l : MAXCORRALNAMELEN);
                }
                n++;
        }
        *size = n;
        return 0;
}

int pm_set_program_wp(cid_t cid, pm_prog_t *prog) {
        int32_t e[MAX_COUNTERS];
        int r;

        if (!prog)
                return PM_EFAULT;
        r = catalog_check_program(prog, e);
        if (r != 0)
                return r;
        return bus_call("SetCgroupProgram", NULL, "tiai", (uint64_t) cid, (int32_t) prog->mode.w, MAX_COUNTERS,
                        e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7]);
}

int pm_get_program_wp(cid_t cid, pm_prog_t *prog) {
        _cleanup_(bus_reply_unrefp) sd_bus_message *reply = NULL;
        int r;

        if (!prog)
                return PM_EFAULT;
        if (!catalog_is_installed())
                return PM_ENOTINIT;
        r = bus_call("GetCgroupProgram", &reply, "t", (uint64_t) cid);
        if (r != 0)
                return r;
        return reply_read_program(reply, prog);
}

/* A method on the caller's context on the cgroup: with time, its reply (Start, Stop) is the time
 * of the switch. */
static int call_cgroup(const char *method, cid_t cid, timebasestruct_t *time) {
        _cleanup_(bus_reply_unrefp) sd_bus_message *reply = NULL;
        int r;

        if (!catalog_is_installed())
                return PM_ENOTINIT;
        r = bus_call(method, time ? &reply : NULL, "t", (uint64_t) cid);
        if (r != 0 || !time)
                return r;
        return reply_read_stamp(reply, time);
}

int pm_delete_program_wp(cid_t cid) {
        return call_cgroup("DeleteCgroupProgram", cid, NULL);
}

int pm_tstart_wp(cid_t cid, timebasestruct_t *time) {
        return time ? call_cgroup("StartCgroup", cid, time) : PM_EFAULT;
}

int pm_start_wp(cid_t cid) {
        return call_cgroup("StartCgroup", cid, NULL);
}

int pm_tstop_wp(cid_t cid, timebasestruct_t *time) {
        return time ? call_cgroup("StopCgroup", cid, time) : PM_EFAULT;
}

int pm_stop_wp(cid_t cid) {
        return call_cgroup("StopCgroup", cid, NULL);
}

int pm_reset_data_wp(cid_t cid) {
        return call_cgroup("ResetCgroupData", cid, NULL);
}

/* A cgroup context's data: the sum (lcpuid < 0, GetCgroupData: data, time, removed, times) or one
 * CPU's (GetCgroupCpuData: data, time, cpu, times). */
static int get_wp(pm_wp_handle_t hwpar, int lcpuid, pm_data_t *data, timebasestruct_t *time, pm_accu_time_t *times) {
        _cleanup_(bus_reply_unrefp) sd_bus_message *reply = NULL;
        int r;

        if (!data)
                return PM_EFAULT;
        if (!catalog_is_installed())
                return PM_ENOTINIT;
        r = lcpuid < 0 ? bus_call("GetCgroupData", &reply, "t", (uint64_t) hwpar)
                       : bus_call("GetCgroupCpuData", &reply, "tub", (uint64_t) hwpar, (uint32_t) lcpuid, 1);
        if (r != 0)
                return r;
        r = reply_read_data(reply, data, time);
        return r != 0 || !times ? r : reply_read_times(reply, lcpuid < 0 ? "b" : "u", times);
}

int pm_get_tdata_wp(pm_wp_handle_t hwpar, pm_data_t *data, timebasestruct_t *time) {
        return get_wp(hwpar, -1, data, time, NULL);
}

int pm_get_Tdata_wp(pm_wp_handle_t hwpar, pm_data_t *data, pm_accu_time_t *times) {
        return times ? get_wp(hwpar, -1, data, NULL, times) : PM_EFAULT;
}

int pm_get_data_wp(pm_wp_handle_t hwpar, pm_data_t *data) {
        return get_wp(hwpar, -1, data, NULL, NULL);
}

int pm_get_tdata_lcpu_wp(pm_wp_handle_t hwpar, int lcpuid, pm_data_t *data, timebasestruct_t *time) {
        return lcpuid < 0 ? PM_ECPU : get_wp(hwpar, lcpuid, data, time, NULL);
}

int pm_get_Tdata_lcpu_wp(pm_wp_handle_t hwpar, int lcpuid, pm_data_t *data, pm_accu_time_t *times) {
        if (!times)
                return PM_EFAULT;
        return lcpuid < 0 ? PM_ECPU : get_wp(hwpar, lcpuid, data, NULL, times);
}

int pm_get_data_lcpu_wp(pm_wp_handle_t hwpar, int lcpuid, pm_data_t *data) {
        return pm_get_tdata_lcpu_wp(hwpar, lcpuid, data, NULL);
}
