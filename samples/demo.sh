#!/bin/sh
# The main job, from a fresh Debian 12 machine as root: install what is missing, build, start a
# private system bus and pmapid, count a real workload (scenario S1) as root and as the
# unprivileged user nobody, and show the live context as an administrator sees it with busctl;
# then a counting group whose threads inherit it (scenario S4), its group object, and the same group
# in Performance Co-Pilot (pminfo through a private pmcd running pmdapmapi); then a
# debugger (gdb, as nobody) that stops S1 and reprograms it from outside with pmctl (scenario S2),
# and an administrator's pmctl on another user's process, refused to a third user; then the
# tools: pmlist (the catalog, first), pmcount (a command with a row per thread, as nobody), pmstat
# (every CPU each interval as root, and a command's process tree as nobody); a cgroup counted as
# AIX counts a WPAR (pmcount --cgroup, and nobody on the cgroup delegated to it); pmcycles. Before
# pmapid starts, pmapid --calibrate measures each event's status here; pmlist -g lists the groups,
# pmcount -g -m counts one and shows its derived metrics.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
sh scripts/install-deps.sh demo
# PMAPI_BUILD_DIR: the build to show (tests/run.sh shows its own); made here when missing.
build=${PMAPI_BUILD_DIR:-build}
case "$build" in /*) ;; *) build="$top/$build" ;; esac
[ -d "$build" ] || meson setup "$build" >/dev/null
ninja -C "$build" >/dev/null

dir=$(mktemp -d /tmp/pmapi-demo-XXXXXX)
trap 'sh scripts/private-pmcd.sh stop "$dir/pcp"; sh scripts/private-bus.sh stop "$dir"; rm -rf "$dir"' EXIT
# The administrator's policy (pmapid.conf [Access]): members of "users" count their own threads
# whatever kernel.perf_event_paranoid says; stock Debian kernels say 3, no unprivileged perf.
printf '[Access]\nUserModeGroups=users\n' > "$dir/pmapid.conf"
users_gid=$(getent group users | cut -d: -f3)
echo "== pmapid --calibrate: each curated event's status measured on this machine, before pmapid starts"
"$build/daemon/pmapid" --calibrate --calibration="$dir/calibration" 2>/dev/null | grep -v 'does not open here'
echo "   (every hardware event: unverified, does not open here, where there is no CPU PMU)"
echo
address=$(sh scripts/private-bus.sh start "$dir" "$build/daemon/pmapid" --config="$dir/pmapid.conf" \
        --calibration="$dir/calibration")
export DBUS_SYSTEM_BUS_ADDRESS="$address"
# The programs other users run, where they can reach them (a clone in /root is root's alone).
bin="$dir/bin"
mkdir -p "$bin"
(cd "$build" && cp samples/s1-single-thread samples/s4-thread-group pmapi/utils/pmctl pmapi/utils/pmlist \
        pmapi/utils/pmcount pmapi/utils/pmstat pmapi/utils/pmcycles pmapi/libpmapi.so.1 pmapi/libpmapi-preload.so \
        tests/integration/touch-pages tests/integration/thread-pages "$bin/")
chmod 755 "$dir" "$bin"
export LD_LIBRARY_PATH="$bin"
pmctl="$bin/pmctl"
as_user() {     # as_user UID COMMAND...: a process of that user, in group users, on the private bus
        uid=$1
        shift
        setpriv --reuid="$uid" --regid="$uid" --groups="$users_gid" env DBUS_SYSTEM_BUS_ADDRESS="$address" \
                LD_LIBRARY_PATH="$LD_LIBRARY_PATH" HOME="$dir" "$@"
}
as_outsider() { # the same, in no group but its own
        uid=$1
        shift
        setpriv --reuid="$uid" --regid="$uid" --clear-groups env DBUS_SYSTEM_BUS_ADDRESS="$address" \
                LD_LIBRARY_PATH="$LD_LIBRARY_PATH" HOME="$dir" "$@"
}

echo "== Who may count: kernel.perf_event_paranoid is $(cat /proc/sys/kernel/perf_event_paranoid), and pmapid.conf says"
"$build/daemon/pmapid" --check-config --config="$dir/pmapid.conf"
echo "-- nobody in group users counts its own command; nobody in no group$(
        [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 3 ] && echo " is refused (paranoid 3)" ||
        echo " too, at this paranoid (at 3 it would be refused)")"
as_user 65534 "$bin/pmcount" -e PM_PAGE_FLT -- "$bin/touch-pages" 1000 2>&1 | grep -E 'PM_PAGE_FLT|pmcount:'
as_outsider 65534 "$bin/pmcount" -e PM_PAGE_FLT -- "$bin/touch-pages" 1000 2>&1 | grep -E 'PM_PAGE_FLT|pmcount:' || true
echo

echo "== pmlist: the event catalog as pm_init sees it (statuses from the calibration above)"
COLUMNS=110 "$bin/pmlist"
echo "-- pmlist -g: the predefined event groups this machine offers (mode.b.is_group)"
COLUMNS=110 "$bin/pmlist" -g
echo "-- pmcount -g 0 -m: a command counted with the pm_faults group, and the derived metrics of its counts"
"$bin/pmcount" -g 0 -m -- "$bin/touch-pages" 3000 2>&1 | sed -n '/^Event group/p; /^COUNT/,/^$/p; /^Metrics/,/^$/p'
echo

echo "== S1 as root"
"$bin/s1-single-thread" --pages 20000 --sleeps 50
echo
echo "== S1 as uid 65534 (nobody), while an administrator looks at the bus"
as_user 65534 "$bin/s1-single-thread" --pages 5000 --hold-ms 1500 &
sample=$!
sleep 0.7
echo "-- busctl tree org.pmapi.PerfMon1"
busctl --no-pager --address="$address" tree --list org.pmapi.PerfMon1
thread=$(busctl --no-pager --address="$address" tree --list org.pmapi.PerfMon1 | grep /thread/ | head -n 1)
if [ -n "$thread" ]; then
        echo "-- busctl introspect org.pmapi.PerfMon1 $thread org.pmapi.PerfMon1.Thread"
        busctl --no-pager --address="$address" introspect org.pmapi.PerfMon1 "$thread" org.pmapi.PerfMon1.Thread
fi
wait $sample
echo
# Performance Co-Pilot: a private pmcd with pmdapmapi reading this pmapid (scripts/private-pmcd.sh).
pcp_host=$(sh scripts/private-pmcd.sh start "$dir/pcp" "$build/pmapi/pmda/pmdapmapi" "$address" 2>/dev/null || true)
echo "== S4 as uid 65534 (nobody): a group, 4 threads that inherit it, the group = the sum"
as_user 65534 "$bin/s4-thread-group" --threads 4 --pages 1000 --hold-ms 1500 &
sample=$!
sleep 0.7
group=$(busctl --no-pager --address="$address" tree --list org.pmapi.PerfMon1 | grep /group/ | head -n 1)
if [ -n "$group" ]; then
        echo "-- busctl introspect org.pmapi.PerfMon1 $group org.pmapi.PerfMon1.Group"
        busctl --no-pager --address="$address" introspect org.pmapi.PerfMon1 "$group" org.pmapi.PerfMon1.Group
        if [ -n "$pcp_host" ]; then
                echo "-- the same live group in Performance Co-Pilot: pminfo -f pmapi.group (pmcd + pmdapmapi)"
                pminfo -h "$pcp_host" -f pmapi.group pmapi.daemon.up 2>&1
        fi
fi
wait $sample
echo
echo "== S2 as uid 65534: gdb stops S1 at point (1); from gdb, pmctl reads it, reprograms counter 0, continues"
cat > "$dir/s2.gdb" <<EOF
set pagination off
set confirm off
set startup-with-shell off
break s1_breakpoint
run
python
pid = gdb.selected_inferior().pid
for cmd in ('program %d', 'data %d', 'delete %d',
            'set %d -e PM_MINOR_FLT,PM_MINOR_FLT,PM_CTX_SW,PM_TASK_CLOCK -m user,kernel,count'):
    print('(gdb) shell pmctl ' + cmd % pid)
    gdb.execute('shell $pmctl ' + cmd % pid)
end
continue
EOF
as_user 65534 gdb -batch -nx -x "$dir/s2.gdb" --args "$bin/s1-single-thread" --pages 4000 --sleeps 50 2>&1 |
        grep -v -e '^.Thread debugging' -e '^Using host libthread_db'
echo
echo "== An administrator counts another user's process with pmctl; a third user is refused"
# setpriv execs the shell: $! is the nobody process itself. It waits for 20 short sleeps.
setpriv --reuid=65534 --regid=65534 --clear-groups sh -c 'for i in $(seq 20); do sleep 0.05; done' &
victim=$!
sleep 0.1
"$pmctl" set $victim -e PM_CTX_SW,PM_TASK_CLOCK -m user,kernel,count
"$pmctl" list
as_user 1 "$pmctl" data $victim || true
sleep 0.6
"$pmctl" data $victim
"$pmctl" delete $victim
wait $victim
echo
echo "== pmcount as nobody: a program not linked with libpmapi, one row per thread that ran"
echo "   (thread-pages 4 2500 10: worker i touches (i+1)*25,000 fresh pages)"
as_user 65534 "$bin/pmcount" --per-thread -- "$bin/thread-pages" 4 2500 10
echo
last=$(($(nproc) - 1))
echo "== pmstat as root: every CPU, 3 intervals of 500 ms; 50,000 pages touched on CPU $last in the second"
(sleep 0.6; taskset -c "$last" "$bin/touch-pages" 50000) &
"$bin/pmstat" -I 500 3
wait
echo
echo "== pmstat --proctree as nobody: a pipeline and everything it starts; without --proctree, refused"
as_user 65534 "$bin/pmstat" --proctree -I 250 -- sh -c 'seq 2000000 | sort -n | tail -1'
as_outsider 65534 "$bin/pmstat" || true
echo
# AIX's WPAR calls count a cgroup v2 here: the demo's own, delegated to nobody as systemd's
# Delegate= does, with the work moved into it; a command outside it is not counted.
mount=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
cg="$mount/pmapi-demo-$$"
echo "== A cgroup as AIX's WPAR: pmcount --cgroup as root while 1,000 pages are touched in it and"
if [ -z "$mount" ] || ! mkdir "$cg" 2>/dev/null; then
        echo "   skipped: no cgroup v2 hierarchy this root may write to here"
        echo
else
        chown 65534 "$cg" "$cg/cgroup.procs" "$cg/cgroup.threads" "$cg/cgroup.subtree_control"
        echo "   5,000 outside it; then nobody counts the cgroup delegated to it, and one that is not"
        "$bin/pmcount" --no-big-num -e PM_PAGE_FLT --cgroup "/pmapi-demo-$$" -- sh -c \
                "\"$bin/touch-pages\" 5000 & sh -c 'echo \$\$ > \"$cg/cgroup.procs\" && exec \"$bin/touch-pages\" 1000'; wait" \
                2>&1 | grep -E 'Cgroup:|PM_PAGE_FLT'
        (sleep 0.3; sh -c "echo \$\$ > \"$cg/cgroup.procs\" && exec setpriv --reuid=65534 --regid=65534 --clear-groups \"$bin/touch-pages\" 1000") &
        as_user 65534 "$bin/pmcount" --no-big-num -e PM_PAGE_FLT --cgroup "/pmapi-demo-$$" -- sleep 0.6 2>&1 |
                grep -E 'Cgroup:|PM_PAGE_FLT'
        wait
        as_user 65534 "$bin/pmcount" -e PM_PAGE_FLT --cgroup / -- true 2>&1 | head -2 || true
        rmdir "$cg"
        echo
fi
echo "== pmcycles: the processor clock pm_cycles() reports, and where it comes from"
"$bin/pmcycles" -v
echo
echo "== pmapid's log"
cat "$dir/pmapid.log"
