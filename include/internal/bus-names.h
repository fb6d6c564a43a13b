/* bus-names.h: the only place where the service, object paths, interfaces and error names of
 * org.pmapi.PerfMon1 are spelled. The contract is dbus/org.pmapi.PerfMon1.xml. */
#pragma once

#define PMAPI_SERVICE           "org.pmapi.PerfMon1"
#define PMAPI_MANAGER_PATH      "/org/pmapi/PerfMon1"
#define PMAPI_THREAD_PREFIX     "/org/pmapi/PerfMon1/thread"
#define PMAPI_GROUP_PREFIX      "/org/pmapi/PerfMon1/group"
#define PMAPI_CPU_PREFIX        "/org/pmapi/PerfMon1/cpu"
#define PMAPI_PROCTREE_PREFIX   "/org/pmapi/PerfMon1/proctree"
#define PMAPI_MANAGER_INTERFACE "org.pmapi.PerfMon1.Manager"
#define PMAPI_THREAD_INTERFACE  "org.pmapi.PerfMon1.Thread"
#define PMAPI_GROUP_INTERFACE   "org.pmapi.PerfMon1.Group"
#define PMAPI_CPU_INTERFACE     "org.pmapi.PerfMon1.Cpu"

#define PMAPI_ERROR_PREFIX              "org.pmapi.PerfMon1.Error."
#define PMAPI_ERROR_CONTEXT_EXISTS      PMAPI_ERROR_PREFIX "ContextExists"
#define PMAPI_ERROR_NO_CONTEXT          PMAPI_ERROR_PREFIX "NoContext"
#define PMAPI_ERROR_NO_GROUP            PMAPI_ERROR_PREFIX "NoGroup"
#define PMAPI_ERROR_NO_SUCH_THREAD      PMAPI_ERROR_PREFIX "NoSuchThread"
#define PMAPI_ERROR_ACCESS_DENIED       PMAPI_ERROR_PREFIX "AccessDenied"
#define PMAPI_ERROR_KERNEL_MODE_DENIED  PMAPI_ERROR_PREFIX "KernelModeDenied"
#define PMAPI_ERROR_LIMIT_EXCEEDED      PMAPI_ERROR_PREFIX "LimitExceeded"
#define PMAPI_ERROR_UNKNOWN_EVENT       PMAPI_ERROR_PREFIX "UnknownEvent"
#define PMAPI_ERROR_INVALID_MODE        PMAPI_ERROR_PREFIX "InvalidMode"
#define PMAPI_ERROR_NO_EVENTS           PMAPI_ERROR_PREFIX "NoEvents"
#define PMAPI_ERROR_THRESHOLD           PMAPI_ERROR_PREFIX "ThresholdNotSupported"
#define PMAPI_ERROR_HYPERVISOR          PMAPI_ERROR_PREFIX "HypervisorNotSupported"
#define PMAPI_ERROR_EVENT_GROUPS        PMAPI_ERROR_PREFIX "EventGroupsNotSupported"
#define PMAPI_ERROR_OPEN_FAILED         PMAPI_ERROR_PREFIX "OpenFailed"
#define PMAPI_ERROR_NO_MEMORY           PMAPI_ERROR_PREFIX "NoMemory"
/* Refusals of the access rule (daemon/access.h), one per reason a caller can act on. */
#define PMAPI_ERROR_NOT_OWNER           PMAPI_ERROR_PREFIX "NotOwner"
#define PMAPI_ERROR_SET_ID_TARGET       PMAPI_ERROR_PREFIX "SetIdTarget"
#define PMAPI_ERROR_NOT_DUMPABLE        PMAPI_ERROR_PREFIX "NotDumpable"
#define PMAPI_ERROR_PTRACE_SCOPE        PMAPI_ERROR_PREFIX "PtraceScope"
#define PMAPI_ERROR_DAEMON_THREAD       PMAPI_ERROR_PREFIX "DaemonThread"
/* The system scope. */
#define PMAPI_ERROR_SYSTEM_BUSY         PMAPI_ERROR_PREFIX "SystemBusy"
#define PMAPI_ERROR_ROOT_REQUIRED       PMAPI_ERROR_PREFIX "RootRequired"
#define PMAPI_ERROR_NO_SUCH_CPU         PMAPI_ERROR_PREFIX "NoSuchCpu"
/* Identity: the connection's process is gone (a recycled pid cannot be borrowed). */
#define PMAPI_ERROR_CALLER_GONE         PMAPI_ERROR_PREFIX "CallerGone"
#define PMAPI_ERROR_NOT_ATTACHED        PMAPI_ERROR_PREFIX "NotAttached"
