#!/bin/sh
# meson's install script: refresh the dynamic linker's cache, since meson 1.0 does not, so that
# programs find the newly installed libpmapi.so.1 under /usr/local/lib/<triplet> at once. Not for a
# staged install (DESTDIR), whose files are not where they will run.
set -eu
if [ -z "${DESTDIR:-}" ] && [ "$(id -u)" = 0 ] && command -v ldconfig >/dev/null 2>&1; then
        ldconfig
fi
