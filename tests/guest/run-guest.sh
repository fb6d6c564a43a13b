#!/bin/sh
# Boots a kernel folder of make-kernel.sh under QEMU and runs a command in it, as root, in a view of
# this machine's files (read-only over 9p, writes kept in the guest's memory), in the current
# directory's path. Waits at most TIMEOUT seconds: a guest that does not boot or hangs fails with its
# console log, never hangs the caller. The command's output is the guest's console; its exit status
# is this script's.
#   tests/guest/run-guest.sh KERNEL_DIR ARCH TIMEOUT COMMAND...
# ARCH amd64 runs under TCG as a -cpu max (PMAPI_GUEST_CPU names another model), its two vCPUs in
# one host thread (PMAPI_GUEST_ACCEL names another -accel): with a thread each, the 5.10 and 6.1
# guests panicked or hung in each of 4 runs of the default set here, on code the kernel patches at
# run time (docs/kernels.md); in one thread, in none of 11. arm64 is a Cortex-A57 under TCG with
# -icount shift=0 (one thread too), so that its PMU counts instructions and cycles exactly.
set -eu
kdir=$1 arch=$2 limit=$3
shift 3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%s\n' "cd '$PWD'" > "$out/command.sh"
for a in "$@"; do
        printf "'%s' " "$(printf '%s' "$a" | sed "s/'/'\\\\''/g")" >> "$out/command.sh"
done
echo >> "$out/command.sh"
# The caller's PATH and the variables tests read, nothing else of its environment.
env | grep -E '^(PATH|PMAPI_[A-Z_]*|MESON_[A-Z_]*|LANG)=' | sed "s/'/'\\\\''/g; s/=/='/; s/\$/'/; s/^/export /" \
        > "$out/environment"
# PMAPI_GUEST_ROOT: another root than this machine's (an arm64 userland, make-sysroot.sh); the
# current directory then comes as its own share, at its path.
root=${PMAPI_GUEST_ROOT:-/}
project=
if [ "$root" != / ]; then
        printf '%s\n' "$PWD" > "$out/project-path"
        project="-virtfs local,path=$PWD,mount_tag=project,security_model=none,readonly=on,multidevs=remap"
fi
common="-m 2048 -smp 2 -no-reboot -display none -monitor none -serial file:$out/console.log
 -virtfs local,path=$root,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap $project
 -virtfs local,path=$out,mount_tag=out,security_model=none
 -kernel $kdir/vmlinuz -initrd $kdir/initrd.img"
case $arch in
amd64)
        set -- qemu-system-x86_64 -accel "${PMAPI_GUEST_ACCEL:-tcg,thread=single}" -cpu "${PMAPI_GUEST_CPU:-max}" $common \
                -append "console=ttyS0 panic=-1 rdinit=/init"
        ;;
arm64)
        set -- qemu-system-aarch64 -M virt -cpu cortex-a57 -icount shift=0 $common \
                -append "console=ttyAMA0 panic=-1 rdinit=/init"
        ;;
*)
        echo "run-guest: unknown architecture '$arch'" >&2
        exit 2
        ;;
esac
start=$(date +%s)
timeout --kill-after=10 "$limit" "$@" || true
status=$(cat "$out/status" 2>/dev/null || echo none)
cat "$out/console.log"
echo "# guest $(cat "$kdir/release") on $arch: status $status after $(($(date +%s) - start)) s"
[ "$status" = 0 ]
