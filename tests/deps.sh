#!/bin/sh
# Installs the Debian/Ubuntu packages in $FBRIPPLE_PACKAGES that are missing (as root, via apt-get).
missing=""
for p in $FBRIPPLE_PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
	echo "fbripple: please install:$missing" >&2
	exit 1
fi
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
echo "fbripple: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null && $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
	{ echo "fbripple: could not install:$missing" >&2; exit 1; }
