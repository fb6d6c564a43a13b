# Sourced by the guest scripts: what they read from a guest's console (run-guest.sh's output).
# console_take OUT LOG: strips the serial console's CRs, appends the guest's meson log to LOG, and
# sets $passed (meson tests that passed) and $failed (the names of those that failed or timed out).
console_take() {
        tr -d '\r' < "$1" > "$1.txt" && mv "$1.txt" "$1"
        sed -n '/^=== guest testlog$/,/^=== end$/p' "$1" | sed '1d;$d' >> "$2"
        passed=$(grep -cE '^ *[0-9]+/[0-9]+ .* OK ' "$1")
        failed=$(grep -E '^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT)' "$1" | awk '{ print $4 }' | sort -u | tr '\n' ' ')
}

# console_why OUT: the lines of a failed guest's console that say why, indented as TAP comments.
console_why() {
        grep -E '^not ok|error:|check failed|expected|soft lockup|Kernel panic|^guest:' "$1" | head -n 40 |
                sed 's/^/#   /'
}
