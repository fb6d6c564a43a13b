#!/bin/sh
# check-man-pages.sh SOURCE_ROOT BUILD_ROOT: every man page renders without a warning, as lintian
# renders it (its groff-message check: man --warnings, C.UTF-8, 120 columns) and as a reader's
# 80-column terminal does. The package stage fails on any lintian warning, but only after a build
# of all the packages; this finds the same warnings in seconds. Both widths matter: groff 1.22's
# tbl warns "table text block will not fit on one page" at one width and not another, as text
# before a table moves. A page that is only a .so link is not rendered (lintian does not either):
# the page it names must be in the tree.
# Prints TAP; skips (exit 77) where man-db is not installed.
set -u
src=$1 build=$2
command -v man > /dev/null || { echo "1..0 # SKIP man (man-db) is not installed"; exit 77; }
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
for page in "$src"/man/*.[1-8] "$build"/man/*.[1-8]; do
        [ -f "$page" ] || continue
        section=${page##*.}
        mkdir -p "$tree/man$section"
        cp "$page" "$tree/man$section/"
done
cd "$tree" || exit 1
n=0 failed=0
for page in man?/*; do
        if head -n 1 "$page" | grep -q '^\.so '; then
                n=$((n + 1))
                target=$(head -n 1 "$page" | cut -d' ' -f2)
                if [ -f "$target" ]; then
                        echo "ok $n - $page links to $target"
                else
                        failed=$((failed + 1))
                        echo "not ok $n - $page links to $target, which is not a page of the tree"
                fi
                continue
        fi
        for width in 80 120; do
                n=$((n + 1))
                # lintian clears the environment but for PATH and TMPDIR, as here.
                said=$(env -i PATH="$PATH" LC_ALL=C.UTF-8 MANROFFSEQ= MANWIDTH=$width \
                        man --warnings -E UTF-8 -l -Tutf8 -Z "$page" 2>&1 > /dev/null)
                if [ -z "$said" ]; then
                        echo "ok $n - $page at $width columns"
                else
                        failed=$((failed + 1))
                        echo "not ok $n - $page at $width columns"
                        printf '%s\n' "$said" | sed 's/^/# /'
                fi
        done
done
echo "1..$n"
[ "$failed" = 0 ]
