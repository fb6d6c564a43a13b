/* calibration-state.c: the calibration report on disk (calibrate.h), a key file:
 *
 *   [calibration]
 *   kernel=6.18.0          uname -r where it ran
 *   when=2026-11-25T18:00:00Z
 *   [PM_PAGE_FLT]          one group per curated row
 *   status=verified        verified, caveat or unverified
 *   tolerance=0.00         %
 *   detail=2000 for 2000 pages touched
 *
 * and its application to the catalog at start-up. */
#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "calibrate.h"
#include "log.h"

void calibration_report_done(CalibrationReport *r) {
        for (size_t i = 0; i < r->n_rows; i++) {
                free(r->rows[i].short_name);
                free(r->rows[i].detail);
        }
        free(r->rows);
        free(r->kernel);
        free(r->when);
        *r = (CalibrationReport) {};
}

char *calibration_kernel(void) {
        struct utsname u;

        return uname(&u) < 0 ? NULL : strdup(u.release);
}

static const char *status_name(int status) {
        return status == PM_VERIFIED ? "verified" : status == PM_CAVEAT ? "caveat" : "unverified";
}

static int status_from_name(const char *s) {
        return !s ? -1 : strcmp(s, "verified") == 0 ? PM_VERIFIED : strcmp(s, "caveat") == 0 ? PM_CAVEAT :
               strcmp(s, "unverified") == 0 ? PM_UNVERIFIED : -1;
}

int calibration_save(const CalibrationReport *r, const char *path) {
        g_autoptr(GKeyFile) f = g_key_file_new();
        g_autoptr(GError) e = NULL;
        g_autofree char *dir = g_path_get_dirname(path);

        g_key_file_set_string(f, "calibration", "kernel", r->kernel);
        g_key_file_set_string(f, "calibration", "when", r->when);
        for (size_t i = 0; i < r->n_rows; i++) {
                const Calibration *c = &r->rows[i];
                char tol[32];

                (void) snprintf(tol, sizeof(tol), "%.2f", c->tolerance_pct);
                g_key_file_set_string(f, c->short_name, "status", status_name(c->status));
                g_key_file_set_string(f, c->short_name, "tolerance", tol);
                g_key_file_set_string(f, c->short_name, "detail", c->detail);
        }
        (void) g_mkdir_with_parents(dir, 0755);
        /* g_key_file_save_to_file writes a temporary file and renames it: never half a file. */
        if (!g_key_file_save_to_file(f, path, &e))
                return log_error_errno(-EIO, "Cannot write the calibration to '%s': %s", path, e->message);
        return 0;
}

int calibration_load(const char *path, CalibrationReport *ret) {
        g_autoptr(GKeyFile) f = g_key_file_new();
        g_autoptr(GError) e = NULL;
        g_auto(GStrv) groups = NULL;
        CalibrationReport r = {};
        gsize n;

        if (!g_key_file_load_from_file(f, path, G_KEY_FILE_NONE, &e))
                return g_error_matches(e, G_FILE_ERROR, G_FILE_ERROR_NOENT) ? -ENOENT :
                       log_warning_errno(-EINVAL, "Cannot read the calibration '%s': %s", path, e->message);
        r.kernel = g_key_file_get_string(f, "calibration", "kernel", NULL);
        r.when = g_key_file_get_string(f, "calibration", "when", NULL);
        groups = g_key_file_get_groups(f, &n);
        r.rows = calloc(n + 1, sizeof(Calibration));
        if (!r.kernel || !r.when || !r.rows) {
                calibration_report_done(&r);
                return log_warning_errno(-EINVAL, "The calibration '%s' has no [calibration] kernel and when.", path);
        }
        for (gsize i = 0; i < n; i++) {
                g_autofree char *status = NULL, *tol = NULL;
                Calibration c = {};

                if (strcmp(groups[i], "calibration") == 0)
                        continue;
                status = g_key_file_get_string(f, groups[i], "status", NULL);
                tol = g_key_file_get_string(f, groups[i], "tolerance", NULL);
                c.status = status_from_name(status);
                c.short_name = strdup(groups[i]);
                c.detail = g_key_file_get_string(f, groups[i], "detail", NULL);
                c.tolerance_pct = tol ? strtod(tol, NULL) : 0;
                if (c.status < 0 || !c.short_name || !c.detail) {
                        free(c.short_name);
                        g_free(c.detail);
                        calibration_report_done(&r);
                        return log_warning_errno(-EINVAL, "The calibration '%s': [%s] is malformed.", path, groups[i]);
                }
                r.rows[r.n_rows++] = c;
        }
        *ret = r;
        return 0;
}

int calibration_apply(const CalibrationReport *r, EventTable *t) {
        g_autofree char *kernel = calibration_kernel();
        int n = 0;

        if (!kernel || strcmp(kernel, r->kernel) != 0)
                return -ESTALE;         /* another kernel may count otherwise: its word does not hold */
        for (size_t i = 0; i < r->n_rows; i++) {
                const Calibration *c = &r->rows[i];
                Event *e = (Event *) event_table_find_name(t, c->short_name);
                char *d = NULL;

                if (!e || e->id >= EVENT_ID_EXTRA_BASE)
                        continue;
                if (c->status == PM_UNVERIFIED)
                        (void) asprintf(&d, "%s [calibrated %s on Linux %s: unverified: %s]", e->description, r->when,
                                        r->kernel, c->detail);
                else
                        (void) asprintf(&d, "%s [calibrated %s on Linux %s: %s within %.2f %%: %s]", e->description,
                                        r->when, r->kernel, status_name(c->status), c->tolerance_pct, c->detail);
                if (!d)
                        return -ENOMEM;
                free(e->description);
                e->description = d;
                e->status = c->status;
                n++;
        }
        return n;
}
