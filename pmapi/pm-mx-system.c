/* pm-mx-system.c: the multi-set calls (_mx, _mm; pm_set_program_mx(3)) on the system context that
 * the calling process owns (pm_set_program(3)), and its reads by CPU. They name no thread; pmapid
 * knows the caller's process from the bus. */
#include "bus.h"
#include "macro.h"
#include "reply-mx.h"

int pm_set_program_mx(pm_prog_mx_t *prog) {
        return call_set_program_mx("SetSystemProgramMx", target_none(), prog);
}

int pm_set_program_mm(pm_prog_mm_t *prog) {
        return call_set_program_mm("SetSystemProgramMx", target_none(), prog);
}

int pm_get_program_mx(pm_prog_mx_t *prog) {
        return call_get_program_mx("GetSystemProgramMx", target_none(), prog);
}

int pm_get_program_mm(pm_prog_mm_t *prog) {
        return call_get_program_mm("GetSystemProgramMx", target_none(), prog);
}

int pm_get_tdata_mx(pm_data_mx_t *data, timebasestruct_t *time) {
        return call_get_data_mx("GetSystemDataMx", target_none(), /* group= */ false, data, time);
}

int pm_get_data_mx(pm_data_mx_t *data) {
        return pm_get_tdata_mx(data, NULL);
}

/* One CPU, numbered as pm_get_data_cpu(3) and pm_get_data_lcpu(3) number it: by its position among
 * the CPUs online now (logical false) or by its Linux number. */
static int get_cpu_data(int id, bool logical, pm_data_mx_t *data, timebasestruct_t *time) {
        _cleanup_(bus_reply_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = begin_data_mx(data);
        if (r != 0)
                return r;
        if (id < 0)
                return PM_ECPU;
        r = bus_call("GetCpuDataMx", &reply, "ub", (uint32_t) id, (int) logical);
        if (r != 0)
                return r;
        return reply_read_data_mx(reply, /* group= */ false, data, time);
}

int pm_get_tdata_cpu_mx(int cpuid, pm_data_mx_t *data, timebasestruct_t *time) {
        return get_cpu_data(cpuid, /* logical= */ false, data, time);
}

int pm_get_data_cpu_mx(int cpuid, pm_data_mx_t *data) {
        return get_cpu_data(cpuid, /* logical= */ false, data, NULL);
}

int pm_get_tdata_lcpu_mx(int lcpuid, pm_data_mx_t *data, timebasestruct_t *time) {
        return get_cpu_data(lcpuid, /* logical= */ true, data, time);
}

int pm_get_data_lcpu_mx(int lcpuid, pm_data_mx_t *data) {
        return get_cpu_data(lcpuid, /* logical= */ true, data, NULL);
}
