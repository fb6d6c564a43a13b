#!/bin/sh
# check-readme.sh: keeps README.md true to the tree. It compiles the README's ```c example against
# this build's libpmapi, runs it against a private dbus-daemon and the built pmapid, and wants exit 0
# and a page-fault count of at least the pages it touched; it checks that both commands of "The two
# commands" exist and are executable, that README.md stays within 300 lines, and that every relative
# link in README.md and docs/*.md names a file that exists. Root only (pmapid and its private bus),
# otherwise a skip (77).
#   check-readme.sh SOURCE_ROOT PMAPID LIBPMAPI_DIR [CC...]
# PMAPI_TEST_PMAPID (another build of the daemon) and PMAPI_TEST_CONFINE=1 (pmapid as its unit
# confines it) are honoured as the other integration tests honour them (tests/integration/bus-fixture.c).
set -eu
top=$1 pmapid=${PMAPI_TEST_PMAPID:-$2} libdir=$3
shift 3
[ $# -gt 0 ] || set -- cc
failed=0
fail() { echo "not ok - $*"; failed=1; }
pass() { echo "ok - $*"; }

if [ "$(id -u)" != 0 ]; then
        echo "SKIP: needs root to start a private dbus-daemon and pmapid"
        exit 77
fi
readme=$top/README.md

lines=$(wc -l < "$readme")
if [ "$lines" -le 300 ]; then pass "README.md has $lines lines (at most 300)"; else fail "README.md has $lines lines, more than 300"; fi

# The first word of each command line in the ```sh block under "## The two commands".
commands=$(awk '/^## The two commands/ { s = 1 } s && /^```sh/ { b = 1; next } b && /^```/ { exit }
                b && /^[^ #]/ { print $1 }' "$readme")
[ -n "$commands" ] || fail "no command found in the README's \"The two commands\" block"
for c in $commands; do
        if [ -f "$top/$c" ] && [ -x "$top/$c" ]; then pass "$c exists and is executable"; else fail "$c (README, \"The two commands\") is missing or not executable"; fi
done

# Relative links: [text](target), without a scheme; the target relative to the linking file.
for f in "$readme" "$top/CONTRIBUTING.md" "$top"/docs/*.md; do
        dir=$(dirname "$f")
        for target in $(grep -o '](\([^)]*\))' "$f" | sed 's/^](\(.*\))$/\1/' | sed 's/#.*//'); do
                case "$target" in
                ""|*://*|mailto:*) continue ;;
                esac
                [ -e "$dir/$target" ] || fail "${f#"$top"/} links to $target, which does not exist"
        done
done
[ "$failed" = 0 ] && pass "every relative link in README.md, CONTRIBUTING.md and docs/*.md names a file that exists"

work=$(mktemp -d /tmp/pmapi-readme.XXXXXX)
trap 'sh "$top/scripts/private-bus.sh" stop "$work/bus"; rm -rf "$work"' EXIT
awk '/^```c$/ { b = 1; next } b && /^```/ { exit } b { print }' "$readme" > "$work/example.c"
if [ ! -s "$work/example.c" ]; then
        fail "README.md has no \`\`\`c example"
        exit 1
fi
if "$@" -Wall -Wextra -Werror -I"$top/include" "$work/example.c" -L"$libdir" -lpmapi -o "$work/example"; then
        pass "the README's example compiles with $* -Wall -Wextra -Werror"
else
        fail "the README's example does not compile"
        exit 1
fi

if [ "${PMAPI_TEST_CONFINE:-}" = 1 ]; then
        set -- "$PMAPI_CONFINE_SCRIPT" "$PMAPI_CONFINE_UNIT" "$PMAPI_CONFINE_SECCOMP_EXEC" "$pmapid"
else
        set -- "$pmapid"
fi
address=$(sh "$top/scripts/private-bus.sh" start "$work/bus" "$@")
rc=0
out=$(DBUS_SYSTEM_BUS_ADDRESS=$address LD_LIBRARY_PATH=$libdir "$work/example") || rc=$?
echo "# the example printed: $out"
count=$(echo "$out" | sed -n 's/^\([0-9][0-9]*\) page faults for \([0-9][0-9]*\) pages touched$/\1/p')
pages=$(echo "$out" | sed -n 's/^\([0-9][0-9]*\) page faults for \([0-9][0-9]*\) pages touched$/\2/p')
if [ "$rc" != 0 ]; then
        fail "the README's example exited with status $rc"
        sed 's/^/# pmapid: /' "$work/bus/pmapid.log" || true
elif [ -z "$count" ] || [ -z "$pages" ] || [ "$pages" -lt 1 ]; then
        fail "the README's example did not print \"N page faults for M pages touched\""
elif [ "$count" -lt "$pages" ]; then
        fail "the README's example counted $count page faults for $pages pages touched"
else
        pass "the README's example counted $count page faults for $pages pages touched"
fi
exit "$failed"
