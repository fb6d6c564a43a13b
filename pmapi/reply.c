/* reply.c: see reply.h. Each public call is one of these shapes on one target, so the files of the
 * call families (_mythread, _mygroup, _thread, _group and their pthread forms) only name their
 * methods and targets. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "bus.h"
#include "catalog.h"
#include "macro.h"
#include "reply.h"

_Static_assert(MAX_COUNTERS == 8, "SetProgram below spells out eight events");

CallTarget target_self(void) {
        return (CallTarget) { getpid(), gettid(), false };
}

CallTarget target_none(void) {
        return (CallTarget) { -1, -1, true };
}

void set_duration(timebasestruct_t *tb, uint64_t ns) {
        *tb = (timebasestruct_t) { .flag = PM_TB_MONOTONIC_NS, .tb_high = (unsigned int) (ns >> 32),
                                   .tb_low = (unsigned int) ns };
}

int target_from_pthread(pid_t pid, tid_t tid, ptid_t ptid, CallTarget *ret) {
        if (ptid != 0 && tid == 0)
                tid = (tid_t) ptid;
        else if (ptid != 0 && ptid != (ptid_t) tid)
                return PM_EPTID;
        *ret = (CallTarget) { pid, tid, false };
        return 0;
}

int call_set_program(const char *method, CallTarget t, const pm_prog_t *prog) {
        int32_t e[MAX_COUNTERS];
        int r;

        if (!prog)
                return PM_EFAULT;
        r = catalog_check_program(prog, e);
        if (r != 0)
                return r;
        return call_on(t, method, NULL, "iai", (int32_t) prog->mode.w, MAX_COUNTERS,
                       e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7]);
}

int call_get_program(const char *method, CallTarget t, pm_prog_t *prog) {
        _cleanup_(bus_reply_unrefp) sd_bus_message *reply = NULL;
        int r;

        if (!prog)
                return PM_EFAULT;
        if (!catalog_is_installed())
                return PM_ENOTINIT;
        r = call_on(t, method, &reply, NULL);
        if (r != 0)
                return r;
        return reply_read_program(reply, prog);
}

int reply_read_program(sd_bus_message *reply, pm_prog_t *prog) {
        const int32_t *events;
        size_t n_bytes;
        int32_t mode;

        if (sd_bus_message_read(reply, "i", &mode) < 0 ||
            sd_bus_message_read_array(reply, 'i', (const void **) &events, &n_bytes) < 0 ||
            n_bytes != sizeof(prog->events))
                return PM_EDAEMON;
        prog->mode.w = mode;
        memcpy(prog->events, events, sizeof(prog->events));
        return 0;
}

int reply_read_data(sd_bus_message *reply, pm_data_t *data, timebasestruct_t *time) {
        const int64_t *values;
        size_t n_bytes;
        uint64_t ns;

        if (sd_bus_message_read_array(reply, 'x', (const void **) &values, &n_bytes) < 0 ||
            n_bytes != sizeof(data->accu) || sd_bus_message_read(reply, "t", &ns) < 0)
                return PM_EDAEMON;
        memset(&data->ginfo, 0, sizeof(data->ginfo));
        memcpy(data->accu, values, sizeof(data->accu));
        if (time)
                set_duration(time, ns);         /* a point in time: the same shape */
        return 0;
}

int reply_read_times(sd_bus_message *reply, const char *skip, pm_accu_time_t *times) {
        uint64_t enabled, running;

        if (skip && sd_bus_message_skip(reply, skip) < 0)
                return PM_EDAEMON;
        if (sd_bus_message_read(reply, "tt", &enabled, &running) <= 0)
                return PM_EDAEMON;
        if (times) {
                set_duration(&times->accu_timebase, running);
                set_duration(&times->accu_purr, enabled);
                times->accu_spurr = (timebasestruct_t) {};
        }
        return 0;
}

int call_get_data(const char *method, CallTarget t, bool group, pm_data_t *data, timebasestruct_t *time,
                  pm_accu_time_t *times, bool *ret_local) {
        _cleanup_(bus_reply_unrefp) sd_bus_message *reply = NULL;
        int32_t members = 0;
        uint32_t flags = 0;
        char type;
        int r;

        if (!data)
                return PM_EFAULT;
        if (!catalog_is_installed())
                return PM_ENOTINIT;
        r = call_on(t, method, &reply, NULL);
        if (r != 0)
                return r;
        r = reply_read_data(reply, data, time);
        if (r != 0)
                return r;
        if (group && sd_bus_message_read(reply, "iu", &members, &flags) < 0)
                return PM_EDAEMON;
        data->ginfo.members = members;
        data->ginfo.flags.w = (int) flags;
        /* A thread's GetData says next whether OpenLocal would hand the context over. */
        if (sd_bus_message_peek_type(reply, &type, NULL) > 0 && type == 'b') {
                int local = 0;

                if (sd_bus_message_read(reply, "b", &local) < 0)
                        return PM_EDAEMON;
                if (ret_local)
                        *ret_local = local;
        }
        return times ? reply_read_times(reply, NULL, times) : 0;
}

int reply_read_stamp(sd_bus_message *reply, timebasestruct_t *time) {
        uint64_t ns;

        if (sd_bus_message_read(reply, "t", &ns) <= 0)
                return PM_EDAEMON;
        set_duration(time, ns);
        return 0;
}

int call_switch(const char *method, CallTarget t, timebasestruct_t *time) {
        _cleanup_(bus_reply_unrefp) sd_bus_message *reply = NULL;
        int r;

        if (!catalog_is_installed())
                return PM_ENOTINIT;
        r = call_on(t, method, &reply, NULL);
        if (r != 0 || !time)
                return r;
        return reply_read_stamp(reply, time);
}

int call_simple(const char *method, CallTarget t) {
        if (!catalog_is_installed())
                return PM_ENOTINIT;
        return call_on(t, method, NULL, NULL);
}
