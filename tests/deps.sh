#!/bin/sh
# Installs the Debian/Ubuntu packages in $FBRIPPLE_PACKAGES that are missing (as root, via apt-get),
# and those in $FBRIPPLE_OPTIONAL that the release has (Debian and Ubuntu name some apart).
# $FBRIPPLE_ARCH adds a foreign dpkg architecture first, for packages named like libpng-dev:arm64.
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
updated=""

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'; }
update() { [ -n "$updated" ] || $sudo apt-get update -qq >/dev/null; updated=1; }
known() { apt-cache show "$1" >/dev/null 2>&1 || { update && apt-cache show "$1" >/dev/null 2>&1; }; }

missing=""
if [ -n "$FBRIPPLE_ARCH" ] && command -v dpkg >/dev/null 2>&1 &&
   [ "$FBRIPPLE_ARCH" != "$(dpkg --print-architecture)" ] &&
   ! dpkg --print-foreign-architectures | grep -qx "$FBRIPPLE_ARCH"; then
	echo "fbripple: adding the dpkg architecture $FBRIPPLE_ARCH"
	$sudo dpkg --add-architecture "$FBRIPPLE_ARCH" && update ||
		{ echo "fbripple: could not add the dpkg architecture $FBRIPPLE_ARCH" >&2; exit 1; }
fi
for p in $FBRIPPLE_PACKAGES; do
	installed "$p" || missing="$missing $p"
done
if [ -n "$missing$FBRIPPLE_OPTIONAL" ] && ! command -v apt-get >/dev/null 2>&1; then
	[ -z "$missing" ] && exit 0
	echo "fbripple: please install:$missing" >&2
	exit 1
fi
for p in $FBRIPPLE_OPTIONAL; do
	installed "$p" || ! known "$p" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "fbripple: installing:$missing"
update && $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
	{ echo "fbripple: could not install:$missing" >&2; exit 1; }
