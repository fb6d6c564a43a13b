#!/bin/sh
# Prepares a Debian kernel to boot under QEMU: downloads linux-image-<version>-<arch> of a Debian suite
# with a private apt configuration (the machine's own apt sources and state are left alone), and
# busybox-static of the same architecture, then builds a small initramfs that loads the virtio, 9p
# and overlay modules and runs tests/guest/init.sh. Everything comes from Debian's packages.
#   tests/guest/make-kernel.sh SUITE ARCH CACHE
# SUITE: bullseye, bookworm, bookworm-backports or trixie; ARCH: amd64 or arm64. Prints the folder
# that holds vmlinuz and initrd.img (CACHE/SUITE-ARCH); a second call finds it there and downloads
# nothing, unless init.sh changed since.
set -eu
suite=$1 arch=$2 cache=$3
here=$(cd "$(dirname "$0")" && pwd)
out="$cache/$suite-$arch"
if [ -s "$out/vmlinuz" ] && [ -s "$out/initrd.img" ] && [ -s "$out/release" ] && cmp -s "$here/init.sh" "$out/init.sh"; then
        echo "$out"
        exit 0
fi
mkdir -p "$out"
. "$here/private-apt.sh"
# The metapackage of the suite names the kernel (linux-image-amd64 -> linux-image-6.1.0-56-amd64).
case $suite in
bullseye) release_of=bullseye-security ;;
bookworm) release_of=bookworm-security ;;
*) release_of=$suite ;;
esac
meta="linux-image-$arch"
version=$(apt-cache $apt_opts madison "$meta:$arch" | awk -v r="$release_of" '$0 ~ " " r "/main" { print $3; exit }')
[ -n "$version" ] || version=$(apt-cache $apt_opts madison "$meta:$arch" | awk -v r="$suite" '$0 ~ " " r "/main" { print $3; exit }')
[ -n "$version" ] || { echo "make-kernel: no $meta in $suite" >&2; exit 1; }
image=$(apt-cache $apt_opts depends "$meta:$arch=$version" | awk '/Depends: linux-image-[0-9]/ { sub(":.*", "", $2); print $2; exit }')
[ -n "$image" ] || { echo "make-kernel: $meta $version names no kernel" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get $apt_opts -qq download "$image:$arch" "busybox-static:$arch" >&2)
dpkg-deb -x "$work/$image"_*.deb "$work/root"
dpkg-deb -x "$work"/busybox-static_*.deb "$work/busybox"
# trixie's packages put the modules under /usr (merged /usr): give depmod the usual layout.
if [ ! -d "$work/root/lib/modules" ] && [ -d "$work/root/usr/lib/modules" ]; then
        mkdir -p "$work/root/lib"
        mv "$work/root/usr/lib/modules" "$work/root/lib/modules"
fi
kver=$(ls "$work/root/lib/modules")
/sbin/depmod -b "$work/root" "$kver"

# The initramfs: busybox, the modules the guest needs to reach the host's files, in load order.
ird="$work/initramfs"
mkdir -p "$ird/bin" "$ird/modules" "$ird/dev" "$ird/proc" "$ird/sys" "$ird/lower" "$ird/upper" "$ird/root"
for b in "$work/busybox/bin/busybox" "$work/busybox/usr/bin/busybox"; do
        [ -x "$b" ] && cp "$b" "$ird/bin/busybox" && break
done
[ -x "$ird/bin/busybox" ] || { echo "make-kernel: no busybox in busybox-static" >&2; exit 1; }
cp "$here/init.sh" "$ird/init"
chmod 755 "$ird/init"
: > "$ird/modules/order"
add_module() {          # $1: a module path relative to lib/modules/KVER, with its dependencies first
        grep -q "^$1\$" "$ird/modules/order" && return 0
        for dep in $(awk -F: -v m="$1" '$1 == m { print $2 }' "$work/root/lib/modules/$kver/modules.dep"); do
                add_module "$dep"
        done
        name=$(basename "$1")
        case $name in
        *.xz) xz -dc "$work/root/lib/modules/$kver/$1" > "$ird/modules/${name%.xz}"; name=${name%.xz} ;;
        *.zst) zstd -qdc "$work/root/lib/modules/$kver/$1" > "$ird/modules/${name%.zst}"; name=${name%.zst} ;;
        *) cp "$work/root/lib/modules/$kver/$1" "$ird/modules/$name" ;;
        esac
        echo "$1" >> "$ird/modules/order"
        echo "$name" >> "$ird/modules/load"
}
: > "$ird/modules/load"
for m in virtio_pci 9pnet_virtio 9p overlay virtio_mmio; do
        path=$(awk -F: -v m="$m" '{ n = $1; sub(".*/", "", n); sub("\\.ko.*", "", n); if (n == m) { print $1; exit } }' \
               "$work/root/lib/modules/$kver/modules.dep")
        [ -n "$path" ] && add_module "$path"
done
(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) > "$out/initrd.img"
cp "$work/root/boot/vmlinuz-$kver" "$out/vmlinuz"
echo "$kver $version" > "$out/release"
cp "$here/init.sh" "$out/init.sh"      # the initramfs is remade when init.sh changes
echo "$out"
