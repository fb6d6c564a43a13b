#!/bin/sh
# Prepares a Debian bookworm arm64 userland from Debian's packages, unpacked (dpkg-deb -x, no
# maintainer scripts run, nothing installed on this machine): the sysroot the project cross-compiles
# against (tests/guest/arm64-cross.txt) and the root an arm64 guest boots into (run-guest.sh). It
# holds the project's build dependencies, dbus-daemon, meson and python3 to run the tests, and a
# shell's worth of tools. Packages come through a private apt configuration (private-apt.sh).
#   tests/guest/make-sysroot.sh CACHE
# Prints the sysroot's folder (CACHE/sysroot-bookworm-arm64); a second call finds it there and
# downloads nothing, unless this script changed since.
set -eu
cache=$1
here=$(cd "$(dirname "$0")" && pwd)
out="$cache/sysroot-bookworm-arm64"
if [ -s "$out/.made-by" ] && cmp -s "$0" "$out/.made-by"; then
        echo "$out"
        exit 0
fi
apt_name=apt-bookworm-arm64
apt_sources="deb [arch=arm64] http://deb.debian.org/debian bookworm main
deb [arch=arm64] http://deb.debian.org/debian-security bookworm-security main"
. "$here/private-apt.sh"
# What the project links against (meson.build), what its tests run (a private dbus-daemon, meson
# test, shell scripts; make, Python and a static busybox for the commands pmcount counts), and what
# the guest's init needs to hand over to them.
packages="libc6-dev libsystemd-dev libglib2.0-dev libpfm4-dev libcmocka-dev libsmartcols-dev libjson-glib-dev libbpf-dev
 libseccomp-dev dbus-daemon meson python3 dash bash coreutils grep sed gawk findutils procps util-linux
 make busybox-static
 libc-bin"
# The closure of those packages as if nothing were installed, in the guest's own architecture.
# shellcheck disable=SC2086
apt-get $apt_opts -o APT::Architecture=arm64 -o APT::Architectures::=arm64 -o APT::Install-Recommends=0 \
        -qq -y --download-only install $packages >&2
rm -rf "$out.new"
mkdir -p "$out.new"
# dpkg-deb names the files a package holds; arm64 and all packages of the closure are in archives/.
for deb in "$apt_dir"/archives/*_arm64.deb "$apt_dir"/archives/*_all.deb; do
        [ -e "$deb" ] || continue
        dpkg-deb -x "$deb" "$out.new"
done
# Merged /usr as Debian installs it (usrmerge): /bin, /sbin and /lib are links into /usr.
for d in bin sbin lib; do
        if [ -d "$out.new/$d" ] && [ ! -L "$out.new/$d" ]; then
                mkdir -p "$out.new/usr/$d"
                cp -a "$out.new/$d/." "$out.new/usr/$d/"
                rm -rf "$out.new/${d:?}"
        fi
        ln -sfn "usr/$d" "$out.new/$d"
done
# What maintainer scripts would have made: the dynamic loader's cache is optional; /etc/passwd and
# /etc/group must name what Debian's base-passwd gives that the tests use: root, daemon, staff,
# users, nobody, and messagebus (dbus-daemon drops to it only on the system bus).
mkdir -p "$out.new/etc" "$out.new/tmp" "$out.new/run" "$out.new/var/tmp" "$out.new/proc" "$out.new/sys" \
        "$out.new/dev"
printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin' \
        'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin' \
        'messagebus:x:100:101::/nonexistent:/usr/sbin/nologin' > "$out.new/etc/passwd"
printf '%s\n' 'root:x:0:' 'daemon:x:1:' 'staff:x:50:' 'users:x:100:' 'messagebus:x:101:' 'nogroup:x:65534:' > "$out.new/etc/group"
ln -sfn dash "$out.new/usr/bin/sh"
chmod 1777 "$out.new/tmp" "$out.new/var/tmp"
rm -rf "$out"
mv "$out.new" "$out"
cp "$0" "$out/.made-by"
echo "$out"
