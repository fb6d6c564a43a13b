#!/bin/sh
# inside.sh: the checks of tests/systemd/boot-test.sh, run by pmapi-boot-test.service inside the
# booted Debian tree, where systemd is PID 1 and runs the system bus. /mnt/debs holds the packages,
# /usr/local/bin/hold-count the client (hold-count.c), /mnt/out takes result.tap and the logs.
# Each count is hold-count's: its group's page faults over a window in which the check does
# something to pmapid; the window with nothing done is the baseline, and nothing lost means the
# same delta to the fault.
set -u
out=/mnt/out
tap=$out/result.tap
pages=4000
n=0
: > "$tap"
say() {         # say ok|not-ok text
        n=$((n + 1))
        if [ "$1" = ok ]; then echo "ok $n - systemd: $2" >> "$tap"; else echo "not ok $n - systemd: $2" >> "$tap"; fi
}
note() { echo "# $*" >> "$tap"; }
main_pid() { systemctl show -p MainPID --value pmapid.service; }

# hold USER ACTION: hold-count as USER (root or a name), ACTION run while its window is open;
# prints "DELTA RC".
hold() {
        rm -f /tmp/ready /tmp/go /tmp/hold.out
        if [ "$1" = root ]; then
                hold-count "$pages" /tmp/ready /tmp/go > /tmp/hold.out 2>&1 &
        else
                runuser -u "$1" -- hold-count "$pages" /tmp/ready /tmp/go > /tmp/hold.out 2>&1 &
        fi
        pid=$!
        for _ in $(seq 500); do [ -e /tmp/ready ] && break; sleep 0.02; done
        eval "$2" >> "$out/actions.log" 2>&1
        touch /tmp/go
        wait "$pid"
        cat /tmp/hold.out >> "$out/hold.log"
        echo "$(sed -n 's/^delta //p' /tmp/hold.out) $(sed -n 's/^rc //p' /tmp/hold.out)"
}

# 1. The packages, installed as an administrator does.
if DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends /mnt/debs/pmapid_*.deb \
        /mnt/debs/libpmapi1_*.deb /mnt/debs/pmapi-tools_*.deb > "$out/install.log" 2>&1; then
        say ok "apt installed pmapid, libpmapi1, pmapi-tools (postinst: pmapid $(systemctl is-active pmapid))"
else
        say not-ok "apt install (install.log)"
fi
dpkg -L pmapid pmapi-tools libpmapi1 | sort -u > "$out/files.txt"

# 2. Bus activation: stopped, then started by the system bus on its first call (Type=notify).
systemctl stop pmapid
busctl call org.pmapi.PerfMon1 /org/pmapi/PerfMon1 org.freedesktop.DBus.Peer Ping > /dev/null 2>&1
state=$(systemctl show -p ActiveState,SubState,Type --value pmapid | tr '\n' ' ')
if [ "$(systemctl is-active pmapid)" = active ] && [ "$(systemctl show -p Type --value pmapid)" = notify ]; then
        say ok "bus activation started pmapid ($state)"
else
        say not-ok "bus activation: $state"
fi
journalctl -u pmapid --no-pager -o cat | head -8 | sed 's/^/# pmapid: /' >> "$tap"

# 3. S1 as root, and as a user in the configured group ([Access] OnlyGroups).
set -- $(hold root true)
base=$1
note "baseline: $pages + $pages pages touched, the window's delta $base (rc $2)"
[ "$2" = 0 ] && [ "$base" -ge "$pages" ] && say ok "root counts its group ($base)" || say not-ok "root: delta $base rc $2"
groupadd -f pmapi-users
id counter > /dev/null 2>&1 || useradd -M -G pmapi-users counter
id outsider > /dev/null 2>&1 || useradd -M outsider
printf '[Access]\nOnlyGroups=pmapi-users\n' > /etc/pmapi/pmapid.conf
systemctl reload pmapid
set -- $(hold counter true)
[ "$2" = 0 ] && [ "$1" = "$base" ] && say ok "a member of OnlyGroups counts exactly ($1 = $base)" ||
        say not-ok "member of OnlyGroups: delta $1 rc $2 (baseline $base)"
set -- $(hold outsider true)
[ "$2" != 0 ] && say ok "a user outside OnlyGroups is refused (rc $2)" || say not-ok "outsider: rc $2"

# 4. systemctl reload under a count: pmapid re-executes (same PID) and loses nothing.
p0=$(main_pid)
set -- $(hold root "systemctl reload pmapid")
p1=$(main_pid)
[ "$2" = 0 ] && [ "$1" = "$base" ] && [ "$p0" = "$p1" ] &&
        say ok "systemctl reload: same PID $p1, delta $1 = $base" ||
        say not-ok "systemctl reload: delta $1 rc $2 (baseline $base), PID $p0 -> $p1"

# 5. systemctl restart under a count: the contexts go through systemd's fd store.
set -- $(hold root "systemctl restart pmapid")
p2=$(main_pid)
[ "$2" = 0 ] && [ "$1" = "$base" ] && [ "$p2" != "$p1" ] &&
        say ok "systemctl restart: new PID $p2, contexts kept through the fd store, delta $1 = $base" ||
        say not-ok "systemctl restart: delta $1 rc $2 (baseline $base), PID $p1 -> $p2"

# 6. stop, then start: the contexts are gone, and the client is told (PM_ERESTARTED, 32).
set -- $(hold root "systemctl stop pmapid; systemctl start pmapid")
[ "$2" = 32 ] && say ok "systemctl stop + start: the client gets PM_ERESTARTED" ||
        say not-ok "stop + start: rc $2 (want 32)"

# 7. An upgrade while a client counts: the package's own postinst reloads pmapid.
p3=$(main_pid)
set -- $(hold root "dpkg -i /mnt/debs/pmapid_*.deb")
p4=$(main_pid)
if [ "$2" = 0 ] && [ "$1" = "$base" ] && [ "$p3" = "$p4" ]; then
        say ok "dpkg -i of pmapid while counting: postinst reloaded it (PID $p4 kept), delta $1 = $base"
else
        say not-ok "upgrade while counting: delta $1 rc $2 (baseline $base), PID $p3 -> $p4"
fi

# 8. The sandbox: the exposure score, and what the unit forbids, tried from inside its namespaces.
score=$(systemd-analyze security pmapid 2>/dev/null | sed -n 's/.*Overall exposure level for pmapid.service: //p')
note "systemd-analyze security pmapid: $score"
pid=$(main_pid)
status=$(grep -E '^(NoNewPrivs|Seccomp|CapBnd|CapEff):' /proc/"$pid"/status | tr -s '\t ' ' ' | tr '\n' ' ')
note "pmapid's /proc status: $status"
usr=$(nsenter -t "$pid" -m -- sh -c 'touch /usr/pmapi-probe 2>&1; ls /home 2>&1 | wc -l' 2>&1 | tr '\n' ' ')
if [ -n "$score" ] && echo "$status" | grep -q "NoNewPrivs: 1" && echo "$status" | grep -q "Seccomp: 2" &&
   echo "$status" | grep -q "CapBnd: 000000c000080004" && echo "$usr" | grep -q "Read-only file system"; then
        say ok "sandbox applied: exposure $score; no new privileges, seccomp, 4 capabilities, /usr read-only"
else
        say not-ok "sandbox: score '$score', status '$status', /usr probe '$usr'"
fi

# 9. apt purge leaves nothing behind.
DEBIAN_FRONTEND=noninteractive apt-get purge -y pmapid pmapi-tools libpmapi1 > "$out/purge.log" 2>&1
left=$(while read -r f; do [ -f "$f" ] && echo "$f"; done < "$out/files.txt")
[ -e /etc/pmapi ] && left="$left /etc/pmapi"
[ -e /var/lib/pmapi ] && left="$left /var/lib/pmapi"
if [ -z "$left" ] && ! pgrep -x pmapid > /dev/null; then
        say ok "apt purge: no file of the packages left, no /etc/pmapi or /var/lib/pmapi, pmapid stopped"
else
        say not-ok "apt purge left:$left"
fi
echo "1..$n" >> "$tap"
