/* mode-layout.h: whether a pm_mode_t word was built for another bit-field layout, judged the same
 * way by libpmapi (before the bus) and pmapid (for callers that speak D-Bus directly). Pure. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "pmapi.h"

/* The 6-bit threshold field: bits 31..26 of the word. */
#define MODE_LAYOUT_THRESHOLD_FIELD 0xfc000000u

/* A word declared in AIX's most-significant-first field order but compiled little-endian (OpenJ9
 * keeps such a private copy of pm_mode_t: its user, is_group, runlatch, nointerrupt and no_inherit
 * bits come out as 0x24001480), or one byte-swapped, carries its proctree..is_group bits at the
 * top, inside the threshold field, and none of user and kernel at the bottom. A word built with
 * <pmapi.h> never looks so: a threshold counts nothing without user or kernel mode. */
static inline bool mode_layout_foreign(uint32_t w) {
        return (w & MODE_LAYOUT_THRESHOLD_FIELD) != 0 && (w & (PM_USER | PM_KERNEL)) == 0;
}
