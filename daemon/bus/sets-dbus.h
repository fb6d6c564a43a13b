/* sets-dbus.h: a multiplexed program's event sets on the bus, shared by the Manager's Mx methods
 * and the Thread, Group and Cpu objects' properties: the sets as a(mode, events), and one
 * (enabled, running) per set. */
#pragma once

#include <systemd/sd-bus.h>

#include "accounting.h"
#include "program.h"

/* Reads set `set` of a scope (a Context, Group or SystemContext, and a CPU where it has one). */
typedef struct SetSource {
        int (*read)(void *scope, unsigned cpu, size_t set, AcctVector ret);
        void *scope;
        unsigned cpu;
} SetSource;

int set_source_read_context(void *scope, unsigned cpu, size_t set, AcctVector ret);
int set_source_read_group(void *scope, unsigned cpu, size_t set, AcctVector ret);
int set_source_read_system(void *scope, unsigned cpu, size_t set, AcctVector ret);
int set_source_read_system_cpu(void *scope, unsigned cpu, size_t set, AcctVector ret);

/* Every set into ret[0 .. n_sets - 1], all before any reply is built. */
int set_source_read_all(const SetSource *src, size_t n_sets, AcctVector *ret);
/* a(iai): each set's mode and MAX_COUNTERS events. */
int bus_append_program_sets(sd_bus_message *reply, const Program *p);
/* a(tt): each set's enabled and running times. */
int bus_append_set_times(sd_bus_message *reply, const SetSource *src, size_t n_sets);
/* The Thread, Group and Cpu objects' SliceMs, Sets or SetTimes property (by name) of p, whose sets
 * src reads; a read error sets error. */
int bus_append_sets_property(sd_bus_message *reply, const char *property, const Program *p, const SetSource *src,
                             sd_bus_error *error);
