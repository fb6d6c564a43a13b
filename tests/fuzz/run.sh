#!/bin/sh
# tests/fuzz/run.sh SECONDS: builds fuzz-manager with clang's libFuzzer (and ASan + UBSan) in
# build-fuzz, and fuzzes pmapid's bus objects for SECONDS, starting from the committed corpus
# (copied: what it finds stays out of the tree, in build-fuzz/corpus). Prints one TAP line; a crash
# leaves its input in build-fuzz/ and fails. Needs clang and libclang-rt (scripts/install-deps.sh).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-60}
build="$top/build-fuzz"
cd "$top"
if [ ! -d "$build" ]; then
        CC=clang meson setup "$build" -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false \
                -Dman=disabled -Dsamples=false >/dev/null
fi
ninja -C "$build" tests/fuzz/fuzz-manager >/dev/null
mkdir -p "$build/corpus"
cp -n tests/fuzz/corpus/* "$build/corpus/" 2>/dev/null || true
log="$build/fuzz.log"
if (cd "$build" && ./tests/fuzz/fuzz-manager -max_total_time="$seconds" -max_len=65536 -timeout=10 \
                -print_final_stats=1 corpus) >"$log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        echo "ok 1 - libFuzzer fuzz-manager: ${runs:-?} inputs in ${seconds} s, no crash ($(ls "$build/corpus" | wc -l) in its corpus)"
else
        tail -40 "$log" | sed 's/^/# /'
        echo "not ok 1 - libFuzzer fuzz-manager crashed or failed: see $log and the crash- file in $build"
        exit 1
fi
