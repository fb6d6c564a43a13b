#!/bin/busybox sh
# The guest's /init (tests/guest/make-kernel.sh puts it in the initramfs): loads the modules, mounts
# the host's root read-only over 9p (tag "hostroot") under a tmpfs overlay, so that the guest sees the
# host's programs and the project's build but writes nothing back (or another root and the project's
# folder, below), mounts the shared output folder
# (tag "out") at /run/guest-out, runs /run/guest-out/command.sh there as root, writes its exit status
# to /run/guest-out/status, and powers off. Output goes to the console.
/bin/busybox mkdir -p /bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
while read -r m; do
        insmod "/modules/$m" 2>/dev/null || echo "guest: insmod $m failed"
done < /modules/load
# cache=mmap, not loose: with loose, page faults on the host's files through the overlay were seen
# to spin in handle_mm_fault for good (soft lockups on 5.10 and 6.1 under TCG, in test-local-reads and
# test-system); with mmap none in ten runs.
if ! mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=mmap hostroot /lower; then
        echo "guest: cannot mount the host's root"
        poweroff -f
fi
mount -t tmpfs -o size=75% tmpfs /upper
mkdir -p /upper/data /upper/work
mount -t overlay overlay -o lowerdir=/lower,upperdir=/upper/data,workdir=/upper/work /root
# A root other than the host's (the arm64 userland): the project's folder comes as its own share
# (tag "project"), at its host path, under an overlay too.
mkdir -p /out
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /out
if [ -s /out/project-path ]; then
        project=$(cat /out/project-path)
        mkdir -p /project /upper/project-data /upper/project-work "/root$project"
        mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=mmap project /project
        mount -t overlay overlay \
                -o lowerdir=/project,upperdir=/upper/project-data,workdir=/upper/project-work "/root$project"
fi
umount /out
for d in proc sys dev; do
        mount --move /$d /root/$d
done
# /tmp stays the host's, under the overlay (a clone the tests run from may live there); /run is the
# guest's own.
mount -t tmpfs tmpfs /root/run
mkdir -p /root/run/guest-out /root/dev/pts /root/dev/shm /root/sys/fs/cgroup
mount -t devpts devpts /root/dev/pts
mount -t tmpfs tmpfs /root/dev/shm
mount -t cgroup2 cgroup2 /root/sys/fs/cgroup 2>/dev/null
# What a Debian system's systemd does at boot: the root cgroup passes controllers down. Before Linux
# 6.x perf counts a cgroup v2 only where its parent enables one (its perf_event state is made then).
echo "+cpu +memory +pids" > /root/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
# The project machine's fd limit (pmapid sizes its contexts by it; the tests expect it).
ulimit -Hn 20000 2>/dev/null
ulimit -n 20000 2>/dev/null
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /root/run/guest-out
ip link set lo up 2>/dev/null
hostname guest
echo "guest: $(uname -r) up, running the command"
chroot /root /bin/sh -c 'cd /run/guest-out && . ./environment && sh ./command.sh; echo $? > /run/guest-out/status'
sync
echo "guest: done, status $(cat /root/run/guest-out/status 2>/dev/null)"
poweroff -f
