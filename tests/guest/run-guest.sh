#!/bin/sh
# Boots a kernel folder of make-kernel.sh under QEMU and runs a command in it, as root, in a view of
# this machine's files (read-only over 9p, writes kept in the guest's memory), in the current
# directory's path. The command's output is the guest's console; its exit status is this script's.
#   tests/guest/run-guest.sh KERNEL_DIR ARCH STALL CAP COMMAND...
# A guest runs as long as it makes progress, however slow this machine: one that does not boot or
# hangs is stopped and fails with its console log and a line that says why ("# guest stopped: ..."),
# never hangs the caller. Stopped when
# - booting, until init.sh runs the command: no console line for 900 s here, or the kernel's clock
#   (its time stamps) past 900 s;
# - in a stage of the command (what it writes to /run/guest-out/stage: "NAME [STALL]", in-guest.sh):
#   no progress (a new stage, its files in /run/guest-out growing: meson's output) for STALL seconds
#   of the guest's clock (the stage's own STALL where it names one), the clock meson's test timeouts
#   count on (written to /run/guest-out/clock; under -icount many times slower than this machine's
#   while the guest computes); or that clock standing still for 900 s here (QEMU or the kernel stuck);
# - at CAP seconds of the guest's clock (its tests' timeouts together, which no run that progresses
#   reaches);
# - not powered off 900 s after the command ended;
# - PMAPI_GUEST_TIMEOUT, where set: at that many seconds here, whatever it does.
# ARCH amd64 runs under TCG as a -cpu max (PMAPI_GUEST_CPU names another model), its two vCPUs in
# one host thread (PMAPI_GUEST_ACCEL names another -accel): with a thread each, the 5.10 and 6.1
# guests panicked or hung in each of 4 runs of the default set here, on code the kernel patches at
# run time (docs/kernels.md); in one thread, in none of 11. arm64 is a Cortex-A57 under TCG with
# -icount shift=0 (one thread too), so that its PMU counts instructions and cycles exactly.
set -eu
kdir=$1 arch=$2 stall=$3 cap=$4
shift 4
out=$(mktemp -d)
qemu=
# QEMU runs in the background, where a ^C does not reach it: stopped on the way out.
trap '[ -z "$qemu" ] || kill "$qemu" 2>/dev/null; rm -rf "$out"' EXIT
trap 'exit 1' HUP INT TERM
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
# The guest's clock in whole seconds: what the command last wrote to /run/guest-out/clock, or before,
# the kernel's last time stamp on the console.
guest_clock() {
        if [ -s "$out/clock" ]; then
                cut -d. -f1 "$out/clock"
        else
                sed -n 's/^\[ *\([0-9]*\)\..*/\1/p' "$out/console.log" | tail -n 1
        fi
}
# What changes when the command progresses: its stage, and its files in the shared folder by size.
progress() {
        cat "$out/stage" 2>/dev/null || true
        ls -ln "$out" | awk '$NF != "console.log" && $NF !~ /^clock/ { print $5, $NF }'
}
# The seconds here within which a guest gives a sign of life, over 3 times the most seen: a console
# line while it boots (about 220 s of silence under a load of 30 on 2 CPUs), a tick of its clock in
# the command (85 s apart, QEMU on one CPU under a load of 10 to 60).
alive=900
start=$(date +%s)
"$@" &
qemu=$!
stage=boot seen='' since=$start clock=0 gsince=0 ticked=$start why='' own=''
while sleep 2 && kill -0 "$qemu" 2>/dev/null; do
        now=$(date +%s)
        c=$(guest_clock 2>/dev/null) || c=
        if [ -n "$c" ] && [ "$c" != "$clock" ]; then
                clock=$c ticked=$now
        fi
        # The kernel's time stamps stop once it has booted: the command's clock counts from its first.
        if [ -z "$own" ] && [ -s "$out/clock" ]; then
                own=yes gsince=$clock
        fi
        case $stage in
        boot) grep -q '^guest: .* up, running the command' "$out/console.log" && stage='command' ;;
        command) grep -q '^guest: done' "$out/console.log" && stage='power-off' ;;
        esac
        if [ "$stage" = command ]; then
                name=command limit=
                [ -s "$out/stage" ] && read -r name limit < "$out/stage"
                limit=${limit:-$stall}
                state="$stage $(progress)"
                after=$(grep -hE '^ *[0-9]+/[0-9]+ ' "$out/meson.txt" 2>/dev/null | tail -n 1)
        else
                state="$stage $(cat "$out/console.log" 2>/dev/null | wc -c)"
                after=$(grep -av '^=== guest watch\|^pid \|^    ' "$out/console.log" 2>/dev/null | tail -n 1)
        fi
        if [ "$state" != "$seen" ]; then
                seen=$state since=$now gsince=$clock
        fi
        after=$(printf '%s' "$after" | tr -d '\r' | tr -s ' ' | sed 's/^ //')
        after=${after:+, after \"$after\"}
        if [ "$stage" = command ] && [ $((clock - gsince)) -ge "$limit" ]; then
                why="no progress in $name for $((clock - gsince)) s of the guest's clock ($((now - since)) s here; limit $limit s)$after"
        elif [ "$stage" = command ] && [ $((now - ticked)) -ge $alive ]; then
                why="the guest's clock stood still at $clock s for $((now - ticked)) s here (limit $alive s), in $name$after"
        elif [ "$stage" = boot ] && [ $((now - since)) -ge $alive ]; then
                why="no console line for $((now - since)) s here while it booted (limit $alive s)$after"
        elif [ "$stage" = boot ] && [ "$clock" -ge $alive ]; then
                why="still booting at $clock s of the guest's clock (limit $alive s)$after"
        elif [ "$stage" = power-off ] && [ $((now - since)) -ge $alive ]; then
                why="not powered off $((now - since)) s here after the command ended (limit $alive s)"
        elif [ "$clock" -ge "$cap" ]; then
                why="still running in $name at $clock s of the guest's clock (limit $cap s: its tests' timeouts and the stages' limits together)$after"
        elif [ -n "${PMAPI_GUEST_TIMEOUT:-}" ] && [ $((now - start)) -ge "$PMAPI_GUEST_TIMEOUT" ]; then
                why="still running in $name after $((now - start)) s here (PMAPI_GUEST_TIMEOUT=$PMAPI_GUEST_TIMEOUT)$after"
        fi
        [ -z "$why" ] || break
done
if [ -n "$why" ]; then
        kill "$qemu" 2>/dev/null
        n=0
        while kill -0 "$qemu" 2>/dev/null && [ $n -lt 10 ]; do
                sleep 1
                n=$((n + 1))
        done
        kill -9 "$qemu" 2>/dev/null || true
fi
wait "$qemu" || true
qemu=
status=$(cat "$out/status" 2>/dev/null || echo none)
cat "$out/console.log"
if [ -n "$why" ]; then
        # The tests meson finished before, which the guest had no time to print.
        grep -q '^=== guest testlog' "$out/console.log" || grep -hE '^ *[0-9]+/[0-9]+ ' "$out/meson.txt" 2>/dev/null || true
        echo "# guest stopped: $why"
fi
echo "# guest $(cat "$kdir/release") on $arch: status $status after $(($(date +%s) - start)) s, $clock s of its clock"
[ "$status" = 0 ]
