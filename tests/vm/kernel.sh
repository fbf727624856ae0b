#!/bin/sh
# Fetches Debian's kernel package into a cache (never installs it) and extracts an ELF vmlinux.
# Usage: tests/vm/kernel.sh   prints KVER=, BZIMAGE=, VMLINUX=, MODROOT= and writes them to
# $CACHE/kernel.env; CACHE is ${FBRIPPLE_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fbripple-vm}.
set -eu
export PATH="$PATH:/usr/sbin:/sbin"

CACHE=${FBRIPPLE_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fbripple-vm}
ENV=$CACHE/kernel.env

die() { echo "kernel.sh: $*" >&2; exit 1; }

# Prints the cached kernel and succeeds when everything it names is still there.
cached() {
	[ -f "$ENV" ] || return 1
	# shellcheck disable=SC1090
	. "$ENV"
	[ -f "$BZIMAGE" ] && [ -f "$VMLINUX" ] && [ -f "$MODROOT/lib/modules/$KVER/modules.dep" ] \
		|| return 1
	cat "$ENV"
}

# apt-get download, retrying once after apt-get update when the package is unknown.
download() {
	apt-get -q -o APT::Sandbox::User=root download "$@" >/dev/null 2>&1 && return 0
	[ "$(id -u)" = 0 ] || die "apt-get download $* failed (run 'apt-get update' as root?)"
	echo "kernel.sh: apt-get download $* failed; running apt-get update" >&2
	apt-get -q update >/dev/null || die "apt-get update failed"
	apt-get -q -o APT::Sandbox::User=root download "$@" >/dev/null || die "apt-get download $* failed"
}

# Little-endian unsigned integer of $3 bytes at offset $2 of file $1.
le() { od -An -tu"$3" -j "$2" -N "$3" "$1" | tr -d ' '; }

# Decompresses the bzImage payload found through the boot protocol header (payload_offset).
extract_vmlinux() {
	img=$1 out=$2
	[ "$(od -An -c -j 514 -N 4 "$img" | tr -d ' ')" = HdrS ] || die "$img: not a bzImage"
	sects=$(le "$img" 497 1)
	[ "$sects" -eq 0 ] && sects=4
	off=$(( (sects + 1) * 512 + $(le "$img" 584 4) ))
	magic=$(od -An -tx1 -j "$off" -N 6 "$img" | tr -d ' ')
	case $magic in
	fd377a585a00*) dec="xz -dc" ;;
	1f8b*) dec="gzip -dc" ;;
	28b52ffd*) dec="zstd -dc" ;;
	5d0000*) dec="xz -dc --format=lzma" ;;
	*) die "$img: unknown payload compression (magic $magic)" ;;
	esac
	# The payload is followed by other data; decompressors complain about it but write all output.
	tail -c +"$((off + 1))" "$img" | $dec >"$out.tmp" 2>/dev/null || true
	[ "$(od -An -c -N 4 "$out.tmp" | tr -d ' ')" = 177ELF ] || die "$img: payload is not an ELF"
	mv "$out.tmp" "$out"
}

fetch() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/fbripple-kernel.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	cd "$tmp"
	download linux-image-amd64
	dep=$(dpkg-deb -f linux-image-amd64_*.deb Depends | sed -n 's/^\(linux-image-[^ ,]*\).*/\1/p')
	[ -n "$dep" ] || die "cannot read the dependency of linux-image-amd64"
	download "$dep"
	KVER=${dep#linux-image-}
	root=$CACHE/$KVER
	rm -rf "$root.new"
	dpkg -x "$tmp/$dep"_*.deb "$root.new"
	depmod -b "$root.new" "$KVER"
	extract_vmlinux "$root.new/boot/vmlinuz-$KVER" "$root.new/vmlinux"
	rm -rf "$root"
	mv "$root.new" "$root"
	cat >"$ENV.tmp" <<EOF
KVER=$KVER
BZIMAGE=$root/boot/vmlinuz-$KVER
VMLINUX=$root/vmlinux
MODROOT=$root
EOF
	mv "$ENV.tmp" "$ENV"
	cat "$ENV"
}

# One fetch at a time: concurrent test runs wait for the first one, then find the cache.
cached && exit 0
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock -w 900 9 || die "timed out waiting for $CACHE/.lock"
cached || fetch
