/* target.c: see target.h. The child serves one command at a time: the main thread reads it and
 * hands it to the thread it names, which does it and replies, so a page touched "in thread i" is
 * counted on thread i's context. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "target.h"
#include "workload.h"

enum { OP_TOUCH, OP_PM_INIT, OP_GET_DATA, OP_STOP, OP_DELETE, OP_EXIT };

typedef struct Command {
        int op;
        int thread;
        long long arg;
} Command;

typedef struct Reply {
        int rc;
        long long accu[MAX_COUNTERS];
} Reply;

typedef struct Worker {
        pthread_t thread;
        int fd[2];                      /* commands from the main thread */
        pid_t tid;
} Worker;

static int reply_fd;
static Worker workers[TARGET_MAX_THREADS];

static void do_command(const Command *c) {
        Reply r = {};
        pm_data_t d;
        pm_info_t info;

        switch (c->op) {
        case OP_TOUCH:
                r.rc = touch_fresh_pages((size_t) c->arg);
                break;
        case OP_PM_INIT:
                r.rc = pm_init(PM_VERIFIED | PM_UNVERIFIED | PM_CAVEAT, &info);
                break;
        case OP_GET_DATA:
                r.rc = pm_get_data_mythread(&d);
                if (r.rc == 0)
                        memcpy(r.accu, d.accu, sizeof(r.accu));
                break;
        case OP_STOP:
                r.rc = pm_stop_mythread();
                break;
        case OP_DELETE:
                r.rc = pm_delete_program_mythread();
                break;
        default:
                r.rc = -1;
        }
        (void) write(reply_fd, &r, sizeof(r));
}

static void *worker_main(void *p) {
        Worker *w = p;
        Command c;

        (void) touch_fresh_pages(1);    /* stack and code paths warm: later touches count exactly */
        __atomic_store_n(&w->tid, gettid(), __ATOMIC_RELEASE);
        while (read(w->fd[0], &c, sizeof(c)) == sizeof(c) && c.op != OP_EXIT)
                do_command(&c);
        return NULL;
}

static int set_identity(const TargetIdentity *id) {
        if (id->uid[0] == 0 && id->uid[1] == 0 && id->uid[2] == 0 && id->gid[0] == 0)
                return prctl(PR_SET_DUMPABLE, id->not_dumpable ? 0 : 1);
        if (setgroups(0, NULL) < 0 || setresgid(id->gid[0], id->gid[1], id->gid[2]) < 0 ||
            setresuid(id->uid[0], id->uid[1], id->uid[2]) < 0)
                return -1;
        /* A change of uids makes a process non-dumpable; a process that exec'd as that user is. */
        return prctl(PR_SET_DUMPABLE, id->not_dumpable ? 0 : 1);
}

static void child_main(const TargetIdentity *id, int n_threads, int cmd_fd) {
        pid_t tids[TARGET_MAX_THREADS] = { getpid() };
        Command c;

        if (set_identity(id) < 0)
                _exit(1);
        (void) touch_fresh_pages(1);
        for (int i = 1; i < n_threads; i++) {
                if (pipe2(workers[i].fd, O_CLOEXEC) < 0 ||
                    pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) != 0)
                        _exit(1);
        }
        for (int i = 1; i < n_threads; i++) {
                while (__atomic_load_n(&workers[i].tid, __ATOMIC_ACQUIRE) == 0)
                        usleep(100);
                tids[i] = workers[i].tid;
        }
        if (write(reply_fd, tids, sizeof(tids)) != sizeof(tids))
                _exit(1);
        while (read(cmd_fd, &c, sizeof(c)) == sizeof(c) && c.op != OP_EXIT) {
                if (c.thread == 0)
                        do_command(&c);
                else if (c.thread < n_threads)
                        (void) write(workers[c.thread].fd[1], &c, sizeof(c));
        }
        _exit(0);
}

int target_start(Target *t, const TargetIdentity *id, int n_threads) {
        int cmd[2], reply[2];

        memset(t, 0, sizeof(*t));
        if (n_threads < 1 || n_threads > TARGET_MAX_THREADS)
                return -1;
        if (pipe2(cmd, O_CLOEXEC) < 0 || pipe2(reply, O_CLOEXEC) < 0)
                return -1;
        t->pid = fork();
        if (t->pid < 0)
                return -1;
        if (t->pid == 0) {
                close(cmd[1]);
                close(reply[0]);
                reply_fd = reply[1];
                child_main(id, n_threads, cmd[0]);
        }
        close(cmd[0]);
        close(reply[1]);
        t->cmd_fd = cmd[1];
        t->reply_fd = reply[0];
        t->n_threads = n_threads;
        if (read(t->reply_fd, t->tids, sizeof(t->tids)) != sizeof(t->tids)) {
                target_kill(t);
                return -1;
        }
        return 0;
}

static int command(Target *t, int op, int thread, long long arg, long long accu[MAX_COUNTERS]) {
        Command c = { op, thread, arg };
        Reply r;

        if (thread < 0 || thread >= t->n_threads || write(t->cmd_fd, &c, sizeof(c)) != sizeof(c) ||
            read(t->reply_fd, &r, sizeof(r)) != sizeof(r))
                return -1;
        if (accu)
                memcpy(accu, r.accu, sizeof(r.accu));
        return r.rc;
}

int target_touch(Target *t, int thread, size_t n) {
        return command(t, OP_TOUCH, thread, (long long) n, NULL);
}

int target_pm_init(Target *t) {
        return command(t, OP_PM_INIT, 0, 0, NULL);
}

int target_get_data_mythread(Target *t, int thread, long long accu[MAX_COUNTERS]) {
        return command(t, OP_GET_DATA, thread, 0, accu);
}

int target_stop_mythread(Target *t, int thread) {
        return command(t, OP_STOP, thread, 0, NULL);
}

int target_delete_program_mythread(Target *t, int thread) {
        return command(t, OP_DELETE, thread, 0, NULL);
}

int target_start_with_pid(Target *t, const TargetIdentity *id, int n_threads, pid_t want) {
        for (int attempt = 0; attempt < 200; attempt++) {
                FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "we");

                if (!f)
                        return -1;
                fprintf(f, "%d\n", (int) want - 1);
                if (fclose(f) != 0 || target_start(t, id, n_threads) < 0)
                        return -1;
                if (t->pid == want)
                        return 0;
                target_kill(t);
        }
        return 1;
}

void target_kill(Target *t) {
        if (t->pid <= 0)
                return;
        kill(t->pid, SIGKILL);
        while (waitpid(t->pid, NULL, 0) < 0 && errno == EINTR)
                ;
        close(t->cmd_fd);
        close(t->reply_fd);
        t->pid = 0;
}
