#!/bin/sh
# check-packages.sh BUILD_DIR: the Debian packages of this tree (debian/), as an administrator gets
# them. Builds them with dpkg-buildpackage from a copy of the tree in BUILD_DIR/packages (the .debs
# land beside it, never in the tree's parent), runs lintian at its default level (no error, no
# warning), then installs them here, where PID 1 is not systemd: they must install, start nothing
# and say how pmapid starts; the conffile, the unit, the bus files and the tools must be in place;
# then a purge must leave none of their files, and no /etc/pmapi or /var/lib/pmapi. Prints TAP;
# exits 1 on any failure. About 5 minutes (most of it the build). Needs root (apt, dpkg).
set -eu
build=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
work="$top/$build/packages"
pkgs="pmapid libpmapi1 libpmapi-dev pmapi-tools pcp-pmda-pmapi"
n=0
rc=0
say() {         # say ok|not-ok text
        n=$((n + 1))
        if [ "$1" = ok ]; then echo "ok $n - packages: $2"; else echo "not ok $n - packages: $2"; rc=1; fi
}

echo "1..6"
rm -rf "$work"
mkdir -p "$work/src/pmapi"
# The tree as git sees it (tracked, and new files not ignored): what a clone of it would build.
(cd "$top" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -xf - -C "$work/src/pmapi"
if (cd "$work/src/pmapi" && dpkg-buildpackage -us -uc -b) > "$work/build.log" 2>&1; then
        say ok "dpkg-buildpackage -us -uc -b built $(ls "$work"/src/*.deb | grep -vc dbgsym) packages (and their dbgsym)"
else
        tail -30 "$work/build.log" | sed 's/^/# /'
        say not-ok "dpkg-buildpackage -us -uc -b failed (log: $work/build.log)"
        exit 1
fi
if lintian --fail-on error,warning "$work"/src/*.changes > "$work/lintian.log" 2>&1; then
        say ok "lintian at its default level: no error, no warning ($(grep -c . "$work/lintian.log" || true) lines)"
else
        sed 's/^/# /' "$work/lintian.log"
        say not-ok "lintian found errors or warnings"
fi

# Installed where PID 1 is not systemd: nothing starts, and the admin is told how pmapid starts.
if [ -d /run/systemd/system ]; then
        echo "ok 3 # SKIP PID 1 is systemd here"; echo "ok 4 # SKIP"; echo "ok 5 # SKIP"; echo "ok 6 # SKIP"
        exit $rc
fi
before=$(pgrep -xc pmapid || true)
debs=$(for p in $pkgs; do ls "$work"/src/${p}_*.deb; done)
if DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $debs > "$work/install.log" 2>&1 &&
   grep -q "PID 1 is not systemd, so nothing was started" "$work/install.log" &&
   [ "$(pgrep -xc pmapid || true)" = "$before" ]; then
        say ok "installed without systemd: nothing started, and the postinst says how pmapid starts"
else
        sed 's/^/# /' "$work/install.log" | tail -20
        say not-ok "install without systemd"
fi
missing=""
for f in /usr/sbin/pmapid /etc/pmapi/pmapid.conf /lib/systemd/system/pmapid.service \
         /usr/share/dbus-1/system.d/org.pmapi.PerfMon1.conf \
         /usr/share/dbus-1/system-services/org.pmapi.PerfMon1.service /usr/bin/pmcount /usr/bin/pmctl \
         /usr/include/pmapi.h /var/lib/pcp/pmdas/pmapi/pmdapmapi; do
        [ -e "$f" ] || missing="$missing $f"
done
conffile=$(dpkg-query -W -f='${Conffiles}' pmapid 2>/dev/null | grep -c /etc/pmapi/pmapid.conf || true)
if [ -z "$missing" ] && [ "$conffile" = 1 ] && /usr/bin/pmlist -h > /dev/null 2>&1; then
        say ok "files in place, pmapid.conf a conffile, the installed pmlist runs against the installed library"
else
        say not-ok "files missing:$missing (conffile: $conffile)"
fi
files=$(for p in $pkgs; do dpkg -L "$p" 2>/dev/null; done | sort -u)
mkdir -p /var/lib/pmapi && : > /var/lib/pmapi/calibration     # state pmapid would have written
if DEBIAN_FRONTEND=noninteractive apt-get purge -y $pkgs > "$work/purge.log" 2>&1; then
        left=""
        for f in $files; do
                [ -d "$f" ] && continue         # directories other packages share
                [ -e "$f" ] && left="$left $f"
        done
        [ -e /etc/pmapi ] && left="$left /etc/pmapi"
        [ -e /var/lib/pmapi ] && left="$left /var/lib/pmapi"
        if [ -z "$left" ]; then
                say ok "apt purge left none of the packages' $(echo "$files" | wc -l) paths, no /etc/pmapi, no /var/lib/pmapi"
        else
                say not-ok "apt purge left:$left"
        fi
else
        sed 's/^/# /' "$work/purge.log" | tail -20
        say not-ok "apt purge failed"
fi
if dpkg --audit > "$work/audit.log" 2>&1 && [ ! -s "$work/audit.log" ]; then
        say ok "dpkg --audit: apt is healthy after install and purge"
else
        sed 's/^/# /' "$work/audit.log"
        say not-ok "dpkg --audit reports broken packages"
fi
exit $rc
