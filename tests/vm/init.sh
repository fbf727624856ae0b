#!/bin/sh
# /init of the test VM: mounts, loads the modules for fbvm.display=, runs /case.sh, powers off.
# With fbvm.root=1 it is stage 1 of a systemd guest instead (stage1.sh).
# The case runs with fd 3 open on /dev/ttyS1, the channel to the host; its exit status is
# reported there as "fbvm-exit N" before the guest powers off.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root TERM=linux
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /tmp /run /root

load() {
	[ -f "/etc/fbvm/$1.modules" ] || { echo "fbvm: no module list for $1"; return 1; }
	while read -r m; do insmod "$m" 2>/dev/null; done <"/etc/fbvm/$1.modules"
}

display=bochs root=0
for a in $(cat /proc/cmdline); do
	case $a in fbvm.display=*) display=${a#*=} ;; fbvm.root=*) root=${a#*=} ;; esac
done
[ "$root" = 1 ] && . /lib/fbvm-stage1.sh
for m in evdev uinput virtio_pci virtio_input; do load $m; done
case $display in
bochs) load bochs ;;
virtio) load virtio-gpu ;;
esac

# DRM registers its fbdev when the driver binds; give it a moment (up to 3 s).
if [ "$display" != none ]; then
	n=0
	while [ ! -e /dev/fb0 ] && [ $n -lt 60 ]; do sleep 0.05; n=$((n + 1)); done
	[ -e /dev/fb0 ] || echo "fbvm: no /dev/fb0 after 3 s (display=$display)"
fi

stty -F /dev/ttyS1 raw -echo
exec 3<>/dev/ttyS1
echo fbvm-boot >&3
(. /lib/fbvm.sh && cd / && . /case.sh) </dev/null
echo "fbvm-exit $?" >&3
poweroff -f
