/* pm-mx-wp.c: the multi-set calls on the calling process's context on a cgroup (AIX's _wp_mx and
 * _wp_mm; pm_set_program_mx(3), pm_set_program_wp(3)): the cgroup named by its id, as pm-wp.c
 * names it, and the sets, checks and replies of the other scopes (reply-mx.h). */
#include "bus.h"
#include "catalog.h"
#include "macro.h"
#include "reply-mx.h"

static int set_program(cid_t cid, const MxProgram *p) {
        return bus_call("SetCgroupProgramMx", NULL, "t" MX_PROGRAM_TYPES, (uint64_t) cid, MX_PROGRAM_ARGS(p));
}

int pm_set_program_wp_mx(cid_t cid, pm_prog_mx_t *prog) {
        MxProgram p;
        int r = mx_program_from_mx(prog, &p);

        return r != 0 ? r : set_program(cid, &p);
}

int pm_set_program_wp_mm(cid_t cid, pm_prog_mm_t *prog) {
        MxProgram p;
        int r = mx_program_from_mm(prog, &p);

        return r != 0 ? r : set_program(cid, &p);
}

static int get_program(cid_t cid, MxProgram *ret) {
        _cleanup_(bus_reply_unrefp) sd_bus_message *reply = NULL;
        int r;

        if (!catalog_is_installed())
                return PM_ENOTINIT;
        r = bus_call("GetCgroupProgramMx", &reply, "t", (uint64_t) cid);
        return r != 0 ? r : reply_read_program_mx(reply, ret);
}

int pm_get_program_wp_mx(cid_t cid, pm_prog_mx_t *prog) {
        MxProgram p;
        int r;

        if (!prog)
                return PM_EFAULT;
        prog->events_set = NULL;
        prog->nb_events_prog = 0;
        r = get_program(cid, &p);
        return r != 0 ? r : mx_program_to_mx(&p, prog);
}

int pm_get_program_wp_mm(cid_t cid, pm_prog_mm_t *prog) {
        MxProgram p;
        int r;

        if (!prog)
                return PM_EFAULT;
        prog->prog_set = NULL;
        prog->nb_set_prog = 0;
        r = get_program(cid, &p);
        return r != 0 ? r : mx_program_to_mm(&p, prog);
}

/* The sum over every CPU (lcpuid < 0), or one CPU by its Linux number. */
static int get_data(pm_wp_handle_t hwpar, int lcpuid, bool one_cpu, pm_data_mx_t *data, timebasestruct_t *time) {
        _cleanup_(bus_reply_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = begin_data_mx(data);
        if (r != 0)
                return r;
        if (one_cpu && lcpuid < 0)
                return PM_ECPU;
        r = one_cpu ? bus_call("GetCgroupCpuDataMx", &reply, "tub", (uint64_t) hwpar, (uint32_t) lcpuid, 1) :
                      bus_call("GetCgroupDataMx", &reply, "t", (uint64_t) hwpar);
        return r != 0 ? r : reply_read_data_mx(reply, /* group= */ false, data, time);
}

int pm_get_data_wp_mx(pm_wp_handle_t hwpar, pm_data_mx_t *data) {
        return get_data(hwpar, -1, false, data, NULL);
}

int pm_get_tdata_wp_mx(pm_wp_handle_t hwpar, pm_data_mx_t *data, timebasestruct_t *time) {
        return get_data(hwpar, -1, false, data, time);
}

int pm_get_data_lcpu_wp_mx(pm_wp_handle_t hwpar, int lcpuid, pm_data_mx_t *data) {
        return get_data(hwpar, lcpuid, true, data, NULL);
}

int pm_get_tdata_lcpu_wp_mx(pm_wp_handle_t hwpar, int lcpuid, pm_data_mx_t *data, timebasestruct_t *time) {
        return get_data(hwpar, lcpuid, true, data, time);
}
