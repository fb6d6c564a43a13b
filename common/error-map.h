/* error-map.h: D-Bus errors and errnos to AIX-style PM_E* codes (the library's one translation). */
#pragma once

#include <systemd/sd-bus.h>

/* error may be unset; r is the negative errno sd-bus returned. */
int error_map_from_bus(const sd_bus_error *error, int r);
int error_map_from_errno(int r);
/* The PM code for a D-Bus error name, or 0 if the table does not name it (tests). */
int error_map_lookup(const char *bus_error_name);
