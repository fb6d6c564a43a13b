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

int pm_tstart(timebasestruct_t *time) {
        return time ? call_switch("StartSystem", target_none(), time) : PM_EFAULT;
}

int pm_start(void) {
        return call_switch("StartSystem", target_none(), NULL);
}

int pm_tstop(timebasestruct_t *time) {
        return time ? call_switch("StopSystem", target_none(), time) : PM_EFAULT;
}

int pm_stop(void) {
        return call_switch("StopSystem", target_none(), NULL);
}

int pm_reset_data(void) {
        return call_simple("ResetSystemData", target_none());
}

int pm_get_tdata(pm_data_t *data, timebasestruct_t *time) {
        return call_get_data("GetSystemData", target_none(), /* group= */ false, data, time, NULL, NULL);
}

int pm_get_Tdata(pm_data_t *data, pm_accu_time_t *times) {
        if (!times)
                return PM_EFAULT;
        return call_get_data("GetSystemData", target_none(), /* group= */ false, data, NULL, times, NULL);
}

int pm_get_data(pm_data_t *data) {
        return pm_get_tdata(data, NULL);
}

/* One CPU: by its position among the CPUs online now (logical false) or by its number. */
static int get_cpu_data(int id, bool logical, pm_data_t *data, timebasestruct_t *time, pm_accu_time_t *times) {
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
        r = reply_read_data(reply, data, time);
        return r != 0 || !times ? r : reply_read_times(reply, "u", times);
}

int pm_get_tdata_cpu(int cpuid, pm_data_t *data, timebasestruct_t *time) {
        return get_cpu_data(cpuid, false, data, time, NULL);
}

int pm_get_data_cpu(int cpuid, pm_data_t *data) {
        return get_cpu_data(cpuid, false, data, NULL, NULL);
}

int pm_get_tdata_lcpu(int lcpuid, pm_data_t *data, timebasestruct_t *time) {
        return get_cpu_data(lcpuid, true, data, time, NULL);
}

int pm_get_data_lcpu(int lcpuid, pm_data_t *data) {
        return get_cpu_data(lcpuid, true, data, NULL, NULL);
}

int pm_get_Tdata_cpu(int cpuid, pm_data_t *data, pm_accu_time_t *times) {
        return times ? get_cpu_data(cpuid, false, data, NULL, times) : PM_EFAULT;
}

int pm_get_Tdata_lcpu(int lcpuid, pm_data_t *data, pm_accu_time_t *times) {
        return times ? get_cpu_data(lcpuid, true, data, NULL, times) : PM_EFAULT;
}
