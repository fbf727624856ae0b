#!/bin/sh
# `make run`: fbripple in the foreground on /dev/fb0, or a headless demo PNG where there is none.
bin=${1:-./fbripple}
conf=/etc/fbripple.conf
[ -e "$conf" ] || conf=etc/fbripple.conf
if [ -c /dev/fb0 ]; then
	echo "fbripple: running on /dev/fb0 with $conf; Ctrl-C to stop"
	exec "$bin" -c "$conf"
fi
out=fbripple-demo.png
echo "fbripple: no framebuffer at /dev/fb0; rendering a headless demo to $out instead"
exec "$bin" -c "$conf" --fbdev "${TMPDIR:-/tmp}/fbripple-demo.raw" --size 960x540 \
	--drop 300,200 --drop 640,330 --frames 45 --screenshot "$out"
