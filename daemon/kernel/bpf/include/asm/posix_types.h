/* The generic kernel types: BPF has no arch header of its own. */
#include <asm-generic/posix_types.h>
