/* reply-mx.c: see reply-mx.h. The multi-set forms of reply.c's shapes: the library's checks of a
 * program of several sets, its layout on the bus, and the readers of the program and data
 * replies. Which method and target a call names is left to pm-mx.c and pm-mx-system.c. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bus.h"
#include "catalog.h"
#include "macro.h"
#include "reply-mx.h"

/* What pmapid checks again: the number of sets, the set array, the slice. */
static int check_shape(int n_sets, const void *sets, int slice_ms) {
        if (n_sets <= 0 || n_sets > PM_MX_MAX_SETS || !sets)
                return PM_EMXSETS;
        if (slice_ms < PM_MX_SLICE_MIN || slice_ms > PM_MX_SLICE_MAX)
                return PM_EMXSLICE;
        return 0;
}

/* One set against the installed catalog, as call_set_program() checks a single program; its
 * counters past maxpmcs become COUNT_NOTHING. */
static int check_set(MxSet *s) {
        pm_prog_t prog = { .mode.w = s->mode };

        memcpy(prog.events, s->events, sizeof(prog.events));
        return catalog_check_program(&prog, s->events);
}

int mx_program_from_mx(const pm_prog_mx_t *prog, MxProgram *ret) {
        MxProgram p = {};
        int r;

        if (!prog)
                return PM_EFAULT;
        if (!catalog_is_installed())
                return PM_ENOTINIT;
        r = check_shape(prog->nb_events_prog, prog->events_set, prog->slice_duration);
        if (r != 0)
                return r;
        p.slice_ms = prog->slice_duration;
        p.n_sets = (unsigned) prog->nb_events_prog;
        for (unsigned k = 0; k < p.n_sets; k++) {
                p.sets[k].mode = prog->mode.w;
                memcpy(p.sets[k].events, prog->events_set[k], sizeof(p.sets[k].events));
                r = check_set(&p.sets[k]);
                if (r != 0)
                        return r;
        }
        *ret = p;
        return 0;
}

int mx_program_from_mm(const pm_prog_mm_t *prog, MxProgram *ret) {
        MxProgram p = { .multi_mode = true };
        int r;

        if (!prog)
                return PM_EFAULT;
        if (!catalog_is_installed())
                return PM_ENOTINIT;
        r = check_shape(prog->nb_set_prog, prog->prog_set, prog->slice_duration);
        if (r != 0)
                return r;
        p.slice_ms = prog->slice_duration;
        p.n_sets = (unsigned) prog->nb_set_prog;
        for (unsigned k = 0; k < p.n_sets; k++) {
                p.sets[k].mode = prog->prog_set[k].mode.w;
                memcpy(p.sets[k].events, prog->prog_set[k].events, sizeof(p.sets[k].events));
                r = check_set(&p.sets[k]);
                if (r != 0)
                        return r;
        }
        *ret = p;
        return 0;
}

int call_set_program_mx(const char *method, CallTarget t, const pm_prog_mx_t *prog) {
        MxProgram p;
        int r;

        r = mx_program_from_mx(prog, &p);
        if (r != 0)
                return r;
        return call_on(t, method, NULL, MX_PROGRAM_TYPES, MX_PROGRAM_ARGS(&p));
}

int call_set_program_mm(const char *method, CallTarget t, const pm_prog_mm_t *prog) {
        MxProgram p;
        int r;

        r = mx_program_from_mm(prog, &p);
        if (r != 0)
                return r;
        return call_on(t, method, NULL, MX_PROGRAM_TYPES, MX_PROGRAM_ARGS(&p));
}

/* One (iai) set of a program reply into s. */
static int read_set(sd_bus_message *reply, MxSet *s) {
        const int32_t *events;
        size_t n_bytes = 0;
        int32_t mode;

        if (sd_bus_message_read(reply, "i", &mode) <= 0 ||
            sd_bus_message_read_array(reply, 'i', (const void **) &events, &n_bytes) <= 0 ||
            n_bytes != sizeof(s->events))
                return PM_EDAEMON;
        s->mode = mode;
        memcpy(s->events, events, sizeof(s->events));
        return 0;
}

int reply_read_program_mx(sd_bus_message *reply, MxProgram *ret) {
        MxProgram p = {};
        int32_t slice_ms;
        int multi_mode, r;

        if (sd_bus_message_read(reply, "ib", &slice_ms, &multi_mode) <= 0 ||
            sd_bus_message_enter_container(reply, 'a', "(iai)") <= 0)
                return PM_EDAEMON;
        for (;;) {
                r = sd_bus_message_enter_container(reply, 'r', "iai");
                if (r < 0)
                        return PM_EDAEMON;
                if (r == 0)
                        break;
                if (p.n_sets == PM_MX_MAX_SETS)
                        return PM_EDAEMON;
                r = read_set(reply, &p.sets[p.n_sets]);
                if (r != 0)
                        return r;
                if (sd_bus_message_exit_container(reply) < 0)
                        return PM_EDAEMON;
                p.n_sets++;
        }
        if (sd_bus_message_exit_container(reply) < 0 || p.n_sets == 0)
                return PM_EDAEMON;
        p.slice_ms = slice_ms;
        p.multi_mode = multi_mode;
        *ret = p;
        return 0;
}

int mx_program_to_mx(const MxProgram *p, pm_prog_mx_t *prog) {
        pm_events_prog_t *sets;

        sets = calloc(p->n_sets, sizeof(*sets));
        if (!sets)
                return PM_ENOMEM;
        for (unsigned k = 0; k < p->n_sets; k++)
                memcpy(sets[k], p->sets[k].events, sizeof(sets[k]));
        prog->mode.w = p->sets[0].mode;
        prog->slice_duration = p->slice_ms;
        prog->nb_events_prog = (int) p->n_sets;
        prog->events_set = sets;
        return 0;
}

int mx_program_to_mm(const MxProgram *p, pm_prog_mm_t *prog) {
        pm_prog_t *sets;

        sets = calloc(p->n_sets, sizeof(*sets));
        if (!sets)
                return PM_ENOMEM;
        for (unsigned k = 0; k < p->n_sets; k++) {
                sets[k].mode.w = p->sets[k].mode;
                memcpy(sets[k].events, p->sets[k].events, sizeof(sets[k].events));
        }
        prog->slice_duration = p->slice_ms;
        prog->nb_set_prog = (int) p->n_sets;
        prog->prog_set = sets;
        return 0;
}

/* GetProgramMx on the target, checked as call_get_program() does. */
static int get_program(const char *method, CallTarget t, MxProgram *ret) {
        _cleanup_(bus_reply_unrefp) sd_bus_message *reply = NULL;
        int r;

        if (!catalog_is_installed())
                return PM_ENOTINIT;
        r = call_on(t, method, &reply, NULL);
        if (r != 0)
                return r;
        return reply_read_program_mx(reply, ret);
}

int call_get_program_mx(const char *method, CallTarget t, pm_prog_mx_t *prog) {
        MxProgram p;
        int r;

        if (!prog)
                return PM_EFAULT;
        prog->events_set = NULL;
        prog->nb_events_prog = 0;
        r = get_program(method, t, &p);
        return r != 0 ? r : mx_program_to_mx(&p, prog);
}

int call_get_program_mm(const char *method, CallTarget t, pm_prog_mm_t *prog) {
        MxProgram p;
        int r;

        if (!prog)
                return PM_EFAULT;
        prog->prog_set = NULL;
        prog->nb_set_prog = 0;
        r = get_program(method, t, &p);
        return r != 0 ? r : mx_program_to_mm(&p, prog);
}

int begin_data_mx(pm_data_mx_t *data) {
        if (!data)
                return PM_EFAULT;
        data->accu_set = NULL;
        data->nb_accu_mx = 0;
        return catalog_is_installed() ? 0 : PM_ENOTINIT;
}

int call_get_data_mx(const char *method, CallTarget t, bool group, pm_data_mx_t *data,
                     timebasestruct_t *time) {
        _cleanup_(bus_reply_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = begin_data_mx(data);
        if (r != 0)
                return r;
        r = call_on(t, method, &reply, NULL);
        if (r != 0)
                return r;
        return reply_read_data_mx(reply, group, data, time);
}

/* One (axtt) set of a data reply into a: the times as pm_get_Tdata's (reply_read_times()). */
static int read_accu(sd_bus_message *reply, pm_accu_mx_t *a) {
        const int64_t *values;
        size_t n_bytes = 0;
        uint64_t enabled, running;

        if (sd_bus_message_read_array(reply, 'x', (const void **) &values, &n_bytes) <= 0 ||
            n_bytes != sizeof(a->accu_data) || sd_bus_message_read(reply, "tt", &enabled, &running) <= 0)
                return PM_EDAEMON;
        memcpy(a->accu_data, values, sizeof(a->accu_data));
        set_duration(&a->accu_time, running);
        set_duration(&a->accu_purr, enabled);
        a->accu_spurr = (timebasestruct_t) {};
        return 0;
}

/* The a(axtt) of a data reply into sets (room for PM_MX_MAX_SETS): 1 to PM_MX_MAX_SETS sets. */
static int read_accu_sets(sd_bus_message *reply, pm_accu_mx_t *sets, size_t *ret_n) {
        size_t n = 0;
        int r;

        if (sd_bus_message_enter_container(reply, 'a', "(axtt)") <= 0)
                return PM_EDAEMON;
        for (;;) {
                r = sd_bus_message_enter_container(reply, 'r', "axtt");
                if (r < 0)
                        return PM_EDAEMON;
                if (r == 0)
                        break;
                if (n == PM_MX_MAX_SETS)
                        return PM_EDAEMON;
                r = read_accu(reply, &sets[n]);
                if (r != 0)
                        return r;
                if (sd_bus_message_exit_container(reply) < 0)
                        return PM_EDAEMON;
                n++;
        }
        if (sd_bus_message_exit_container(reply) < 0 || n == 0)
                return PM_EDAEMON;
        *ret_n = n;
        return 0;
}

int reply_read_data_mx(sd_bus_message *reply, bool group, pm_data_mx_t *data, timebasestruct_t *time) {
        /* Read on the stack, then one allocation of the exact size: a caller in a counted process
         * tree should find the same heap after each read (see the page-fault counts of
         * tests/integration/test-mx-system.c). */
        pm_accu_mx_t sets[PM_MX_MAX_SETS];
        pm_accu_mx_t *copy;
        uint32_t flags = 0, rounds;
        int32_t members = 0;
        uint64_t ns;
        size_t n;
        int r;

        data->accu_set = NULL;
        data->nb_accu_mx = 0;
        r = read_accu_sets(reply, sets, &n);
        if (r != 0)
                return r;
        if (sd_bus_message_read(reply, "t", &ns) <= 0 ||
            (group && sd_bus_message_read(reply, "iu", &members, &flags) <= 0) ||
            sd_bus_message_read(reply, "u", &rounds) <= 0)
                return PM_EDAEMON;
        copy = malloc(n * sizeof(*copy));
        if (!copy)
                return PM_ENOMEM;

        /* Nothing below may fail: data gets every field of the reply or none. */
        memcpy(copy, sets, n * sizeof(*copy));
        data->ginfo = (pm_ginfo_t) { .members = members, .flags.w = (int) flags };
        data->nb_mx_round = rounds > INT_MAX ? INT_MAX : (int) rounds;
        data->nb_accu_mx = (int) n;
        data->accu_set = copy;
        if (time)
                set_duration(time, ns);
        return 0;
}
