#!/bin/sh
# Starts or stops a private system bus (tests/data/bus.conf.in with dbus/org.pmapi.PerfMon1.conf)
# and pmapid on it, for the demo and for trying pmapi by hand. Needs root.
#   scripts/private-bus.sh start DIR PMAPID [PMAPID-ARGS...]   -> prints the bus address
#   scripts/private-bus.sh stop DIR
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cmd=$1 dir=$2
case "$cmd" in
start)
        pmapid=$3
        shift 3
        mkdir -p "$dir" && chmod 755 "$dir"
        sed -e "s|@DIR@|$dir|" -e "s|@POLICY@|$top/dbus/org.pmapi.PerfMon1.conf|" \
                "$top/tests/data/bus.conf.in" > "$dir/bus.conf"
        dbus-daemon --config-file="$dir/bus.conf" --fork --print-pid=3 3>"$dir/bus.pid" 2>/dev/null
        address="unix:path=$dir/system_bus_socket"
        DBUS_SYSTEM_BUS_ADDRESS=$address "$pmapid" "$@" >"$dir/pmapid.log" 2>&1 &
        echo $! > "$dir/pmapid.pid"
        for _ in $(seq 200); do
                busctl --address="$address" call org.freedesktop.DBus /org/freedesktop/DBus \
                        org.freedesktop.DBus NameHasOwner s org.pmapi.PerfMon1 2>/dev/null | grep -q true && break
                sleep 0.05
        done
        echo "$address"
        ;;
stop)
        for f in pmapid bus; do
                [ -f "$dir/$f.pid" ] && kill "$(cat "$dir/$f.pid")" 2>/dev/null || true
                rm -f "$dir/$f.pid"
        done
        ;;
*)
        echo "usage: $0 start DIR PMAPID | stop DIR" >&2
        exit 2
        ;;
esac
