#!/bin/sh
# The main job, from a fresh Debian 12 machine as root: install what is missing, build, start a
# private system bus and pmapid, count a real workload (scenario S1) as root and as the
# unprivileged user nobody, and show the live context as an administrator sees it with busctl;
# then a counting group whose threads inherit it (scenario S4), and its group object.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
sh scripts/install-deps.sh
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null

dir=$(mktemp -d /tmp/pmapi-demo-XXXXXX)
trap 'sh scripts/private-bus.sh stop "$dir"; rm -rf "$dir"' EXIT
address=$(sh scripts/private-bus.sh start "$dir" "$top/build/daemon/pmapid")
export DBUS_SYSTEM_BUS_ADDRESS="$address"
export LD_LIBRARY_PATH="$top/build/pmapi"
chmod o+rx build build/samples build/pmapi 2>/dev/null || true

echo "== S1 as root"
build/samples/s1-single-thread --pages 20000 --sleeps 50
echo
echo "== S1 as uid 65534 (nobody), while an administrator looks at the bus"
setpriv --reuid=65534 --regid=65534 --clear-groups env DBUS_SYSTEM_BUS_ADDRESS="$address" \
        LD_LIBRARY_PATH="$LD_LIBRARY_PATH" build/samples/s1-single-thread --pages 5000 --hold-ms 1500 &
sample=$!
sleep 0.7
echo "-- busctl tree org.pmapi.PerfMon1"
busctl --address="$address" tree --list org.pmapi.PerfMon1
thread=$(busctl --address="$address" tree --list org.pmapi.PerfMon1 | grep /thread/ | head -n 1)
if [ -n "$thread" ]; then
        echo "-- busctl introspect org.pmapi.PerfMon1 $thread org.pmapi.PerfMon1.Thread"
        busctl --address="$address" introspect org.pmapi.PerfMon1 "$thread" org.pmapi.PerfMon1.Thread
fi
wait $sample
echo
echo "== S4 as uid 65534 (nobody): a group, 4 threads that inherit it, the group = the sum"
setpriv --reuid=65534 --regid=65534 --clear-groups env DBUS_SYSTEM_BUS_ADDRESS="$address" \
        LD_LIBRARY_PATH="$LD_LIBRARY_PATH" build/samples/s4-thread-group --threads 4 --pages 1000 --hold-ms 1500 &
sample=$!
sleep 0.7
group=$(busctl --address="$address" tree --list org.pmapi.PerfMon1 | grep /group/ | head -n 1)
if [ -n "$group" ]; then
        echo "-- busctl introspect org.pmapi.PerfMon1 $group org.pmapi.PerfMon1.Group"
        busctl --address="$address" introspect org.pmapi.PerfMon1 "$group" org.pmapi.PerfMon1.Group
fi
wait $sample
echo
echo "== pmapid's log"
cat "$dir/pmapid.log"
