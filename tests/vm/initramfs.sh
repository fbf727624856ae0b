#!/bin/sh
# Builds the test VM's base initramfs: busybox, kernel modules, /init, and the programs given
# with the shared libraries they need. Cached by content: an unchanged set is only copied.
# Usage: tests/vm/initramfs.sh OUT.cpio.gz [FILE | FILE=/DEST]...
#   FILE goes to /bin/NAME; FILE=/DEST to /DEST. ELF programs bring their ldd libraries along.
set -eu
export PATH="$PATH:/usr/sbin:/sbin"

die() { echo "initramfs.sh: $*" >&2; exit 1; }
[ $# -ge 1 ] || die "usage: initramfs.sh OUT.cpio.gz [FILE | FILE=/DEST]..."
OUT=$1
shift
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${FBRIPPLE_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fbripple-vm}
[ -f "$CACHE/kernel.env" ] || die "no kernel in $CACHE: run tests/vm/kernel.sh"
. "$CACHE/kernel.env"
BUSYBOX=$(command -v busybox) || die "busybox not found (apt-get install busybox-static)"
MODULES="evdev uinput bochs virtio-gpu virtio_pci virtio_input virtio_blk ext4 vfb"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fbripple-initramfs.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
MANIFEST=$WORK/manifest

# add SRC DEST: one regular file for the tree (DEST absolute inside the guest).
add() { printf '%s\t%s\n' "$1" "$2" >>"$MANIFEST"; }

# The shared libraries and loader of an ELF program, as ldd lists them.
add_libs() {
	ldd "$1" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\) (.*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p' |
	while read -r lib; do add "$lib" "$lib"; done
}

is_elf() { [ "$(od -An -c -N 4 "$1" | tr -d ' ')" = 177ELF ]; }

manifest() {
	: >"$MANIFEST"
	add "$BUSYBOX" /bin/busybox
	add "$HERE/init.sh" /init
	add "$HERE/fbvm.sh" /lib/fbvm.sh
	add "$HERE/stage1.sh" /lib/fbvm-stage1.sh
	add "$HERE/run.sh" /lib/fbvm-run.sh
	mkdir -p "$WORK/gen"
	for m in $MODULES; do
		modprobe -d "$MODROOT" -S "$KVER" --show-depends "$m" | sed -n 's/^insmod \([^ ]*\).*/\1/p' \
			>"$WORK/gen/$m.list" || die "modprobe --show-depends $m failed"
		[ -s "$WORK/gen/$m.list" ] || die "module $m not found for $KVER"
		sed "s|^$MODROOT||" "$WORK/gen/$m.list" >"$WORK/gen/$m.modules"
		add "$WORK/gen/$m.modules" "/etc/fbvm/$m.modules"
		while read -r ko; do add "$ko" "${ko#"$MODROOT"}"; done <"$WORK/gen/$m.list"
	done
	for arg in "$@"; do
		case $arg in
		*=/*) src=${arg%%=/*} dest=/${arg#*=/} ;;
		*) src=$arg dest=/bin/$(basename "$arg") ;;
		esac
		[ -f "$src" ] || die "$src: no such file"
		add "$src" "$dest"
		if is_elf "$src"; then add_libs "$src"; fi
	done
	sort -u -k2,2 "$MANIFEST" -o "$MANIFEST"
}

# The cache key: this script, the manifest, and the content of every file in it.
key() {
	{
		cat "$0" "$MANIFEST"
		cut -f1 "$MANIFEST" | while read -r f; do sha256sum <"$f"; done
	} | sha256sum | cut -c1-32
}

# Copies file contents into a fresh tree. Only directories and relative busybox links are
# created, and every destination must resolve inside the tree: a link to a host path is refused.
build_tree() {
	tree=$(realpath "$WORK")/tree
	mkdir -p "$tree/bin" "$tree/proc" "$tree/sys" "$tree/dev" "$tree/tmp" "$tree/etc"
	while IFS="$(printf '\t')" read -r src dest; do
		dst=$tree$dest
		mkdir -p "$(dirname "$dst")"
		case $(realpath -m "$dst") in "$tree"/*) ;; *) die "$dest escapes the tree" ;; esac
		[ -L "$dst" ] && die "$dest is a link"
		cat "$src" >"$dst"
		case $dest in
		/init | /bin/*) chmod 755 "$dst" ;;
		*) if [ -x "$src" ]; then chmod 755 "$dst"; else chmod 644 "$dst"; fi ;;
		esac
	done <"$MANIFEST"
	for a in $("$BUSYBOX" --list); do
		[ -e "$tree/bin/$a" ] || ln -s busybox "$tree/bin/$a"
	done
	[ -e "$tree/sbin" ] || ln -s bin "$tree/sbin"
	mkdir -p "$tree/usr"
	ln -s ../bin "$tree/usr/bin"
	ln -s ../bin "$tree/usr/sbin"
}

manifest "$@"
KEY=$(key)
CACHED=$CACHE/initramfs/$KEY.cpio.gz
if [ ! -f "$CACHED" ]; then
	build_tree
	mkdir -p "$CACHE/initramfs"
	part=$(mktemp "$CACHE/initramfs/.part.XXXXXX")
	(cd "$tree" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$part"
	mv "$part" "$CACHED"
	# Keep the ten newest archives.
	ls -t "$CACHE"/initramfs/*.cpio.gz | tail -n +11 | while read -r old; do rm -f "$old"; done
fi
cp "$CACHED" "$OUT"
