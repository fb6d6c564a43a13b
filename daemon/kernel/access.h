/* access.h: may a caller see or change a thread? The rule (docs/design.md, A5) is the kernel's own for
 * ptrace attach (PTRACE_MODE_ATTACH_REALCREDS), so pmapid never opens a door the kernel keeps shut:
 * allowed are a thread of the caller's own process, root, the target's tracer (or a descendant of
 * the tracer with the tracer's euid: gdb's `shell pmctl`), and a caller whose euid is every uid of
 * the target (real, effective, saved) and whose egid is every gid of it, when the target is
 * dumpable, within Yama's ptrace_scope (3: nobody but the process itself). pmapid's own threads
 * are refused to everyone.
 * access_check() is pure and table-tested; target_creds_read() gathers its inputs from /proc. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <sys/types.h>

#include "caller.h"

typedef struct TargetCreds {
        uid_t uid[3];                   /* real, effective, saved */
        gid_t gid[3];
        pid_t tracer;                   /* the process whose thread traces it (TracerPid's Tgid), or 0 */
        uid_t tracer_euid;
        bool caller_descends_from_tracer;       /* the debugger's own tool (pmctl from gdb's shell) */
        bool dumpable;                  /* PR_GET_DUMPABLE == 1, as /proc shows it */
        bool caller_is_ancestor;        /* for Yama ptrace_scope 1 (not set by target_creds_read) */
        bool same_process;              /* a thread of the caller's own process */
        bool is_daemon;                 /* a thread of pmapid itself (set by the manager) */
} TargetCreds;

typedef enum AccessVerdict {
        ACCESS_SELF,                    /* first party: a thread of the caller's own process */
        ACCESS_ROOT,
        ACCESS_TRACER,
        ACCESS_OWNER,
        ACCESS_DENIED_OTHER_USER,       /* a uid of the target is not the caller's euid */
        ACCESS_DENIED_OTHER_GROUP,      /* the target's gids are all another group (newgrp, sg) */
        ACCESS_DENIED_SET_ID,           /* the target's uids or gids differ: a set-id program */
        ACCESS_DENIED_NOT_DUMPABLE,     /* prctl(PR_SET_DUMPABLE, 0), or after a privileged exec */
        ACCESS_DENIED_YAMA,             /* kernel.yama.ptrace_scope forbids it */
        ACCESS_DENIED_DAEMON,           /* a thread of pmapid: never counted, not even for root */
        _ACCESS_VERDICT_MAX,
        _ACCESS_VERDICT_INVALID = -EINVAL,
} AccessVerdict;

AccessVerdict access_check(const Caller *caller, const TargetCreds *t, int yama_scope);
bool access_allowed(AccessVerdict v);
/* Why a refusal happened and what the caller can do, for the D-Bus error and the log. */
const char *access_verdict_reason(AccessVerdict v);

/* The credentials of thread tid of process pid (its /proc/<pid>/task/<tid> entries); -ESRCH if it
 * is gone. caller_pid decides same_process and whether the caller descends from a tracer. The
 * ancestry walk for Yama is left to access_is_ancestor(), only where Yama asks for it. */
int target_creds_read(pid_t pid, pid_t tid, pid_t caller_pid, TargetCreds *ret);
/* Whether process ancestor is pid's parent, grandparent, ... (from /proc PPid links). */
bool access_is_ancestor(pid_t ancestor, pid_t pid);
/* kernel.yama.ptrace_scope, 0 where Yama is absent; unreadable counts as 3 (no attach). */
int yama_ptrace_scope(void);
