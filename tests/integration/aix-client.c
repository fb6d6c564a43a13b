/* aix-client.c: see aix-client.h. */
#include <stdio.h>
#include <string.h>

#include "aix-client.h"
#include "bus-fixture.h"

int client_event_id(const pm_info_t *info, int counter, const char *name) {
        for (int k = 0; k < info->maxevents[counter]; k++)
                if (strcmp(info->list_events[counter][k].short_name, name) == 0)
                        return info->list_events[counter][k].event_id;
        return -1;
}

int client_event2_id(const pm_info2_t *info, int counter, const char *name) {
        for (int k = 0; k < info->maxevents[counter]; k++)
                if (strcmp(info->list_events[counter][k].short_name, name) == 0)
                        return info->list_events[counter][k].event_id;
        return -1;
}

void client_program(pm_prog_t *prog, int mode, int event0, int event1) {
        memset(prog, 0, sizeof(*prog));
        for (int c = 0; c < MAX_COUNTERS; c++)
                prog->events[c] = COUNT_NOTHING;
        prog->mode.w = mode;
        prog->events[0] = event0;
        prog->events[1] = event1;
}

int client_papi_start(pm_prog_t *prog) {
        int rc = pm_set_program_mythread(prog);

        if (rc == 13) {
                rc = pm_delete_program_mythread();
                if (rc == 0)
                        rc = pm_set_program_mythread(prog);
        }
        return rc ? rc : pm_start_mythread();
}

int client_papi_stop(void) {
        int rc = pm_stop_mythread();
        return rc ? rc : pm_delete_program_mythread();
}

int client_run_as_root_and_nobody(int (*body)(void *), void *arg) {
        int root = run_as(0, 0, body, arg);

        if (root != 0) {
                fprintf(stderr, "# as root: exit status %d\n", root);
                return root;
        }
        int nobody = run_as_nobody(body, arg);
        if (nobody != 0)
                fprintf(stderr, "# as uid 65534: exit status %d\n", nobody);
        return nobody;
}
