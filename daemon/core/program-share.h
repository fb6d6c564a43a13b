/* program-share.h: one copy of a program and its perf encoding for every context that counts it.
 * A descendants group of ten thousand born threads counts one program: each context keeps a
 * pointer to the shared copy (about 1.6 KiB saved per context), not a copy of its own. Contexts
 * never change their program (SetProgram makes a new context), so the copies are read-only.
 * Pure: no system calls; pmapid's contexts live on one thread. */
#pragma once

#include "program.h"

/* The shared copy of p encoded for t, with one more reference; NULL where memory ran out. The
 * encoding is program_encode(p, t). */
const Program *program_share(const Program *p, const EventTable *t);
/* The encoding that goes with a program program_share() returned. */
const ProgramEncoding *program_share_encoding(const Program *shared);
/* Drops a reference; the copy goes with the last. NULL is ignored. */
void program_unshare(const Program *shared);
/* How many distinct programs are shared now (for tests). */
size_t program_share_count(void);
