/* pm-system.c: the system-wide calls (pm_set_program(3)): one context per CPU, owned by the calling
 * process. They name no thread; pmapid knows the caller's process from the bus. */
#include "bus.h"
#include "catalog.h"
#include "reply.h"

int pm_set_program(pm_prog_t *prog) {
        return call_set_program("SetSystemProgram", target_none(), prog);
}

int pm_get_program(pm_prog_t *prog) {
        return call_get_program("GetSystemProgram", target_none(), prog);
}

int pm_delete_program(void) {
        return call_simple("DeleteSystemProgram", target_none());
}

int pm_start(void) {
        return call_simple("StartSystem", target_none());
}

int pm_stop(void) {
        return call_simple("StopSystem", target_none());
}

int pm_reset_data(void) {
        return call_simple("ResetSystemData", target_none());
}

int pm_get_tdata(pm_data_t *data, timebasestruct_t *time) {
        return call_get_data("GetSystemData", target_none(), /* group= */ false, data, time, NULL);
}

int pm_get_data(pm_data_t *data) {
        return pm_get_tdata(data, NULL);
}

/* One CPU: by its position among the CPUs online now (logical false) or by its number. */
static int get_cpu_data(int id, bool logical, pm_data_t *data, timebasestruct_t *time) {
        _cleanup_(bus_reply_unrefp) sd_bus_message *reply = NULL;
        int r;

        if (!data)
                return PM_EFAULT;
        if (!catalog_is_installed())
                return PM_ENOTINIT;
        if (id < 0)
                return PM_ECPU;
        r = bus_call("GetCpuData", &reply, "ub", (uint32_t) id, (int) logical);
        if (r != 0)
                return r;
        return reply_read_data(reply, data, time);
}

int pm_get_tdata_cpu(int cpuid, pm_data_t *data, timebasestruct_t *time) {
        return get_cpu_data(cpuid, false, data, time);
}

int pm_get_data_cpu(int cpuid, pm_data_t *data) {
        return get_cpu_data(cpuid, false, data, NULL);
}

int pm_get_tdata_lcpu(int lcpuid, pm_data_t *data, timebasestruct_t *time) {
        return get_cpu_data(lcpuid, true, data, time);
}

int pm_get_data_lcpu(int lcpuid, pm_data_t *data) {
        return get_cpu_data(lcpuid, true, data, NULL);
}
