/* calibrate.h: pmapid --calibrate. Known workloads, one per event class, counted with perf on the
 * calling thread, give each curated event a status by measurement on this machine: verified (the
 * count matched what the workload must give), caveat (close, with the measured tolerance) or
 * unverified (and why: no workload for its class, or it does not open here). The report is kept in
 * a state file (calibration-state.c) that pmapid applies to its catalog at start, when it was
 * made on the running kernel. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "event-table.h"

typedef struct Calibration {
        char *short_name;
        int status;                     /* PM_VERIFIED, PM_CAVEAT or PM_UNVERIFIED */
        double tolerance_pct;           /* how far outside the exact count or range, %; 0 when unverified */
        char *detail;                   /* what was measured against what, or why unverified */
} Calibration;

typedef struct CalibrationReport {
        char *kernel;                   /* uname -r of the machine it ran on */
        char *when;                     /* UTC, ISO 8601 */
        Calibration *rows;
        size_t n_rows;
} CalibrationReport;

/* Runs every class's workload for the curated rows of t (those t lacks are unverified: they do
 * not open here). Kernel-mode counts (context switches) need the privilege pmapid runs with. */
int calibrate_run(const EventTable *t, CalibrationReport *ret);
void calibration_report_done(CalibrationReport *r);
/* One line a row: name, status, tolerance, detail. */
void calibration_print(const CalibrationReport *r, FILE *f);

/* The state file: written whole (a temporary file renamed over it), read back. -ENOENT: none. */
int calibration_save(const CalibrationReport *r, const char *path);
int calibration_load(const char *path, CalibrationReport *ret);
/* Gives t's rows the statuses of r, each description saying when, on which kernel and what was
 * measured; -ESTALE (nothing applied) when r was made on another kernel than the running one.
 * Returns the number of rows applied. */
int calibration_apply(const CalibrationReport *r, EventTable *t);
/* The running kernel's release (uname -r), malloc'd. */
char *calibration_kernel(void);
