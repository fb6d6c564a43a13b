/* bench-switch.h: the cost of a context switch, measured by a pipe ping-pong. */
#pragma once

/* The median time of one context switch over round_trips round trips of a byte (timed in batches of
 * 100) between the calling thread and a partner thread made now, which inherits its CPUs: keep the
 * caller on one CPU, so that each round trip is two switches. -1 on error. */
long long bench_switch_ns(int round_trips);
