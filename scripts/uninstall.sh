#!/bin/sh
# Removes what `meson install -C BUILD` installed, then what meson's uninstall leaves: the
# directories of pmapi's own (sysconfdir/pmapi, libdir/pmapi) once empty, and the dynamic
# linker's cache entry for libpmapi. Needs root for a system-wide install.
#   scripts/uninstall.sh BUILD
set -eu
build=$1
dirs=$(meson introspect "$build" --installed |
       python3 -c 'import json, os, sys
print("\n".join(sorted({os.path.dirname(p) for p in json.load(sys.stdin).values() if os.path.basename(os.path.dirname(p)) == "pmapi"})))')
ninja -C "$build" uninstall >/dev/null
for d in $dirs; do
        rmdir "$d" 2>/dev/null || true         # kept if someone put a file of their own there
done
if [ -z "${DESTDIR:-}" ] && [ "$(id -u)" = 0 ] && command -v ldconfig >/dev/null 2>&1; then
        ldconfig
fi
