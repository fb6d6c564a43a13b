#!/bin/sh
# tests/fuzz/run.sh [RUNS [SEED]]: builds fuzz-manager with clang's libFuzzer (and ASan + UBSan) in
# build-fuzz, and fuzzes pmapid's bus objects for RUNS inputs (default 10000, about a minute here)
# from SEED (default 1: the same exploration every time, so that CI does not pass or fail by
# chance; another seed, or more runs, explores further), starting from the committed corpus
# (copied: what it finds stays out of the tree, in build-fuzz/corpus). Prints one TAP line; a crash
# or a leak leaves its input in build-fuzz/ and fails: add it to tests/fuzz/corpus with the fix.
# Needs clang and libclang-rt (scripts/install-deps.sh).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-10000}
seed=${2:-1}
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
start=$(date +%s)
if (cd "$build" && ./tests/fuzz/fuzz-manager -runs="$runs" -seed="$seed" -max_len=65536 -timeout=10 \
                -print_final_stats=1 corpus) >"$log" 2>&1; then
        echo "ok 1 - libFuzzer fuzz-manager: $runs inputs from seed $seed in $(($(date +%s) - start)) s, no crash ($(ls "$build/corpus" | wc -l) in its corpus)"
else
        tail -40 "$log" | sed 's/^/# /'
        echo "not ok 1 - libFuzzer fuzz-manager crashed or failed: see $log and the crash- file in $build"
        exit 1
fi
