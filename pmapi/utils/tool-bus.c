/* tool-bus.c: see tool-bus.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

bool tool_bus_kernel_carries(const int *ids, size_t n) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const int32_t *carried;
        size_t size = 0;
        int v = 0;

        if (sd_bus_open_system(&bus) < 0 ||
            sd_bus_get_property_trivial(bus, PMAPI_SERVICE, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE,
                                        "KernelInheritance", NULL, 'b', &v) < 0 || !v ||
            sd_bus_get_property(bus, PMAPI_SERVICE, PMAPI_MANAGER_PATH, PMAPI_MANAGER_INTERFACE, "CarriedEvents",
                                NULL, &reply, "ai") < 0 ||
            sd_bus_message_read_array(reply, 'i', (const void **) &carried, &size) < 0)
                return false;
        for (size_t i = 0; i < n; i++) {
                bool found = ids[i] == COUNT_NOTHING;

                for (size_t k = 0; !found && k < size / sizeof(int32_t); k++)
                        found = carried[k] == ids[i];
                if (!found)
                        return false;
        }
        return true;
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
