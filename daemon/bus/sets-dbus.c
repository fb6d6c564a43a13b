/* sets-dbus.c: see sets-dbus.h. */
#include <glib.h>
#include <string.h>

#include "context.h"
#include "group.h"
#include "macro.h"
#include "sets-dbus.h"
#include "system.h"

int set_source_read_context(void *scope, unsigned cpu, size_t set, AcctVector ret) {
        return context_read_set(scope, set, ret);
}

int set_source_read_group(void *scope, unsigned cpu, size_t set, AcctVector ret) {
        return group_read_set(scope, set, ret);
}

int set_source_read_system(void *scope, unsigned cpu, size_t set, AcctVector ret) {
        return system_read_set(scope, set, ret);
}

int set_source_read_system_cpu(void *scope, unsigned cpu, size_t set, AcctVector ret) {
        return system_read_cpu_set(scope, cpu, set, ret);
}

int set_source_read_all(const SetSource *src, size_t n_sets, AcctVector *ret) {
        for (size_t k = 0; k < n_sets; k++) {
                int r = src->read(src->scope, src->cpu, k, ret[k]);
                if (r < 0)
                        return r;
        }
        return 0;
}

int bus_append_program_sets(sd_bus_message *reply, const Program *p) {
        int r = sd_bus_message_open_container(reply, 'a', "(iai)");

        for (size_t k = 0; r >= 0 && k < program_n_sets(p); k++) {
                r = sd_bus_message_open_container(reply, 'r', "iai");
                if (r >= 0)
                        r = sd_bus_message_append(reply, "i", (int32_t) p->sets[k].mode);
                if (r >= 0)
                        r = sd_bus_message_append_array(reply, 'i', p->sets[k].events, sizeof(p->sets[k].events));
                if (r >= 0)
                        r = sd_bus_message_close_container(reply);
        }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

int bus_append_set_times(sd_bus_message *reply, const SetSource *src, size_t n_sets) {
        AcctVector v[PM_MX_MAX_SETS];
        int r = set_source_read_all(src, n_sets, v);

        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(tt)");
        for (size_t k = 0; r >= 0 && k < n_sets; k++)
                r = sd_bus_message_append(reply, "(tt)", (uint64_t) MAX(v[k][ACCT_ENABLED], 0),
                                          (uint64_t) MAX(v[k][ACCT_RUNNING], 0));
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

int bus_append_sets_property(sd_bus_message *reply, const char *property, const Program *p, const SetSource *src,
                             sd_bus_error *error) {
        int r;

        if (strcmp(property, "SliceMs") == 0)
                return sd_bus_message_append(reply, "u", (uint32_t) p->slice_ms);
        if (strcmp(property, "Sets") == 0)
                return bus_append_program_sets(reply, p);
        r = bus_append_set_times(reply, src, program_n_sets(p));
        return r < 0 ? sd_bus_error_set_errnof(error, r, "Reading the counters failed: %m") : r;
}
