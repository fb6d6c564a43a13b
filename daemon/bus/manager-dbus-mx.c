/* manager-dbus-mx.c: what the Manager's multiplexing methods (AIX's _mx and _mm calls) of every
 * scope read and reply (thread-scope.c and cpu-scope.c make the methods). A program is (slice_ms,
 * multi_mode, a(mode, events) sets); data are one (raw counts, enabled, running) per set, then the
 * time stamp, the scope's extras, and the rounds AIX reports: the enabled time over slice * sets
 * (the kernel, not a timer here, rotates the sets that do not fit on the PMU; software events all
 * fit and every set counts all the time). */
#include "bus-errors.h"
#include "clock.h"
#include "macro.h"
#include "manager-dbus.h"
#include "sets-dbus.h"

int manager_bus_read_program_mx(sd_bus_message *m, sd_bus_error *error, Program *ret) {
        Program p = {};
        int32_t slice_ms;
        int multi_mode, r;

        r = sd_bus_message_read(m, "ib", &slice_ms, &multi_mode);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(m, 'a', "(iai)");
        if (r < 0)
                return r;
        for (;;) {
                const int32_t *events;
                size_t n_bytes;
                int32_t mode;

                r = sd_bus_message_enter_container(m, 'r', "iai");
                if (r < 0)
                        return r;
                if (r == 0)
                        break;
                if (p.n_sets >= PM_MX_MAX_SETS)
                        return bus_error_program(error, PROGRAM_BAD_SETS, 0);
                r = sd_bus_message_read(m, "i", &mode);
                if (r >= 0)
                        r = sd_bus_message_read_array(m, 'i', (const void **) &events, &n_bytes);
                if (r < 0)
                        return r;
                if (n_bytes / sizeof(int32_t) > MAX_COUNTERS)
                        return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                                 "At most %d events a set, one per counter", MAX_COUNTERS);
                p.sets[p.n_sets].mode = (uint32_t) mode;
                for (size_t c = 0; c < MAX_COUNTERS; c++)
                        p.sets[p.n_sets].events[c] = c < n_bytes / sizeof(int32_t) ? events[c] : COUNT_NOTHING;
                p.n_sets++;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        /* A slice is what makes it a multiplexed program, even of one set: checked here, where a
         * zero would otherwise read as a pm_prog_t. */
        if (slice_ms < PM_MX_SLICE_MIN || slice_ms > PM_MX_SLICE_MAX)
                return bus_error_program(error, PROGRAM_BAD_SLICE, 0);
        if (p.n_sets == 0)
                return bus_error_program(error, PROGRAM_BAD_SETS, 0);
        p.slice_ms = (uint32_t) slice_ms;
        p.multi_mode = multi_mode;
        *ret = p;
        return 0;
}

int manager_bus_reply_program_mx(sd_bus_message *m, const Program *p) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_append(reply, "ib", (int32_t) p->slice_ms, (int) p->multi_mode);
        if (r >= 0)
                r = bus_append_program_sets(reply, p);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

uint64_t manager_bus_longest_enabled(const AcctVector *v, size_t n_sets) {
        uint64_t enabled = 0;

        for (size_t k = 0; k < n_sets; k++)
                enabled = MAX(enabled, (uint64_t) MAX(v[k][ACCT_ENABLED], 0));
        return enabled;
}

int manager_bus_reply_sets(sd_bus_message *m, const Program *p, const AcctVector *v, uint64_t enabled_ns,
                           BusAppend extra, const void *userdata) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        size_t n_sets = program_n_sets(p);
        int r;

        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(axtt)");
        for (size_t k = 0; r >= 0 && k < n_sets; k++) {
                r = sd_bus_message_open_container(reply, 'r', "axtt");
                if (r >= 0)
                        r = sd_bus_message_append_array(reply, 'x', v[k], ACCT_COUNTS_SIZE);
                if (r >= 0)
                        r = manager_bus_append_times(reply, v[k]);
                if (r >= 0)
                        r = sd_bus_message_close_container(reply);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r >= 0)
                r = sd_bus_message_append(reply, "t", now_monotonic_ns());
        if (r >= 0 && extra)
                r = extra(reply, userdata);
        if (r >= 0)
                r = sd_bus_message_append(reply, "u", program_rounds(p, enabled_ns));
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}
