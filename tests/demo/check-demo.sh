#!/bin/sh
# The main job, checked end to end: runs samples/demo.sh over the test build and writes TAP lines for
# tests/run.sh. It fails when the demo exits non-zero, when a scenario reports a mismatch (a sample's
# "OUT OF RANGE" or a group "!= sum"), or when a section or subsection the demo prints ("== ", "-- ")
# is missing from its output. The sections are read from samples/demo.sh itself, up to their first
# shell expansion, so a new section is checked without a list kept here.
#   tests/demo/check-demo.sh BUILD_DIR OUTPUT_FILE    (exits 1 when a line is "not ok")
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$1
out=$2
cd "$top"
start=$(date +%s)
PMAPI_BUILD_DIR="$build" sh samples/demo.sh > "$out" 2>&1
rc=$?
took=$(($(date +%s) - start))
n=0
failed=0
result() {      # result OK DESCRIPTION
        n=$((n + 1))
        if [ "$1" = yes ]; then echo "ok $n - demo: $2"; else echo "not ok $n - demo: $2"; failed=1; fi
}
[ "$rc" -eq 0 ] && result yes "samples/demo.sh exits 0 ($took s)" ||
        result no "samples/demo.sh exits $rc after $took s; its last lines: $(tail -n 3 "$out" | tr '\n' ' ')"
mismatches=$(grep -E 'OUT OF RANGE|!= sum' "$out")
[ -z "$mismatches" ] && result yes "no scenario reports a mismatch" ||
        result no "a scenario reports a mismatch: $(echo "$mismatches" | tr '\n' ' ')"
# Each title must start a line of the output, in the demo's order (a title printed twice, twice).
titles=$(sed -n 's/^ *echo "\(==\|--\) \([^"$`]*\).*/\1 \2/p' samples/demo.sh | sed 's/ *$//')
sections=$(echo "$titles" | grep -c .)
missing=$(echo "$titles" | awk -v out="$out" '
        { want[++n] = $0 }
        END {
                i = 1
                while (i <= n && (getline line < out) > 0)
                        if (index(line, want[i]) == 1)
                                i++
                for (; i <= n; i++)
                        print "  " want[i]
        }')
[ -z "$missing" ] && result yes "all $sections sections of samples/demo.sh printed, in order" ||
        result no "sections missing from the demo's output (the first one and those after it):
$missing"
echo "1..$n"
exit $failed
