# fbvm.sh - helpers sourced as /lib/fbvm.sh before each case script in the test VM (busybox ash).
# shellcheck shell=sh
# fd 3 is the raw channel to the host harness (/dev/ttyS1): one line per message.

# say TEXT...: one line to the host (vm_expect waits for it).
say() { echo "$*" >&3; }

# hear VAR: one line from the host (vm_send) into VAR.
hear() { read -r "$1" <&3; }

# fbinfo [fbN]: reports the sysfs attributes of a framebuffer as "fbinfo KEY=VALUE" lines.
fbinfo() {
	d=/sys/class/graphics/${1:-fb0}
	for k in name bits_per_pixel virtual_size stride; do
		say "fbinfo $k=$(cat "$d/$k" 2>/dev/null)"
	done
}
