/* log.c: the daemon's log threshold (6 = info; --verbose makes it 7 = debug). */
#include "log.h"

int log_max_level = 6;
