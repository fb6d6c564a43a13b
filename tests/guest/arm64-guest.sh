#!/bin/sh
# The hardware-counter paths on a real PMU: the project cross-built for arm64 (cross-build.sh)
# against a Debian bookworm arm64 userland (make-sysroot.sh), booted with Debian's bookworm-backports
# 6.12 arm64 kernel in QEMU as a Cortex-A57 with -icount shift=0, whose PMU (6 counters and the
# cycle counter) counts instructions and cycles exactly. Runs the unit tests and the integration
# tests that count with the PMU or depend on its shape (maxpmcs 6, Arm events); the others need
# tools the minimal userland does not have (busctl, gdb, perf) or say nothing about a PMU.
# Appends meson's log to LOG; prints one line that says how it went and how long it took. The guest
# runs as long as it makes progress (run-guest.sh), its limits from its tests' timeouts (guest_limits
# in console.sh): a slow machine makes it slower, not red.
#   tests/guest/arm64-guest.sh BUILD LOG
set -u
build=$1 log=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/guest/console.sh"
cache=${PMAPI_GUEST_CACHE:-$top/$build/guests}
tests=${PMAPI_ARM64_TESTS:-hardware-counts hardware-carried pmcount-hardware event-counts groups inheritance library system mx mx-system
 event-groups calibrate aix-clients aix-group-clients aix-client-code local-reads wide-groups pmu-tools
 privilege-drop handed-fds}
mkdir -p "$cache"
start=$(date +%s)
if ! sysroot=$(sh "$top/tests/guest/make-sysroot.sh" "$cache" 2>"$cache/arm64-sysroot.err") ||
   ! kdir=$(sh "$top/tests/guest/make-kernel.sh" bookworm-backports arm64 "$cache" 2>"$cache/arm64-kernel.err"); then
        echo "not ok 1 - arm64 guest: its userland or kernel could not be prepared: $(tail -qn 1 "$cache"/arm64-*.err)"
        exit 1
fi
prepared=$(($(date +%s) - start))
if ! sh "$top/tests/guest/cross-build.sh" "$sysroot" "$top/$build/arm64" > "$cache/arm64-build.txt" 2>&1; then
        echo "not ok 1 - arm64 guest: the cross build failed:"
        grep -E 'error|FAILED' "$cache/arm64-build.txt" | head -n 20 | sed 's/^/#   /'
        exit 1
fi
built=$(($(date +%s) - start - prepared))
# meson takes test names or suites, not both: the unit suite by its names.
units=$(meson test -C "$top/$build/arm64" --list --no-rebuild --suite unit 2>/dev/null | sed -n 's|^pmapi:unit / ||p')
out="$cache/bookworm-backports-arm64.console"
# shellcheck disable=SC2086
guest_limits "$top/$build/arm64" $units $tests
# shellcheck disable=SC2086
(cd "$top" && PMAPI_GUEST_ROOT="$sysroot" PMAPI_GUEST_CALIBRATE=yes sh tests/guest/run-guest.sh "$kdir" arm64 "$stall" "$cap" \
        sh tests/guest/in-guest.sh "$build/arm64" $units $tests) > "$out" 2>&1
status=$?
console_take "$out" "$log"
line="arm64 guest $(cut -d' ' -f1 "$kdir/release") (Cortex-A57, PMU): $passed meson tests passed${failed:+, failed: $failed}; userland and kernel ready in ${prepared} s, cross build ${built} s, tests in $(($(date +%s) - start - prepared - built)) s (${clock:-0} s of the guest's clock)${stopped:+; stopped: $stopped}"
if [ "$status" -eq 0 ]; then
        echo "ok 1 - $line"
        grep -hE '^# (uid|[0-9]+ events|pm_get_data|busybox sh|make -j2|Python)' "$out" | sed 's/^/  /'
        echo "  pmapid --calibrate on the guest's PMU:"
        sed -n '/^=== guest calibration$/,/^=== end$/p' "$out" | sed '1d;$d' | sed 's/^/    /'
        if [ -n "${PMAPI_GUEST_BENCH:-}" ]; then
                echo "  benchmarks in the guest ($PMAPI_GUEST_BENCH):"
                sed -n '/^=== guest bench$/,/^=== end$/p' "$out" | sed '1d;$d' | grep -E '^#|[0-9] ns ' | sed 's/^/    /'
        fi
else
        echo "not ok 1 - $line (console: $out)"
        console_why "$out"
fi
exit $status
