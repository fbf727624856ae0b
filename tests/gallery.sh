#!/bin/sh
# gallery.sh - the README's gallery: one picture per engine, and one with walls, each a touch at
# 1920x1080 after one second (the walls 2 s), drawn by fbripple and set side by side by tests/strip.
# Usage: gallery.sh FBRIPPLE STRIP OUT.png
set -eu
bin=$1 strip=$2 out=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
drops="--drop 700,420 --drop 1250,700"

shot() {	# shot NAME FRAMES CONFIG-TEXT
	printf '%s\n' "$3" >"$tmp/$1.conf"
	"$bin" -c "$tmp/$1.conf" --fbdev "$tmp/fb" --size 1920x1080 $drops --frames "$2" \
		--screenshot "$tmp/$1.png" 2>/dev/null
}

# A grey pool with a dark breakwater across it, open in two gaps: the picture and the walls.
reef() {
	w=192 h=108
	printf 'P5\n%d %d\n255\n' $w $h
	y=0
	while [ $y -lt $h ]; do
		if [ $y -ge 30 ] && [ $y -lt 38 ] || [ $y -ge 70 ] && [ $y -lt 78 ]; then
			printf '\240%.0s' $(seq $w)
		else
			printf '\240%.0s' $(seq 120)
			printf '\036%.0s' $(seq 6)
			printf '\240%.0s' $(seq $((w - 126)))
		fi
		y=$((y + 1))
	done
}
reef >"$tmp/reef.pgm"

shot classic 60 'water: { engine = "classic"; };'
shot hooke 60 'water: { engine = "hooke"; };'
shot spring 60 'water: { engine = "spring"; };'
# one stone before the breakwater, 2 s later: reflected before it, bent through the gaps
drops="--drop 1020,540"
shot walls 120 "splash: { image = \"$tmp/reef.pgm\"; scale = \"stretch\"; };
water: { obstacles = \"$tmp/reef.pgm\"; };"
"$strip" "$out" "$tmp/classic.png" "$tmp/hooke.png" "$tmp/spring.png" "$tmp/walls.png"
