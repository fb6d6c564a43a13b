#!/bin/sh
# Runs inside a guest (run-guest.sh): the integration tests named, from the build folder BUILD, at
# perf_event_paranoid 2 as on the project machine (Debian's kernels boot with 3; the tests that need
# 3 set it themselves), then prints meson's log between two marker lines for the caller to keep.
#   tests/guest/in-guest.sh BUILD TEST...
set -u
build=$1
shift
echo 2 > /proc/sys/kernel/perf_event_paranoid
# Taking a CPU offline and back under TCG once hung a 5.10 guest for good (test-system skips it).
export PMAPI_TEST_NO_CPU_HOTPLUG=1
# The host (run-guest.sh) stops a guest that makes no progress: the stage in /run/guest-out/stage
# ("NAME [STALL]", STALL in seconds of this guest's clock) changes or meson's output in
# /run/guest-out/meson.txt grows. It counts on this guest's clock, as meson's test timeouts do
# (under -icount it runs as the guest executes, 20 times slower than the host's here under load):
# written to /run/guest-out/clock every second of it.
echo tests > /run/guest-out/stage
while sleep 1; do
        cut -d' ' -f1 /proc/uptime > /run/guest-out/clock.new && mv /run/guest-out/clock.new /run/guest-out/clock
done &
clock=$!
# Every 30 s, on the console: the last test line and the processes that run or wait in the kernel,
# with their kernel stacks, so that a guest that hangs says where.
(
        while sleep 30; do
                echo "=== guest watch: $(grep -E '^ *[0-9]+/[0-9]+ ' /run/guest-out/meson.txt 2>/dev/null | tail -n 1)"
                for s in /proc/[0-9]*/stat; do
                        pid=${s#/proc/}
                        pid=${pid%/stat}
                        state=$(sed 's/.*) //' "$s" 2>/dev/null | cut -d' ' -f1)
                        case $state in
                        R | D) echo "pid $pid $state $(cat /proc/$pid/comm 2>/dev/null):"
                               sed 's/^/    /' /proc/$pid/stack 2>/dev/null | head -n 12 ;;
                        esac
                done
        done
) &
watch=$!
# PMAPI_GUEST_TIMEOUT_MULTIPLIER: meson's --timeout-multiplier here (the host's limits follow it).
meson test -C "$build" --no-rebuild --print-errorlogs --timeout-multiplier "${PMAPI_GUEST_TIMEOUT_MULTIPLIER:-1}" "$@" \
        > /run/guest-out/meson.txt 2>&1
rc=$?
kill "$watch" 2>/dev/null
grep -E '^ *[0-9]+/[0-9]+ .*(OK|FAIL|SKIP|TIMEOUT)' /run/guest-out/meson.txt
echo "=== guest testlog"
cat "$build/meson-logs/testlog.txt"
echo "=== end"
# PMAPI_GUEST_BENCH=NAMES: those benchmarks after the tests (a measurement, never a failure), their
# output printed between two marker lines.
if [ -n "${PMAPI_GUEST_BENCH:-}" ]; then
        echo "bench 600" > /run/guest-out/stage
        echo "=== guest bench"
        # shellcheck disable=SC2086
        meson test -C "$build" --no-rebuild --benchmark --verbose $PMAPI_GUEST_BENCH 2>&1
        echo "=== end"
fi
# PMAPI_GUEST_CALIBRATE=yes: pmapid --calibrate on this machine's PMU, its file printed.
# Under 5 s of the guest's clock in the arm64 guest: its own stall limit, not the tests'.
if [ "${PMAPI_GUEST_CALIBRATE:-no}" = yes ]; then
        echo calibration 120 > /run/guest-out/stage
        "$build/daemon/pmapid" --calibrate --calibration=/run/guest-calibration >/dev/null 2>&1 || rc=1
        echo "=== guest calibration"
        cat /run/guest-calibration 2>/dev/null
        echo "=== end"
fi
kill "$clock" 2>/dev/null
exit $rc
