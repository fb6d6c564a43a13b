#!/bin/sh
# boot-test.sh BUILD_DIR: pmapid under a real systemd. Boots a minimal Debian 12 tree with
# systemd-nspawn (systemd as PID 1, its system bus, the packages' own unit), installs the packages
# tests/package/check-packages.sh built (BUILD_DIR/packages/src/*.deb), and runs inside.sh there
# (bus activation, counting as root and as a member of OnlyGroups, reload, restart through the fd
# store, stop and start, an upgrade while counting, the sandbox, purge). Prints inside.sh's TAP;
# exits 1 on any failure. The tree is made once with debootstrap (about 2 minutes) and kept in
# BUILD_DIR/systemd/tree; each boot writes to a tmpfs overlay over it (--volatile=overlay), so the
# tree stays as debootstrap left it. About 40 s a run after that. Needs root, systemd-nspawn
# (systemd-container) and debootstrap.
set -eu
build=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
here="$top/tests/systemd"
work="$top/$build/systemd"
tree="$work/tree"
debs="$top/$build/packages/src"
client="$top/$build/tests/systemd/hold-count"
# What the packages need beyond minbase, so that no install inside reaches the network.
include=systemd,systemd-sysv,dbus,libpfm4,libglib2.0-0,libbpf1,libelf1,procps,util-linux,passwd

for tool in systemd-nspawn debootstrap; do
        if ! command -v "$tool" > /dev/null; then
                echo "1..0 # SKIP $tool is not installed (tests/install-deps.sh installs it)"
                exit 0
        fi
done
if [ -d /run/systemd/system ]; then
        echo "1..0 # SKIP PID 1 is systemd here: run under a system without it (nspawn would nest)"
        exit 0
fi
for d in pmapid libpmapi1 pmapi-tools; do
        if ! ls "$debs"/${d}_*.deb > /dev/null 2>&1; then
                echo "Bail out! no $d package in $debs: run tests/package/check-packages.sh $build first"
                exit 1
        fi
done
[ -x "$client" ] || { echo "Bail out! no $client: build the tests"; exit 1; }

mkdir -p "$work"
if [ ! -e "$tree/.complete" ]; then
        rm -rf "$tree"
        start=$(date +%s)
        if ! debootstrap --variant=minbase --include="$include" bookworm "$tree" \
                http://deb.debian.org/debian > "$work/debootstrap.log" 2>&1; then
                tail -20 "$work/debootstrap.log" | sed 's/^/# /'
                echo "Bail out! debootstrap failed ($work/debootstrap.log)"
                exit 1
        fi
        # No console login or network setup to wait for; no machine id: systemd makes one.
        rm -f "$tree/etc/machine-id"
        touch "$tree/.complete"
        echo "# debootstrap made the tree in $(($(date +%s) - start)) s ($(du -sm "$tree" | cut -f1) MB)"
fi

out=$(mktemp -d)
chmod 755 "$out"
start=$(date +%s)
# PID 1's arguments are its command line in a container: systemd.wants adds the checks to the boot.
# nspawn's own seccomp filter and capability set are narrower than a host's: what pmapid's unit
# needs beyond them is added (the unit confines pmapid further inside).
timeout --kill-after=10 600 systemd-nspawn --quiet --register=no --keep-unit --volatile=overlay \
        -D "$tree" --machine=pmapi-boot-test \
        --capability=CAP_PERFMON,CAP_BPF,CAP_SYS_PTRACE,CAP_DAC_READ_SEARCH \
        --system-call-filter='perf_event_open bpf open_by_handle_at openat2 pidfd_open pidfd_getfd pidfd_send_signal' \
        --bind-ro="$debs":/mnt/debs --bind-ro="$here":/mnt/pmapi --bind="$out":/mnt/out \
        --bind-ro="$client":/usr/local/bin/hold-count \
        --bind-ro="$here/pmapi-boot-test.service":/etc/systemd/system/pmapi-boot-test.service \
        --boot -- systemd.wants=pmapi-boot-test.service > "$work/console.log" 2>&1 || true
took=$(($(date +%s) - start))
if [ ! -s "$out/result.tap" ]; then
        tail -30 "$work/console.log" | sed 's/^/# /'
        echo "Bail out! the checks did not run inside the booted tree ($work/console.log)"
        rm -rf "$out"
        exit 1
fi
cp "$out"/*.log "$out/result.tap" "$work/" 2>/dev/null || true
rm -rf "$out"
# The plan first, as TAP wants it where the checks may stop early.
grep '^1\.\.' "$work/result.tap" || echo "1..0"
grep -v '^1\.\.' "$work/result.tap"
echo "# booted, checked and powered off in $took s"
! grep -q '^not ok' "$work/result.tap" && grep -q '^1\.\.[1-9]' "$work/result.tap"
