/* pmctl-fail.c: how every pmctl command reports a failure: on stderr with pmapid's reason, and in
 * the output with --json. Below the commands (pmctl.c and what prints). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "json-writer.h"
#include "pmctl.h"
#include "tool-usage.h"

int pmctl_fail(const Options *o, int pm_code) {
        const char *message = pm_strerror(NULL, pm_code);

        char where[128];

        /* pm_error adds pmapid's own reason for the refusal, where it gave one. */
        if (o->pid > 0)
                snprintf(where, sizeof(where), "pmctl: %s %d/%d", o->verb, (int) o->pid, (int) o->tid);
        else
                snprintf(where, sizeof(where), "pmctl: %s", o->verb);
        pm_error(where, pm_code);
        if (o->json) {
                JsonWriter w;

                json_writer_init(&w, o->out);
                json_open_object(&w, NULL);
                json_bool(&w, "ok", false);
                json_int(&w, "error", pm_code);
                json_string(&w, "message", message);
                json_close_object(&w);
                (void) json_writer_finish(&w);  /* the status says it all if this fails too */
        }
        return TOOL_EXIT_FAILED;
}

int pmctl_fail_output(const Options *o, int r) {
        fprintf(stderr, "pmctl: %s: cannot write the output: %s\n", o->verb, strerror(-r));
        return TOOL_EXIT_FAILED;
}
