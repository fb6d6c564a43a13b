#!/bin/sh
# The integration tests on the kernels users run: Debian's own bullseye (5.10), bookworm (6.1) and
# trixie (6.12) kernels, each booted in an x86-64 QEMU guest (TCG: no CPU PMU, software events) over
# this machine's files (tests/guest/run-guest.sh), running the build BUILD. The tests chosen are those
# whose outcome depends on the kernel: pins and identity, inheritance, exits, handover, cgroups, the
# system scope, time, and the perf backend's inherited group reads (a unit test); PMAPI_GUEST_TESTS=all runs every integration test (the long form, about 6
# minutes a kernel here), or names others. Each guest's meson log goes to LOG; one line per kernel
# says how it went and how long it took. A guest runs as long as it makes progress (run-guest.sh),
# its limits from its tests' timeouts (guest_limits in console.sh).
#   tests/guest/kernel-matrix.sh BUILD LOG [SUITE...]
set -u
build=$1 log=$2
shift 2
suites=${*:-bullseye bookworm trixie}
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/guest/console.sh"
cache=${PMAPI_GUEST_CACHE:-$top/$build/guests}
tests=${PMAPI_GUEST_TESTS:-thread-counting groups inheritance bad-input identity third-party system reexec
 fd-store local-reads thread-names cgroup time mx aix-clients aix-client-code event-groups counter-perf}
[ "$tests" = all ] && tests="--suite integration"
# shellcheck disable=SC2086
guest_limits "$top/$build" $tests
rc=0
n=0
mkdir -p "$cache"
for suite in $suites; do
        n=$((n + 1))
        start=$(date +%s)
        if ! kdir=$(sh "$top/tests/guest/make-kernel.sh" "$suite" amd64 "$cache" 2>"$cache/$suite.err"); then
                echo "not ok $n - guest $suite: its kernel could not be prepared: $(tail -n 1 "$cache/$suite.err")"
                rc=1
                continue
        fi
        prepared=$(($(date +%s) - start))
        chosen=$tests
        out="$cache/$suite-amd64.console"
        # shellcheck disable=SC2086
        (cd "$top" && sh tests/guest/run-guest.sh "$kdir" amd64 "$stall" "$cap" sh tests/guest/in-guest.sh "$build" $chosen) \
                > "$out" 2>&1
        status=$?
        console_take "$out" "$log"
        line="guest $(cut -d' ' -f1 "$kdir/release") (Debian $suite): $passed meson tests passed${failed:+, failed: $failed}; kernel ready in ${prepared} s, tests in $(($(date +%s) - start - prepared)) s${stopped:+; stopped: $stopped}"
        if [ "$status" -eq 0 ]; then
                echo "ok $n - $line"
        else
                echo "not ok $n - $line (console: $out)"
                console_why "$out"
                rc=1
        fi
done
exit $rc
