/* bus.h: libpmapi's one connection to pmapid on the system bus, shared by all threads behind a
 * lock and replaced in a forked child. */
#pragma once

#include <stdbool.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "macro.h"

/* Calls method on the Manager with arguments appended by types/...; returns 0 or a PM_E* code.
 * ret_reply may be NULL. */
int bus_call(const char *method, sd_bus_message **ret_reply, const char *types, ...);
/* The same, with a target thread (pid, tid) as the first two arguments. */
int bus_call_target(const char *method, sd_bus_message **ret_reply, pid_t pid, pid_t tid, const char *types, ...);
/* The first-party target (getpid(), gettid()). */
#define bus_call_self(method, ret_reply, ...) \
        bus_call_target(method, ret_reply, getpid(), gettid(), __VA_ARGS__)
/* Whether the connection passes fds (open, and negotiated with the bus): 1, 0, or a PM_E* code. */
int bus_can_pass_fds(void);
/* Whether pmapid inherits inside the kernel (its KernelInheritance, asked before each call that sets
 * a program): a new thread of a carried thread is born counting, and asks nothing. No bus call. */
bool bus_kernel_inherits(void);
/* Whether that pmapid carries a program holding event id inside the kernel (its CarriedEvents:
 * software events). A thread whose program holds another asks for its new threads. No bus call. */
bool bus_kernel_carries_event(int id);
/* The same, or a hardware event it carries where the PMU's share for carried programs has room
 * (its CarriedHardwareEvents): whether it did, bus_creations_born_counting() asks. No bus call. */
bool bus_kernel_may_carry_event(int id);
/* Whether what the calling thread creates is born counting (its context's CreationsBornCounting):
 * one bus call; false on any error. */
bool bus_creations_born_counting(void);
/* pmapid's own words for this thread's last failed call, if it failed with code; else NULL. */
const char *bus_last_detail(int code);
/* fork(): the connection's lock is held across it (fork-hooks.c); the child takes its own
 * connection at its first call. */
void bus_prepare_fork(void);
void bus_parent_after_fork(void);
void bus_child_after_fork(void);
/* Drops a reply of bus_call*(). Use it instead of sd_bus_message_unref(): a reply holds a reference on
 * the shared connection, which only the connection's lock protects. */
sd_bus_message *bus_reply_unref(sd_bus_message *reply);
DEFINE_FREEP(sd_bus_message, bus_reply_unref);
