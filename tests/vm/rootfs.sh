#!/bin/sh
# Builds the root image of the systemd VM (Debian 12, PID 1 systemd, udev) with mmdebstrap and
# caches it beside the kernel, keyed by this script (the recipe) and the kernel version.
# Usage: tests/vm/rootfs.sh   prints ROOTFS=PATH; needs root (mmdebstrap --mode=root; else sudo
# without a password) the first time, and Debian's archive through apt's usual configuration.
set -eu
export PATH="$PATH:/usr/sbin:/sbin"

CACHE=${FBRIPPLE_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fbripple-vm}
die() { echo "rootfs.sh: $*" >&2; exit 1; }

[ -f "$CACHE/kernel.env" ] || die "no kernel in $CACHE: run tests/vm/kernel.sh"
. "$CACHE/kernel.env"

# What fbripple needs at run time, what the test runs, and systemd itself.
PACKAGES="systemd systemd-sysv udev libnss-systemd kmod procps kbd
libevdev2 libconfig9 libpng16-16 libjpeg62-turbo libsystemd0 libudev1 libdrm2"
SUITES="bookworm bookworm-updates"
KEY=$( { cat "$0"; echo "$KVER"; } | sha256sum | cut -c1-16)
IMG=$CACHE/rootfs-$KEY.img

[ -f "$IMG" ] && { echo "ROOTFS=$IMG"; exit 0; }
if [ "$(id -u)" != 0 ]; then
	sudo -n true 2>/dev/null ||
		die "building the root image needs root (mmdebstrap --mode=root) or sudo without a password"
	exec sudo -n env FBRIPPLE_VM_CACHE="$CACHE" PATH="$PATH" sh "$0"
fi
command -v mmdebstrap >/dev/null || die "no mmdebstrap (apt-get install mmdebstrap)"
command -v mke2fs >/dev/null || die "no mke2fs (apt-get install e2fsprogs)"
mkdir -p "$CACHE"
exec 9>"$CACHE/.rootfs.lock"
flock -w 1200 9 || die "timed out waiting for $CACHE/.rootfs.lock"
[ -f "$IMG" ] && { echo "ROOTFS=$IMG"; exit 0; }

TREE=$(mktemp -d "${TMPDIR:-/tmp}/fbripple-rootfs.XXXXXX")
trap 'rm -rf "$TREE"' EXIT
# mmdebstrap refuses a non-empty target; the tree is a fresh temp dir inside ours.
ROOT=$TREE/root
echo "rootfs.sh: building the Debian 12 root image (a minute or two, once)" >&2
mmdebstrap --quiet --mode=root --variant=essential --include="$(echo $PACKAGES | tr ' ' ,)" \
	bookworm "$ROOT" \
	"deb http://deb.debian.org/debian $SUITES main" \
	"deb http://deb.debian.org/debian-security bookworm-security main" >&2 ||
	die "mmdebstrap failed"

# What made it boot in well under half a minute under TCG (../shared/docs/vm-testing.md).
echo 0123456789abcdef0123456789abcdef >"$ROOT/etc/machine-id"
echo fbvm >"$ROOT/etc/hostname"
touch "$ROOT/etc/.updated" "$ROOT/var/.updated"
mkdir -p "$ROOT/etc/systemd/journald.conf.d"
printf '[Journal]\nStorage=volatile\n' >"$ROOT/etc/systemd/journald.conf.d/fbvm.conf"
for u in serial-getty@ttyS0.service serial-getty@ttyS1.service systemd-logind.service \
	getty-static.service $(cd "$ROOT/lib/systemd/system" && ls ./*.timer | sed 's|^\./||'); do
	ln -sf /dev/null "$ROOT/etc/systemd/system/$u"
done
: >"$ROOT/etc/fstab"

# The case runner: after boot, /fbvm/run.sh (copied in by the stage-1 /init) on ttyS1.
cat >"$ROOT/etc/systemd/system/fbvm-case.service" <<'EOF'
[Unit]
Description=fbvm test case
After=multi-user.target
[Service]
Type=oneshot
ExecStart=/bin/sh /fbvm/run.sh
StandardOutput=journal+console
StandardError=journal+console
EOF
mkdir -p "$ROOT/etc/systemd/system/multi-user.target.wants"
ln -sf ../fbvm-case.service "$ROOT/etc/systemd/system/multi-user.target.wants/fbvm-case.service"

# Modules for udev to load (bochs, evdev, uinput, virtio_input); merged /usr.
mkdir -p "$ROOT/usr/lib/modules"
cp -a "$MODROOT/lib/modules/$KVER" "$ROOT/usr/lib/modules/"
rm -rf "$ROOT/var/cache/apt" "$ROOT/var/lib/apt/lists" "$ROOT/usr/share/doc" "$ROOT/usr/share/man"

part=$CACHE/.rootfs-$KEY.part
mke2fs -q -F -t ext4 -L fbvm-root -d "$ROOT" "$part" 1200M >&2 || die "mke2fs failed"
mv "$part" "$IMG"
# Keep the newest two images.
ls -t "$CACHE"/rootfs-*.img | tail -n +3 | while read -r old; do rm -f "$old"; done
echo "ROOTFS=$IMG"
