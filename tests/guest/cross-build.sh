#!/bin/sh
# Cross-compiles the project for arm64 into BUILD (a folder inside the project, so that the arm64
# guest sees it at the same path) against SYSROOT (make-sysroot.sh), tests included, PCP left out
# (the sysroot has no libpcp). A second call only rebuilds what changed.
#   tests/guest/cross-build.sh SYSROOT BUILD
set -eu
sysroot=$1 build=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$build"
printf "[constants]\nsysroot = '%s'\n" "$sysroot" > "$build.sysroot.txt"
if [ ! -f "$build/build.ninja" ]; then
        meson setup "$build" "$top" --cross-file "$build.sysroot.txt" --cross-file "$top/tests/guest/arm64-cross.txt" \
                -Dwerror=true -Dpcp=disabled -Dman=disabled >&2
fi
ninja -C "$build" >&2
