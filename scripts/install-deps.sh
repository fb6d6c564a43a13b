#!/bin/sh
# Installs, on Debian 12 and as root, what one job of pmapi needs, if anything of it is missing:
#   scripts/install-deps.sh demo   what samples/demo.sh needs: the build, a private bus, gdb, PCP
#   scripts/install-deps.sh test   that and what tests/run.sh adds (the default): sanitizers and
#                                  libFuzzer, QEMU guests, packaging, a booted systemd, Prometheus
set -eu
what=${1:-test}
# The build (BPF inheritance needs clang and libbpf; the tests' helper programs, which the demo runs
# too, need cmocka and libseccomp), a private system bus (dbus-daemon; busctl comes with systemd),
# setpriv and taskset (util-linux), gdb for scenario S2.
demo_pkgs="meson ninja-build gcc pkg-config python3 libsystemd-dev libglib2.0-dev libpfm4-dev libcmocka-dev
      dbus-daemon dbus-bin systemd util-linux libjson-glib-dev gdb libseccomp-dev clang libbpf-dev
      libsmartcols-dev"
# Performance Co-Pilot: pmdapmapi is built against it, the demo shows a group through pmcd and pminfo.
demo_services="pcp libpcp-pmda3-dev libpcp3-dev"
# The tests add: perf (the cross-checks), clang's sanitizer and fuzzer runtimes, make, the Debian
# packaging tools (tests/package/), man-db (the man pages rendered as lintian does), Prometheus
# with curl (the scrape test)...
test_pkgs="linux-perf libclang-rt-14-dev make debhelper lintian fakeroot dpkg-dev man-db"
test_services="prometheus curl"
# ...and, without recommends, QEMU and what prepares a Debian kernel to boot in it (tests/guest/: the
# suite on Debian's own 5.10, 6.1 and 6.12 kernels; an arm64 Cortex-A57 with its PMU, and the cross
# compiler for it), and what boots a Debian 12 tree with systemd as PID 1 (tests/systemd/).
guests="qemu-system-x86 qemu-system-arm gcc-aarch64-linux-gnu kmod cpio xz-utils systemd-container debootstrap"
case "$what" in
demo) pkgs=$demo_pkgs services=$demo_services guests="" ;;
test) pkgs="$demo_pkgs $test_pkgs" services="$demo_services $test_services" ;;
*) echo "usage: $0 [demo|test]" >&2; exit 2 ;;
esac

missing_of() {
        m=""
        for p in "$@"; do
                dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || m="$m $p"
        done
        echo "$m"
}

missing=$(missing_of $pkgs)
missing_guests=$(missing_of $guests)
missing_services=$(missing_of $services)
[ -n "$missing$missing_guests$missing_services" ] || exit 0
echo "Installing for the $what:$missing$missing_guests$missing_services"
apt-get update -qq
if [ -n "$missing" ]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi
if [ -n "$missing_guests" ]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing_guests >/dev/null
fi
[ -n "$missing_services" ] || exit 0

# pcp's and prometheus' maintainer scripts start their daemons with systemctl, which fails where
# PID 1 is not systemd (containers, this project's CI) and leaves dpkg half-configured. There, for
# this install only, a systemctl that does nothing and a policy-rc.d that refuses every start
# stand in: the packages configure, and no daemon of theirs starts (the tests run their own).
shim=""
policy_added=no
cleanup() {
        [ -z "$shim" ] || rm -rf "$shim"
        [ "$policy_added" = no ] || rm -f /usr/sbin/policy-rc.d
}
trap cleanup EXIT
# dash runs no EXIT trap for a signal's death: a stray refusing policy-rc.d would block every later
# service start on the machine.
trap 'exit 130' INT TERM HUP
if [ ! -d /run/systemd/system ]; then
        shim=$(mktemp -d)
        printf '#!/bin/sh\nexit 0\n' > "$shim/systemctl"
        chmod 755 "$shim/systemctl"
        if [ ! -e /usr/sbin/policy-rc.d ]; then
                printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
                chmod 755 /usr/sbin/policy-rc.d
                policy_added=yes
        fi
fi
# apt runs dpkg with a PATH of its own (DPkg::Path), so the stand-in goes there.
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        -o DPkg::Path="${shim:+$shim:}/usr/sbin:/usr/bin:/sbin:/bin" $missing_services >/dev/null
