/* tool-bus.c: see tool-bus.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus-names.h"
#include "error-map.h"
#include "macro.h"
#include "pmapi.h"
#include "tool-bus.h"

#define CALL_TIMEOUT_USEC (10ULL * 1000 * 1000)         /* as libpmapi's calls */

/* The same translation libpmapi makes (error-map.c is compiled into the tools as well). */
static int code_from_bus(const char *method, const sd_bus_error *error, int r) {
        if (secure_getenv("PMAPI_DEBUG"))
                fprintf(stderr, "pmapi: %s: %s: %s\n", method, error->name ? error->name : "(local)",
                        error->message ? error->message : strerror(-r));
        return error_map_from_bus(error, r);
}

/* Whether id is in the Manager's "ai" property name. */
static bool in_property(sd_bus *bus, const char *name, int id) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const int32_t *ids;
        size_t size = 0;

        if (sd_bus_get_property(bus, PMAPI_SERVICE, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE, name, NULL, &reply,
                                "ai") < 0 ||
            sd_bus_message_read_array(reply, 'i', (const void **) &ids, &size) < 0)
                return false;
        for (size_t k = 0; k < size / sizeof(int32_t); k++)
                if (ids[k] == id)
                        return true;
        return false;
}

bool tool_bus_kernel_carries(const int *ids, size_t n) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        bool hardware = false;
        char path[64];
        int v = 0;

        if (sd_bus_open_system(&bus) < 0 ||
            sd_bus_get_property_trivial(bus, PMAPI_SERVICE, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE,
                                        "KernelInheritance", NULL, 'b', &v) < 0 || !v)
                return false;
        for (size_t i = 0; i < n; i++) {
                if (ids[i] == COUNT_NOTHING || in_property(bus, "CarriedEvents", ids[i]))
                        continue;
                if (!in_property(bus, "CarriedHardwareEvents", ids[i]))
                        return false;
                hardware = true;
        }
        if (!hardware)
                return true;
        v = 0;
        (void) snprintf(path, sizeof(path), PMAPI_THREAD_PREFIX "/%d", (int) gettid());
        return sd_bus_get_property_trivial(bus, PMAPI_SERVICE, path, PMAPI_THREAD_INTERFACE, "CreationsBornCounting",
                                           NULL, 'b', &v) >= 0 && v;
}

int tool_bus_call(const char *method, sd_bus_message **ret_reply, const char *types, ...) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        va_list ap;
        int r;

        r = sd_bus_open_system(&bus);
        if (r >= 0)
                r = sd_bus_message_new_method_call(bus, &call, PMAPI_SERVICE, PMAPI_MANAGER_PATH,
                                                   PMAPI_MANAGER_INTERFACE, method);
        if (r >= 0 && types) {
                va_start(ap, types);
                r = sd_bus_message_appendv(call, types, ap);
                va_end(ap);
        }
        if (r >= 0)
                r = sd_bus_call(bus, call, CALL_TIMEOUT_USEC, &error, ret_reply);
        return r < 0 ? code_from_bus(method, &error, r) : 0;
}
