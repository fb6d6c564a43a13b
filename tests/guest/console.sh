# Sourced by the guest scripts: what they read from a guest's console (run-guest.sh's output).
# console_take OUT LOG: strips the serial console's CRs, appends the guest's meson log to LOG, and
# sets $passed (meson tests that passed), $failed (the names of those that failed or timed out),
# $clock (the seconds the guest's clock ran) and $stopped (why run-guest.sh stopped the guest, or
# nothing).
console_take() {
        tr -d '\r' < "$1" > "$1.txt" && mv "$1.txt" "$1"
        sed -n '/^=== guest testlog$/,/^=== end$/p' "$1" | sed '1d;$d' >> "$2"
        passed=$(grep -cE '^ *[0-9]+/[0-9]+ .* OK ' "$1")
        failed=$(grep -E '^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT)' "$1" | awk '{ print $4 }' | sort -u | tr '\n' ' ')
        clock=$(sed -n 's/^# guest .*, \([0-9]*\) s of its clock$/\1/p' "$1" | tail -n 1)
        stopped=$(sed -n 's/^# guest stopped: //p' "$1" | tail -n 1)
}

# console_why OUT: the lines of a failed guest's console that say why, indented as TAP comments.
console_why() {
        grep -E '^not ok|error:|check failed|expected|soft lockup|Kernel panic|^guest:' "$1" | head -n 40 |
                sed 's/^/#   /'
}

# guest_limits BUILD TEST...: sets $stall and $cap, run-guest.sh's limits in seconds of the guest's
# clock, from the meson tests the guest runs (names, or --suite NAME) out of BUILD. A test runs at
# most its timeout times PMAPI_GUEST_TIMEOUT_MULTIPLIER (meson's --timeout-multiplier in the guest,
# default 1) before meson stops it and goes on; so a guest that finishes no test for the longest of
# them, plus 60 s, is stuck (PMAPI_GUEST_STALL: another stall limit), and one still running after
# all of them together, plus 600 s for booting and the stages after the tests, loops. Without
# timeouts (a multiplier of 0 or less), 3600 s and no cap.
guest_limits() {
        # shellcheck disable=SC2046
        set -- $(meson introspect --tests "$1" 2>/dev/null | python3 -c '
import json, sys
m, args = float(sys.argv[1] or 1), sys.argv[3:]
suites = {args[i + 1] for i, a in enumerate(args[:-1]) if a == "--suite"}
chosen = [t["timeout"] for t in json.load(sys.stdin)
          if t["name"] in args or any(s.split(":")[-1] in suites for s in t["suite"])]
if m <= 0 or not chosen or min(chosen) <= 0:
        print(3600, 10 ** 9)
else:
        print(int(max(chosen) * m) + 60, int(sum(chosen) * m) + 600)
' "${PMAPI_GUEST_TIMEOUT_MULTIPLIER:-}" "$@" 2>/dev/null)
        stall=${PMAPI_GUEST_STALL:-${1:-3600}} cap=${2:-1000000000}
}
