#!/bin/sh
# Installs what pmapi needs to build and test on Debian 12, if anything is missing. Needs root.
set -eu
pkgs="meson ninja-build gcc pkg-config libsystemd-dev libglib2.0-dev libpfm4-dev libcmocka-dev
      dbus-daemon dbus-bin systemd linux-perf util-linux libjson-glib-dev gdb
      libseccomp-dev clang libclang-rt-14-dev libsmartcols-dev"
missing=""
for p in $pkgs; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
        echo "Installing:$missing"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi
