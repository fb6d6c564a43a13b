/* pm-mx.c: the multi-set calls (_mx, _mm; pm_set_program_mx(3)) on a thread and on a counting
 * group: first party (_mythread, _mygroup) and third party (_thread, _group, and their _pthread,
 * _pgroup forms). Each is one call to pmapid, which checks the target and the sets as it does for
 * a single program; the system and CPU forms are pm-mx-system.c's. */
#include "inherit.h"
#include "local.h"
#include "pmapi.h"
#include "reply-mx.h"

/* What pm_set_program_mythread and pm_set_program_mygroup note after a program is set, from set
 * 0's mode: pmapid has every set agree on PM_PROCESS and PM_NO_INHERIT. */
static void note_mythread(int mode) {
        inherit_note_thread_sets(!(mode & PM_NO_INHERIT));
}

static void note_mygroup(int mode) {
        bool inherits = !(mode & PM_NO_INHERIT);

        inherit_note_thread_sets(inherits);
        inherit_note_process(inherits && (mode & PM_PROCESS));
}

int pm_set_program_mythread_mx(pm_prog_mx_t *prog) {
        int r;

        local_drop();                   /* several sets are read over the bus */
        r = call_set_program_mx("SetProgramMx", target_self(), prog);

        if (r == 0)
                note_mythread(prog->mode.w);
        return r;
}

int pm_set_program_mythread_mm(pm_prog_mm_t *prog) {
        int r;

        local_drop();
        r = call_set_program_mm("SetProgramMx", target_self(), prog);

        if (r == 0)
                note_mythread(prog->prog_set[0].mode.w);
        return r;
}

int pm_get_program_mythread_mx(pm_prog_mx_t *prog) {
        return call_get_program_mx("GetProgramMx", target_self(), prog);
}

int pm_get_program_mythread_mm(pm_prog_mm_t *prog) {
        return call_get_program_mm("GetProgramMx", target_self(), prog);
}

int pm_get_tdata_mythread_mx(pm_data_mx_t *data, timebasestruct_t *time) {
        return call_get_data_mx("GetDataMx", target_self(), /* group= */ false, data, time);
}

int pm_get_data_mythread_mx(pm_data_mx_t *data) {
        return pm_get_tdata_mythread_mx(data, NULL);
}

int pm_set_program_mygroup_mx(pm_prog_mx_t *prog) {
        int r;

        local_drop();                   /* a member reads over the bus */
        r = call_set_program_mx("SetGroupProgramMx", target_self(), prog);

        if (r == 0)
                note_mygroup(prog->mode.w);
        return r;
}

int pm_set_program_mygroup_mm(pm_prog_mm_t *prog) {
        int r;

        local_drop();
        r = call_set_program_mm("SetGroupProgramMx", target_self(), prog);

        if (r == 0)
                note_mygroup(prog->prog_set[0].mode.w);
        return r;
}

int pm_get_program_mygroup_mx(pm_prog_mx_t *prog) {
        return call_get_program_mx("GetGroupProgramMx", target_self(), prog);
}

int pm_get_program_mygroup_mm(pm_prog_mm_t *prog) {
        return call_get_program_mm("GetGroupProgramMx", target_self(), prog);
}

int pm_get_tdata_mygroup_mx(pm_data_mx_t *data, timebasestruct_t *time) {
        return call_get_data_mx("GetGroupDataMx", target_self(), /* group= */ true, data, time);
}

int pm_get_data_mygroup_mx(pm_data_mx_t *data) {
        return pm_get_tdata_mygroup_mx(data, NULL);
}

/* The third-party calls name (pid, tid), the pthread and pgroup forms (pid, tid, ptid): the
 * helpers below take the three, with ptid 0 for the first (target_from_pthread() then names
 * (pid, tid) unchanged). */
static int set_mx(const char *method, pid_t pid, tid_t tid, ptid_t ptid, pm_prog_mx_t *prog) {
        CallTarget t;
        int r;

        r = target_from_pthread(pid, tid, ptid, &t);
        return r != 0 ? r : call_set_program_mx(method, t, prog);
}

static int set_mm(const char *method, pid_t pid, tid_t tid, ptid_t ptid, pm_prog_mm_t *prog) {
        CallTarget t;
        int r;

        r = target_from_pthread(pid, tid, ptid, &t);
        return r != 0 ? r : call_set_program_mm(method, t, prog);
}

static int get_mx(const char *method, pid_t pid, tid_t tid, ptid_t ptid, pm_prog_mx_t *prog) {
        CallTarget t;
        int r;

        r = target_from_pthread(pid, tid, ptid, &t);
        if (r != 0 && prog) {
                prog->events_set = NULL;        /* nothing to free after an error */
                prog->nb_events_prog = 0;
        }
        return r != 0 ? r : call_get_program_mx(method, t, prog);
}

static int get_mm(const char *method, pid_t pid, tid_t tid, ptid_t ptid, pm_prog_mm_t *prog) {
        CallTarget t;
        int r;

        r = target_from_pthread(pid, tid, ptid, &t);
        if (r != 0 && prog) {
                prog->prog_set = NULL;
                prog->nb_set_prog = 0;
        }
        return r != 0 ? r : call_get_program_mm(method, t, prog);
}

static int get_data(const char *method, bool group, pid_t pid, tid_t tid, ptid_t ptid, pm_data_mx_t *data,
                    timebasestruct_t *time) {
        CallTarget t;
        int r;

        r = target_from_pthread(pid, tid, ptid, &t);
        if (r != 0) {
                (void) begin_data_mx(data);     /* nothing to free after an error */
                return r;
        }
        return call_get_data_mx(method, t, group, data, time);
}

int pm_set_program_thread_mx(pid_t pid, tid_t tid, pm_prog_mx_t *prog) {
        return set_mx("SetProgramMx", pid, tid, 0, prog);
}

int pm_set_program_thread_mm(pid_t pid, tid_t tid, pm_prog_mm_t *prog) {
        return set_mm("SetProgramMx", pid, tid, 0, prog);
}

int pm_get_program_thread_mx(pid_t pid, tid_t tid, pm_prog_mx_t *prog) {
        return get_mx("GetProgramMx", pid, tid, 0, prog);
}

int pm_get_program_thread_mm(pid_t pid, tid_t tid, pm_prog_mm_t *prog) {
        return get_mm("GetProgramMx", pid, tid, 0, prog);
}

int pm_get_tdata_thread_mx(pid_t pid, tid_t tid, pm_data_mx_t *data, timebasestruct_t *time) {
        return get_data("GetDataMx", /* group= */ false, pid, tid, 0, data, time);
}

int pm_get_data_thread_mx(pid_t pid, tid_t tid, pm_data_mx_t *data) {
        return get_data("GetDataMx", /* group= */ false, pid, tid, 0, data, NULL);
}

int pm_set_program_pthread_mx(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_mx_t *prog) {
        return set_mx("SetProgramMx", pid, tid, ptid, prog);
}

int pm_set_program_pthread_mm(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_mm_t *prog) {
        return set_mm("SetProgramMx", pid, tid, ptid, prog);
}

int pm_get_program_pthread_mx(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_mx_t *prog) {
        return get_mx("GetProgramMx", pid, tid, ptid, prog);
}

int pm_get_program_pthread_mm(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_mm_t *prog) {
        return get_mm("GetProgramMx", pid, tid, ptid, prog);
}

int pm_get_tdata_pthread_mx(pid_t pid, tid_t tid, ptid_t ptid, pm_data_mx_t *data, timebasestruct_t *time) {
        return get_data("GetDataMx", /* group= */ false, pid, tid, ptid, data, time);
}

int pm_get_data_pthread_mx(pid_t pid, tid_t tid, ptid_t ptid, pm_data_mx_t *data) {
        return get_data("GetDataMx", /* group= */ false, pid, tid, ptid, data, NULL);
}

int pm_set_program_group_mx(pid_t pid, tid_t tid, pm_prog_mx_t *prog) {
        return set_mx("SetGroupProgramMx", pid, tid, 0, prog);
}

int pm_set_program_group_mm(pid_t pid, tid_t tid, pm_prog_mm_t *prog) {
        return set_mm("SetGroupProgramMx", pid, tid, 0, prog);
}

int pm_get_program_group_mx(pid_t pid, tid_t tid, pm_prog_mx_t *prog) {
        return get_mx("GetGroupProgramMx", pid, tid, 0, prog);
}

int pm_get_program_group_mm(pid_t pid, tid_t tid, pm_prog_mm_t *prog) {
        return get_mm("GetGroupProgramMx", pid, tid, 0, prog);
}

int pm_get_tdata_group_mx(pid_t pid, tid_t tid, pm_data_mx_t *data, timebasestruct_t *time) {
        return get_data("GetGroupDataMx", /* group= */ true, pid, tid, 0, data, time);
}

int pm_get_data_group_mx(pid_t pid, tid_t tid, pm_data_mx_t *data) {
        return get_data("GetGroupDataMx", /* group= */ true, pid, tid, 0, data, NULL);
}

int pm_set_program_pgroup_mx(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_mx_t *prog) {
        return set_mx("SetGroupProgramMx", pid, tid, ptid, prog);
}

int pm_set_program_pgroup_mm(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_mm_t *prog) {
        return set_mm("SetGroupProgramMx", pid, tid, ptid, prog);
}

int pm_get_program_pgroup_mx(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_mx_t *prog) {
        return get_mx("GetGroupProgramMx", pid, tid, ptid, prog);
}

int pm_get_program_pgroup_mm(pid_t pid, tid_t tid, ptid_t ptid, pm_prog_mm_t *prog) {
        return get_mm("GetGroupProgramMx", pid, tid, ptid, prog);
}

int pm_get_tdata_pgroup_mx(pid_t pid, tid_t tid, ptid_t ptid, pm_data_mx_t *data, timebasestruct_t *time) {
        return get_data("GetGroupDataMx", /* group= */ true, pid, tid, ptid, data, time);
}

int pm_get_data_pgroup_mx(pid_t pid, tid_t tid, ptid_t ptid, pm_data_mx_t *data) {
        return get_data("GetGroupDataMx", /* group= */ true, pid, tid, ptid, data, NULL);
}
