/* error-map.c: bus error -> AIX code (codes: include/pmapi.h). Names not listed map to PM_EDAEMON;
 * tests/unit/test-error-map.c checks that every name in bus-names.h is listed. */
#include <stdlib.h>
#include <string.h>

#include "bus-names.h"
#include "error-map.h"
#include "macro.h"
#include "pmapi.h"

static const struct {
        const char *bus_error;
        int pm_code;
} bus_to_pm[] = {
        { PMAPI_ERROR_CONTEXT_EXISTS,           PM_EEXIST },
        { PMAPI_ERROR_NO_CONTEXT,               PM_ENOCONTEXT },
        { PMAPI_ERROR_NO_GROUP,                 PM_ENOGROUP },
        { PMAPI_ERROR_NO_SUCH_THREAD,           PM_ENOTHREAD },
        { PMAPI_ERROR_ACCESS_DENIED,            PM_EPERM },
        { PMAPI_ERROR_KERNEL_MODE_DENIED,       PM_EKERNELMODE },
        { PMAPI_ERROR_LIMIT_EXCEEDED,           PM_ELIMIT },
        { PMAPI_ERROR_UNKNOWN_EVENT,            PM_EEVENT },
        { PMAPI_ERROR_INVALID_MODE,             PM_EMODE },
        { PMAPI_ERROR_NO_EVENTS,                PM_ENOEVENTS },
        { PMAPI_ERROR_THRESHOLD,                PM_ETHRESH },
        { PMAPI_ERROR_HYPERVISOR,               PM_EHYPERVISOR },
        { PMAPI_ERROR_UNKNOWN_GROUP,            PM_EGROUPS },
        { PMAPI_ERROR_OPEN_FAILED,              PM_EOPEN },
        { PMAPI_ERROR_NO_MEMORY,                PM_ENOMEM },
        { PMAPI_ERROR_NOT_OWNER,                PM_ENOTOWNER },
        { PMAPI_ERROR_SET_ID_TARGET,            PM_ESETID },
        { PMAPI_ERROR_NOT_DUMPABLE,             PM_ENOTDUMPABLE },
        { PMAPI_ERROR_PTRACE_SCOPE,             PM_EPTRACESCOPE },
        { PMAPI_ERROR_DAEMON_THREAD,            PM_EDAEMONTHREAD },
        { PMAPI_ERROR_SYSTEM_BUSY,              PM_ESYSBUSY },
        { PMAPI_ERROR_ROOT_REQUIRED,            PM_ESYSROOT },
        { PMAPI_ERROR_NO_SUCH_CPU,              PM_ECPU },
        { PMAPI_ERROR_CALLER_GONE,              PM_ECALLERGONE },
        { PMAPI_ERROR_NOT_ATTACHED,             PM_ENOTATTACHED },
        { PMAPI_ERROR_NO_SUCH_CGROUP,           PM_ENOCGROUP },
        { PMAPI_ERROR_NOT_A_CGROUP,             PM_ECGROUPPATH },
        { PMAPI_ERROR_CGROUP_ACCESS,            PM_ECGROUPACCESS },
        { PMAPI_ERROR_NO_CGROUP_HIERARCHY,      PM_ENOCGROUPV2 },
        { PMAPI_ERROR_BAD_SLICE,                PM_EMXSLICE },
        { PMAPI_ERROR_BAD_SETS,                 PM_EMXSETS },
        { PMAPI_ERROR_SET_MODES_DISAGREE,       PM_EMXMODE },
        { PMAPI_ERROR_FOREIGN_MODE_LAYOUT,      PM_EMODELAYOUT },
        /* The broker's own answers when pmapid is absent or gone. */
        { SD_BUS_ERROR_SERVICE_UNKNOWN,         PM_ENODAEMON },
        { SD_BUS_ERROR_NAME_HAS_NO_OWNER,       PM_ENODAEMON },
        { SD_BUS_ERROR_NO_REPLY,                PM_ENODAEMON },
        { SD_BUS_ERROR_TIMEOUT,                 PM_ENODAEMON },
        { SD_BUS_ERROR_DISCONNECTED,            PM_ENODAEMON },
        { SD_BUS_ERROR_NO_SERVER,               PM_ENODAEMON },
        { SD_BUS_ERROR_ACCESS_DENIED,           PM_EPERM },     /* the bus policy refused the call */
        { SD_BUS_ERROR_NO_MEMORY,               PM_ENOMEM },
};

int error_map_lookup(const char *bus_error_name) {
        for (size_t i = 0; i < ELEMENTSOF(bus_to_pm); i++)
                if (strcmp(bus_to_pm[i].bus_error, bus_error_name) == 0)
                        return bus_to_pm[i].pm_code;
        return 0;
}

int error_map_from_errno(int r) {
        return r == -ENOMEM ? PM_ENOMEM : PM_ENODAEMON;      /* no bus, no socket, timeout, reset */
}

/* AIX answered "context exists" with 13 in the releases old PAPI AIX substrates were written for,
 * and with 59 in AIX 7, which OpenJ9 tests: one process can have the number its client code retries
 * on (pm_set_program_mythread(3)). Read at each error, so a test can switch it; never on success. */
static int eexist_code(void) {
        const char *v = getenv("PMAPI_EEXIST");

        return v && strcmp(v, "13") == 0 ? PM_EEXIST_AIX5 : PM_EEXIST;
}

int error_map_from_bus(const sd_bus_error *error, int r) {
        int code;

        if (!sd_bus_error_is_set(error))
                return error_map_from_errno(r);
        code = error_map_lookup(error->name);
        if (code == PM_EEXIST)
                return eexist_code();
        return code ? code : PM_EDAEMON;
}
