#!/bin/sh
# Starts or stops a private Performance Co-Pilot pmcd (its own socket, port, pmcd.conf, PMNS and
# log directory in DIR; no system file touched) serving pmcd's own metrics and pmdapmapi, which reads
# pmapid on the bus at ADDRESS: for the demo and for trying the agent by hand. Needs root and PCP.
#   scripts/private-pmcd.sh start DIR PMDAPMAPI ADDRESS   -> prints the host spec for pminfo -h
#   scripts/private-pmcd.sh stop DIR
set -eu
usage() { echo "usage: $0 start DIR PMDAPMAPI ADDRESS | stop DIR" >&2; exit 2; }
[ $# -ge 2 ] || usage
cmd=$1 dir=$2
conf() { sed -n "s/^$1=//p" /etc/pcp.conf; }
case "$cmd" in
start)
        [ $# -eq 4 ] || usage
        pmda=$3 address=$4
        mkdir -p "$dir/run" "$dir/log"
        chmod 755 "$dir"
        # pmcd gives up root for the pcp user once its agents run: these stay writable to it.
        chown pcp:pcp "$dir/run" "$dir/log" 2>/dev/null || true
        { printf 'root {\n    pmapi\n}\n\n'; "$pmda" --pmns 190; } > "$dir/pmapi.pmns"
        "$(conf PCP_BINADM_DIR)/pmnsmerge" -f -a "$(conf PCP_VAR_DIR)/pmns/root_pmcd" "$dir/pmapi.pmns" "$dir/root.pmns"
        printf 'pmcd\t2\tdso\tpmcd_init\t%s/pmcd/pmda_pmcd.so\npmapi\t190\tpipe\tbinary\t%s -d 190 -l %s/log/pmapi.log --bus %s\n' \
                "$(conf PCP_PMDAS_DIR)" "$pmda" "$dir" "$address" > "$dir/pmcd.conf"
        # Any free loopback port: pmcd wants one besides its socket.
        port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        PCP_RUN_DIR="$dir/run" PCP_LOG_DIR="$dir/log" "$(conf PCP_BINADM_DIR)/pmcd" -f -A -i 127.0.0.1 -p "$port" \
                -s "$dir/run/pmcd.socket" -c "$dir/pmcd.conf" -n "$dir/root.pmns" -l "$dir/log/pmcd.log" \
                -x "$dir/log/pmcd.fatal" &
        echo $! > "$dir/pmcd.pid"
        host="unix:$dir/run/pmcd.socket"
        for _ in $(seq 100); do
                if pminfo -h "$host" -f pmapi.daemon.up >/dev/null 2>&1; then
                        echo "$host"
                        exit 0
                fi
                sleep 0.05
        done
        echo "pmcd with pmdapmapi does not answer on $host (logs in $dir/log)" >&2
        exit 1
        ;;
stop)
        [ -f "$dir/pmcd.pid" ] && kill "$(cat "$dir/pmcd.pid")" 2>/dev/null || true
        rm -f "$dir/pmcd.pid"
        ;;
*)
        usage
        ;;
esac
