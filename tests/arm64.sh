#!/bin/sh
# Runs arm64 test programs under qemu-user: arm64.sh FBRIPPLE TEST... (make check-arm64).
# No binfmt_misc needed: each program, and the daemon that the headless tests start through
# $FBRIPPLE_BIN, is handed to qemu-aarch64 by name.
bin=$1
shift
qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64) ||
	{ echo "fbripple: no qemu-aarch64 (Debian package qemu-user-static)" >&2; exit 1; }
# The loader and libc of libc6:arm64 (multiarch, in /), which match each other: with
# -L /usr/aarch64-linux-gnu the cross toolchain's older ld.so meets the multiarch libc.so.6, and
# a forked child spins forever.
sysroot=/
# the Raspberry Pi 4's core by default (the Pi 5's is cortex-a76; qemu's richest is max)
export QEMU_CPU="${QEMU_CPU:-cortex-a72}"
wrapper=$(dirname "$bin")/fbripple-qemu
printf '#!/bin/sh\nexec %s -L %s %s "$@"\n' "$qemu" "$sysroot" "$(realpath "$bin")" >"$wrapper" &&
	chmod +x "$wrapper" || exit 1
# a bound on each program, so that a hang under emulation fails the run instead of stalling CI
export FBRIPPLE_BIN="$wrapper" FBRIPPLE_RUNNER="timeout -k 10 900 $qemu -L $sysroot"
exec sh tests/run-tests.sh "$@"
