#!/bin/sh
# tests/fuzz/run.sh [RUNS [SEED]]: builds fuzz-manager with clang's libFuzzer (and ASan + UBSan) in
# build-fuzz (PMAPI_FUZZ_BUILD_DIR: another), pmapid's core with libFuzzer's coverage counters
# (tests/fuzz/meson.build). Prints two TAP lines:
#   1. the committed corpus replayed once (-runs=0): the coverage it reaches, which must not fall
#      below cov_floor (a fuzzer that stops seeing the daemon, or a corpus that stops reaching it,
#      fails here);
#   2. RUNS inputs explored (default 10000, about 10 s here) from SEED (default 1: the same
#      exploration every time, so that CI does not pass or fail by chance; another seed, or more
#      runs, explores further), starting from the committed corpus (copied: what it finds stays
#      out of the tree, in build-fuzz/corpus), with the coverage it ends at.
# A crash or a leak leaves its input in the build directory and fails: add it to tests/fuzz/corpus
# under a name that says what it found, with the fix. To fold what exploring found into the
# committed corpus, minimized (the named seeds of make-corpus and the regression inputs stay):
#   build-fuzz/tests/fuzz/fuzz-manager -merge=1 -max_len=65536 tests/fuzz/corpus build-fuzz/corpus
# and raise cov_floor if the replayed coverage rose.
# Needs clang and libclang-rt (scripts/install-deps.sh).
set -eu

# The least coverage ("INITED cov:": edges of pmapid's core and fuzz-manager.c) that replaying the
# committed corpus may reach. Measured 2,363 to 2,402 (ft: 5,501 to 5,681) while daemon/ changed,
# the same on every replay of one build, with clang 14.0.6 (Debian 12) and
# -Db_sanitize=address,undefined, over the 219-file corpus (line 1 below); set at about 85 % of
# that, so that code moving between functions does not fail it but a fuzz target that stops seeing
# the daemon (10 when only fuzz-manager.c had counters) or a corpus that stops reaching it does.
cov_floor=2000

top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-10000}
seed=${2:-1}
build=${PMAPI_FUZZ_BUILD_DIR:-$top/build-fuzz}
case "$build" in /*) ;; *) build="$top/$build" ;; esac
cd "$top"
if [ ! -d "$build" ]; then
        CC=clang meson setup "$build" -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false \
                -Dman=disabled -Dsamples=false >/dev/null
fi
ninja -C "$build" tests/fuzz/fuzz-manager >/dev/null
fuzzer="$build/tests/fuzz/fuzz-manager"
echo "1..2"

# "#N INITED cov: C ft: F ..." and "#N DONE cov: C ft: F ...": C and F of the last such line.
coverage() {
        sed -n 's/^#[0-9]*[[:space:]]*\(INITED\|DONE\)[[:space:]]*cov: \([0-9]*\) ft: \([0-9]*\).*/\2 \3/p' \
                "$1" | tail -1
}

replay="$build/corpus-replay"
rm -rf "$replay"
mkdir -p "$replay"
cp tests/fuzz/corpus/* "$replay/"
n_inputs=$(ls "$replay" | wc -l)
log="$build/fuzz-replay.log"
if (cd "$build" && "$fuzzer" -runs=0 -max_len=65536 -timeout=10 "$replay") >"$log" 2>&1; then
        set -- $(coverage "$log") 0 0
        what="libFuzzer fuzz-manager: the $n_inputs committed inputs reach cov: $1 ft: $2"
        if [ "$1" -ge "$cov_floor" ]; then
                echo "ok 1 - $what (floor $cov_floor)"
        else
                echo "not ok 1 - $what, below the floor $cov_floor (cov_floor, tests/fuzz/run.sh): see $log"
                rc=1
        fi
else
        tail -40 "$log" | sed 's/^/# /'
        echo "not ok 1 - libFuzzer fuzz-manager crashed or failed on the committed corpus: see $log"
        rc=1
fi

mkdir -p "$build/corpus"
cp -n tests/fuzz/corpus/* "$build/corpus/" 2>/dev/null || true
log="$build/fuzz.log"
start=$(date +%s)
if (cd "$build" && "$fuzzer" -runs="$runs" -seed="$seed" -max_len=65536 -timeout=10 \
                -print_final_stats=1 corpus) >"$log" 2>&1; then
        set -- $(coverage "$log") 0 0
        echo "ok 2 - libFuzzer fuzz-manager: $runs inputs from seed $seed in $(($(date +%s) - start)) s," \
                "no crash, cov: $1 ft: $2 ($(ls "$build/corpus" | wc -l) in its corpus)"
else
        tail -40 "$log" | sed 's/^/# /'
        echo "not ok 2 - libFuzzer fuzz-manager crashed or failed: see $log and the crash- file in $build"
        rc=1
fi
exit ${rc:-0}
