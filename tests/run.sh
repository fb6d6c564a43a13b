#!/bin/sh
# Every test, from a fresh Debian 12 machine as root: install what is missing, build with warnings
# as errors, run the unit and integration suites (the integration tests start their own private
# dbus-daemon and pmapid), then print the benchmark.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
sh scripts/install-deps.sh
build=${PMAPI_BUILD_DIR:-build-test}
[ -d "$build" ] || meson setup "$build" -Dwerror=true >/dev/null
ninja -C "$build"
meson test -C "$build" --print-errorlogs
meson test -C "$build" --benchmark --verbose 2>&1 | grep -E '^(#|operation|raw|D-Bus|pm_)' || true
