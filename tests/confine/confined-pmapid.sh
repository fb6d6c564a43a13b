#!/bin/sh
# confined-pmapid.sh: runs pmapid the way pmapid.service confines it, as far as a machine whose PID 1
# is not systemd can show it, so that the integration suite checks the daemon users really get.
# Read from the unit at every start (so the two cannot drift):
#   CapabilityBoundingSet=, AmbientCapabilities=, NoNewPrivileges=yes   -> setpriv (bounding,
#       inheritable and ambient sets; root keeps only the bounding set across exec)
#   SystemCallFilter= (groups expanded by systemd-analyze), SystemCallErrorNumber=EPERM,
#   SystemCallArchitectures=native, RestrictAddressFamilies=, MemoryDenyWriteExecute=yes -> seccomp-exec
#   PrivateNetwork=yes   -> a network namespace of its own
#   ProtectSystem=strict -> every mount read-only but /dev, /proc, /sys (and /tmp, see below)
#   ProtectHome=yes      -> /home, /root and /run/user empty and unreadable
#   ProtectKernelTunables=yes, ProtectControlGroups=yes -> /proc/sys and /sys read-only, with
#       their submounts (the cgroup file systems)
#   LimitNOFILE=         -> where the hard limit may be raised here
# Not shown here (pmapid(8) says so): PrivateTmp (the tests' private bus lives in /tmp),
# PrivateDevices, ProtectKernelModules, ProtectKernelLogs, ProtectClock, ProtectHostname,
# RestrictNamespaces, RestrictRealtime, LockPersonality, Type=, ExecReload= and Restart=
# (tests/systemd/ runs the unit itself under systemd).
# Usage: confined-pmapid.sh UNIT SECCOMP_EXEC PMAPID [ARG...]   (as root)
set -eu

if [ "${1:-}" = --inside ]; then
        shift
        inside=yes
fi
unit=$1 seccomp_exec=$2 pmapid=$3
shift 3

setting() { sed -n "s/^$1=//p" "$unit" | tail -n 1; }
fail() { echo "confined-pmapid: $*" >&2; exit 2; }

if [ -z "${inside:-}" ]; then
        [ "$(setting PrivateNetwork)" = yes ] || fail "$unit no longer sets PrivateNetwork=yes: update this script"
        exec unshare --mount --net --propagation private "$0" --inside "$unit" "$seccomp_exec" "$pmapid" "$@"
fi

# ProtectHome=yes, unless what runs here lives there (a clone under /root): it could not start.
for d in /home /root /run/user; do
        for p in "$unit" "$seccomp_exec" "$pmapid"; do
                case $p in "$d"/*) continue 2 ;; esac
        done
        [ -d "$d" ] && mount -t tmpfs -o ro,mode=000 tmpfs "$d"
done
# ProtectSystem=strict: the API file systems stay writable, as under systemd; /tmp too, since the
# unit's PrivateTmp would give pmapid a /tmp of its own and the tests' bus socket is in the real one.
[ "$(setting ProtectSystem)" = strict ] || fail "$unit no longer sets ProtectSystem=strict: update this script"
awk '{ print $5 }' /proc/self/mountinfo | sort -u | while read -r m; do
        case $m in
        /dev|/dev/*|/proc|/proc/*|/sys|/sys/*|/tmp|/tmp/*|/home|/root|/run/user|*\\*) ;;
        *) mount -o remount,bind,ro "$m" ;;
        esac
done

# ProtectKernelTunables=yes: /proc/sys and /sys read-only with what is mounted below them, as
# systemd does it (pmapid reads perf_event_paranoid and the online CPUs there, and the cgroup v2
# tree under /sys/fs/cgroup, which ProtectControlGroups=yes leaves read-only too).
[ "$(setting ProtectKernelTunables)" = yes ] || fail "$unit no longer sets ProtectKernelTunables=yes: update this script"
[ "$(setting ProtectControlGroups)" = yes ] || fail "$unit no longer sets ProtectControlGroups=yes: update this script"
for m in /proc/sys /sys; do
        mount --rbind "$m" "$m"
        awk -v m="$m" '($5 == m || index($5, m "/") == 1) && index($5, "\\") == 0 { print $5 }' /proc/self/mountinfo | sort -u |
                while read -r p; do mount -o remount,bind,ro "$p"; done
done

nofile=$(setting LimitNOFILE)
[ -n "$nofile" ] && prlimit --pid $$ --nofile="$nofile:$nofile" 2>/dev/null || true

[ "$(setting NoNewPrivileges)" = yes ] || fail "$unit no longer sets NoNewPrivileges=yes: update this script"
[ "$(setting SystemCallErrorNumber)" = EPERM ] || fail "$unit: SystemCallErrorNumber is not EPERM"
[ "$(setting SystemCallArchitectures)" = native ] || fail "$unit: SystemCallArchitectures is not native"
[ "$(setting MemoryDenyWriteExecute)" = yes ] || fail "$unit: MemoryDenyWriteExecute is not yes"

# CAP_PERFMON CAP_SYS_PTRACE -> -all,+perfmon,+sys_ptrace
caps() { printf -- '-all'; for c in $1; do printf ',+%s' "$(echo "${c#CAP_}" | tr 'A-Z' 'a-z')"; done; }
# @system-service perf_event_open -> one syscall name a line; groups nest.
expand() {
        for item in "$@"; do
                case $item in
                "~"*) fail "deny-lists (~) are not supported" ;;
                @*) expand $(systemd-analyze syscall-filter "$item" | sed -n 's/^    \([-@a-z0-9_]*\)$/\1/p') ;;
                *) echo "$item" ;;
                esac
        done
}
syscalls=$(expand $(setting SystemCallFilter) | sort -u)
[ -n "$syscalls" ] || fail "systemd-analyze gave no system calls for '$(setting SystemCallFilter)'"
families=$(setting RestrictAddressFamilies | tr ' ' ',')

exec setpriv --bounding-set="$(caps "$(setting CapabilityBoundingSet)")" \
        --inh-caps="$(caps "$(setting AmbientCapabilities)")" \
        --ambient-caps="$(caps "$(setting AmbientCapabilities)")" \
        --no-new-privs -- "$seccomp_exec" - "$families" -- "$pmapid" "$@" <<EOF
$syscalls
EOF
