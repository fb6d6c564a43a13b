/* pm-system.c: the system-wide calls (pm_set_program(3)): one context per CPU, owned by the calling
 * process. They name no thread; pmapid knows the caller's process from the bus. */
#include "bus.h"
#include "catalog.h"
#include "reply.h"
#include "scope.h"

int pm_set_program(pm_prog_t *prog) {
        return scope_set_program(&scope_system, target_none(), prog);
}

int pm_get_program(pm_prog_t *prog) {
        return scope_get_program(&scope_system, target_none(), prog);
}

int pm_delete_program(void) {
        return scope_delete_program(&scope_system, target_none());
}

int pm_tstart(timebasestruct_t *time) {
        return scope_tswitch(&scope_system, target_none(), true, time);
}

int pm_start(void) {
        return scope_switch(&scope_system, target_none(), true, NULL);
}

int pm_tstop(timebasestruct_t *time) {
        return scope_tswitch(&scope_system, target_none(), false, time);
}

int pm_stop(void) {
        return scope_switch(&scope_system, target_none(), false, NULL);
}

int pm_reset_data(void) {
        return scope_reset_data(&scope_system, target_none());
}

int pm_get_tdata(pm_data_t *data, timebasestruct_t *time) {
        return scope_get_data(&scope_system, target_none(), data, time, NULL);
}

int pm_get_Tdata(pm_data_t *data, pm_accu_time_t *times) {
        return scope_get_Tdata(&scope_system, target_none(), data, times, NULL);
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
