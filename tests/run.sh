#!/bin/sh
# Every test, from a fresh Debian 12 machine as root: install what is missing, build with warnings
# as errors, run the unit and integration suites (the integration tests start their own private
# dbus-daemon and pmapid), run the demo end to end over the same build, print the benchmark, and end with one "N passed, N failed" line counting
# the individual cmocka test cases. The integration suite runs once against pmapid as
# pmapid.service confines it (tests/confine/), once against a sanitized pmapid, once with pmapid
# pinning threads as it does before Linux 6.9; then libFuzzer replays its corpus against a coverage
# floor and explores pmapid's bus objects for PMAPI_FUZZ_RUNS inputs (default 10000, about 10 s;
# tests/fuzz/); x86-64 QEMU guests run the kernel-facing integration tests on Debian's own 5.10 and
# 6.1 kernels (tests/guest/; PMAPI_GUESTS=no: not, =all: 6.12 too), beside an arm64 guest with a
# real PMU (PMAPI_ARM64_GUEST=no: not).
#   tests/run.sh [--installed]
# --installed also installs the build for real, checks it against the distribution's own system bus
# and systemd configuration, and uninstalls it (tests/install/test-installed.sh; .ci/run passes it).
set -eu
installed=no
case "${1:-}" in
--installed) installed=yes ;;
"") ;;
*) echo "usage: $0 [--installed]" >&2; exit 2 ;;
esac
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
sh scripts/install-deps.sh test
build=${PMAPI_BUILD_DIR:-build-test}
[ -d "$build" ] || meson setup "$build" -Dwerror=true >/dev/null
ninja -C "$build"
rc=0
PMAPI_TEST_CONFINE=1 meson test -C "$build" --print-errorlogs || rc=$?
log="$build/meson-logs/tests.txt"
cp "$build/meson-logs/testlog.txt" "$log" 2>/dev/null || : > "$log"     # later runs overwrite it

# The main job, end to end: samples/demo.sh over this build must exit 0, report no mismatch and print
# every section (tests/demo/check-demo.sh; its output in meson-logs/demo.txt).
sh tests/demo/check-demo.sh "$build" "$build/meson-logs/demo.txt" > "$build/meson-logs/demo-check.txt" || rc=$?
cat "$build/meson-logs/demo-check.txt"
grep -E '^(not )?ok [0-9]+ - demo: ' "$build/meson-logs/demo-check.txt" >> "$log" || true

# The same suites under AddressSanitizer + UndefinedBehaviorSanitizer: the unit tests whole, the
# integration tests against a sanitized pmapid (the clients stay uninstrumented: ASan's shadow
# memory would add page faults to the exact counts they check).
asan="$build-asan"
[ -d "$asan" ] || meson setup "$asan" -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
ninja -C "$asan"
meson test -C "$asan" --suite unit --print-errorlogs || rc=$?
cat "$asan/meson-logs/testlog.txt" >> "$log" 2>/dev/null || true
PMAPI_TEST_PMAPID="$top/$asan/daemon/pmapid" meson test -C "$build" --suite integration --print-errorlogs || rc=$?
cat "$build/meson-logs/testlog.txt" >> "$log" 2>/dev/null || true
# The integration suite once more with pmapid pinning threads by /proc, as it must on kernels
# before 6.9 (PMAPID_THREAD_PINS=procfs; daemon/kernel/thread-pin.h), at this machine's speed.
PMAPID_THREAD_PINS=procfs meson test -C "$build" --suite integration --print-errorlogs || rc=$?
cat "$build/meson-logs/testlog.txt" >> "$log" 2>/dev/null || true
# libFuzzer on pmapid's bus objects: the committed corpus must reach a coverage floor, then a bounded
# exploration (PMAPI_FUZZ_RUNS inputs, default 10000, from PMAPI_FUZZ_SEED, default 1); both print
# cov: and ft: (tests/fuzz/run.sh).
sh tests/fuzz/run.sh "${PMAPI_FUZZ_RUNS:-10000}" "${PMAPI_FUZZ_SEED:-1}" > "$build/meson-logs/fuzz.txt" || rc=$?
cat "$build/meson-logs/fuzz.txt"
cat "$build/meson-logs/fuzz.txt" >> "$log"
# The kernels users run: Debian 11's 5.10 and Debian 12's 6.1 in x86-64 QEMU guests over this build
# (tests/guest/kernel-matrix.sh: the kernel-facing integration tests, the BPF programs' verifiers
# included; PMAPI_GUEST_TESTS=all for every integration test; about 4 minutes), on one CPU while the
# arm64 guest below takes the other, each QEMU a single host thread. PMAPI_GUESTS=no leaves them
# out, PMAPI_GUESTS=all adds trixie's 6.12 on x86 (the arm64 guest runs a 6.12 already).
case "${PMAPI_GUESTS:-yes}" in
no) suites="" ;;
all) suites="bullseye bookworm trixie" ;;
*) suites="bullseye bookworm" ;;
esac
x86=""
if [ -n "$suites" ]; then
        # Their kernels first, before the arm64 stage's own downloads share the private apt folder.
        for suite in $suites; do
                sh tests/guest/make-kernel.sh "$suite" amd64 "${PMAPI_GUEST_CACHE:-$top/$build/guests}" \
                        > /dev/null 2>&1 || true
        done
        : > "$build/meson-logs/guests-tests.txt"
        # shellcheck disable=SC2086
        sh tests/guest/kernel-matrix.sh "$build" "$build/meson-logs/guests-tests.txt" $suites \
                > "$build/meson-logs/guests.txt" 2>&1 &
        x86=$!
fi
# The hardware-counter paths on a real PMU: an arm64 Cortex-A57 guest under QEMU with -icount
# shift=0 (exact counts), the project cross-built for it (tests/guest/arm64-guest.sh; about 10
# minutes here). PMAPI_ARM64_GUEST=no leaves it out.
if [ "${PMAPI_ARM64_GUEST:-yes}" = yes ]; then
        sh tests/guest/arm64-guest.sh "$build" "$log" > "$build/meson-logs/arm64-guest.txt" 2>&1 || rc=$?
        cat "$build/meson-logs/arm64-guest.txt"
        grep -E '^(not )?ok [0-9]+ - arm64 guest' "$build/meson-logs/arm64-guest.txt" >> "$log" || true
fi
if [ -n "$x86" ]; then
        wait "$x86" || rc=$?
        cat "$build/meson-logs/guests.txt"
        cat "$build/meson-logs/guests-tests.txt" >> "$log" 2>/dev/null || true
        grep -E '^(not )?ok [0-9]+ - guest' "$build/meson-logs/guests.txt" >> "$log" || true
fi
# The Debian packages (debian/): built, lintian-clean, installed without systemd, purged
# (tests/package/check-packages.sh; about 5 minutes). PMAPI_PACKAGES=no leaves them out.
if [ "${PMAPI_PACKAGES:-yes}" = yes ]; then
        sh tests/package/check-packages.sh "$build" > "$build/meson-logs/packages.txt" 2>&1 || rc=$?
        cat "$build/meson-logs/packages.txt"
        grep -E '^(not )?ok [0-9]+ ' "$build/meson-logs/packages.txt" | grep ' - packages: ' >> "$log" || true
fi
# The same packages under a real systemd: a Debian 12 tree booted with systemd-nspawn (its tree made
# once by debootstrap and kept in the build folder; tests/systemd/boot-test.sh, about 40 s a run,
# 2 minutes more the first time). PMAPI_SYSTEMD=no leaves it out; it needs the packages' stage.
if [ "${PMAPI_PACKAGES:-yes}" = yes ] && [ "${PMAPI_SYSTEMD:-yes}" = yes ]; then
        sh tests/systemd/boot-test.sh "$build" > "$build/meson-logs/systemd.txt" 2>&1 || rc=$?
        cat "$build/meson-logs/systemd.txt"
        grep -E '^(not )?ok [0-9]+ ' "$build/meson-logs/systemd.txt" | grep ' - systemd: ' >> "$log" || true
fi
if [ "$installed" = yes ]; then
        sh tests/install/test-installed.sh "$build" > "$build/meson-logs/installed.txt" || rc=$?
        cat "$build/meson-logs/installed.txt"
        cat "$build/meson-logs/installed.txt" >> "$log"
fi
meson test -C "$build" --benchmark --verbose 2>&1 | grep -E '^(#|operation|raw|D-Bus|pm_|contexts|flood|pthread_create|fork\+|context switch|read\(\)| +[0-9])' || true
# cmocka 1.1.5 writes a skipped case as "not ok N # SKIP name"; its binary still exits 0, so the
# skips are counted here, where they cannot pass for passes.
passed=$(grep -cE '^ok [0-9]+ ' "$log" || true)
skipped=$(grep -cE '^not ok [0-9]+ # SKIP' "$log" || true)
failed=$(grep -E '^not ok [0-9]+ ' "$log" | grep -cv '# SKIP' || true)
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit $rc
