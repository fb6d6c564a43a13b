/* handover-read.h: decoding the values of a handover blob (handover-read.c). */
#pragma once

#include <glib.h>
#include <stdbool.h>

#include "accounting.h"
#include "context.h"
#include "event-catalog.h"
#include "program.h"

/* A program as saved, checked as a client's would be, whose events are all in t: false, with a
 * warning naming what and id, if not. */
bool handover_read_known_program(GVariant *v, const EventTable *t, Program *ret, const char *what, int id);
/* A vector; what is missing reads 0. */
void handover_read_vector(GVariant *v, AcctVector ret);
/* n_sets vectors one after the other into ret[0 .. n_sets - 1]; what is missing reads 0. */
void handover_read_vectors(GVariant *v, AcctVector *ret, size_t n_sets);
/* A thread's name, at most CONTEXT_COMM_MAX - 1 bytes. */
void handover_read_comm(GVariant *v, char ret[CONTEXT_COMM_MAX]);
