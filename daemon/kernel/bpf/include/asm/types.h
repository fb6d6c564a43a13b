/* The BPF target has no asm/ of its own: the generic integer types are what every arch uses. */
#include <asm-generic/int-ll64.h>
