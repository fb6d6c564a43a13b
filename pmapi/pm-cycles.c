/* pm-cycles.c: pm_cycles(), the processor's nominal speed in Hz. No daemon is asked: the kernel's
 * own numbers are read on every call (cycles.c, which also says in what order). */
#include "cycles.h"
#include "pmapi.h"

double pm_cycles(void) {
        /* AIX documents 0 for an error, and ported programs test for it: keep it (man/pm_cycles.3). */
        return cycles_nominal("/");
}
