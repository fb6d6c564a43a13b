/* comm-text.h: a thread's name (the kernel's comm) as text for the bus and the journal. The name is
 * whatever bytes the workload chose, cut to 15 by the kernel, possibly in the middle of a
 * character; sd-bus refuses a whole message whose strings are not valid UTF-8. The stored name stays
 * raw (context.h, group.h, the handover): only what leaves pmapid is escaped. */
#pragma once

#include <stdbool.h>

/* 15 bytes (TASK_COMM_LEN - 1, as CONTEXT_COMM_MAX - 1), each escaped as "\xNN" at worst, and a NUL. */
#define COMM_TEXT_BYTES_MAX 15
#define COMM_UTF8_MAX (4 * COMM_TEXT_BYTES_MAX + 1)

/* The name with every byte that is not part of a character sd-bus accepts written as "\xNN" (lower
 * case): a stray or cut sequence, an overlong form, a surrogate, a code point past U+10FFFF, and the
 * noncharacters (U+FDD0..U+FDEF, U+xFFFE, U+xFFFF), which sd-bus refuses too. Everything else,
 * control characters included, is copied as it is: the tools escape for display. At most the first
 * COMM_TEXT_BYTES_MAX bytes of comm are read. Returns buf. */
const char *comm_to_utf8(const char *comm, char buf[static COMM_UTF8_MAX]);

/* The same, and control characters (U+0000..U+001F, U+007F) escaped as well, for a log line: a
 * newline in a name would otherwise start a journal entry of the workload's choosing. */
const char *comm_to_log(const char *comm, char buf[static COMM_UTF8_MAX]);

/* The same for a string of any length (a cgroup path): a new string, NULL when out of memory. */
char *text_to_utf8_dup(const char *text, bool escape_controls);
