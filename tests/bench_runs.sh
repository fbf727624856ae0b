#!/bin/sh
# bench_runs.sh RUNS [bench arguments]: tests/bench RUNS times in a row, then each of its rows
# once more as the median over the runs of its ms and of its ratio to the seed port (a ratio
# is taken within its own run, so a machine that drifts between runs does not bias it), with
# the ratio's lowest and highest. The runs' whole output stays in $BENCH_RUNS_DIR (default: a
# new directory under ${TMPDIR:-/tmp}); RUNS 0 with BENCH_RUNS_DIR set prints the medians of
# the runs already there. BENCH: the bench program (default: the one beside this script).
set -eu

usage() {
	echo "usage: bench_runs.sh RUNS [WxH...] [--no-processes | --processes | --screensaver]" >&2
	echo "       BENCH_RUNS_DIR=DIR bench_runs.sh 0: the medians of the runs in DIR" >&2
	exit 2
}

runs=${1:-}
case $runs in '' | *[!0-9]*) usage ;; esac
shift
bench=${BENCH:-$(dirname "$0")/bench}	# make bench passes its build's
if [ "$runs" -eq 0 ]; then
	dir=${BENCH_RUNS_DIR:?RUNS 0 reads the runs in BENCH_RUNS_DIR}
	files=$(ls "$dir"/run*.txt 2>/dev/null) || true
	[ -n "$files" ] || { echo "bench_runs.sh: no run*.txt in $dir" >&2; exit 1; }
else
	dir=${BENCH_RUNS_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/fbripple-bench-runs-XXXXXX")}
	mkdir -p "$dir"
	files=
	i=1
	while [ "$i" -le "$runs" ]; do
		echo "run $i of $runs: $dir/run$i.txt" >&2
		"$bench" "$@" >"$dir/run$i.txt"
		files="$files $dir/run$i.txt"
		i=$((i + 1))
	done
fi

# In-process rows: the key is the first 52 columns (size, format, scene, row), then ms, the
# ratio to the seed port ("5.00x") and to the floor. Whole-process rows: 44 columns, wall ms,
# CPU ms and, on fbripple's heavy-rain row, the speed-up over the seed program.
# shellcheck disable=SC2086 # $files: the run files, split on purpose (mktemp names have no blanks)
awk -v runs="$(echo $files | wc -w)" '
function median(list, n,    v, i, j, t) {
	split(list, v, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function range(list, n,    v, i, lo, hi) {
	split(list, v, " ")
	lo = hi = v[1]
	for (i = 2; i <= n; i++) {
		if (v[i] + 0 < lo + 0) lo = v[i]
		if (v[i] + 0 > hi + 0) hi = v[i]
	}
	return sprintf("%.2f-%.2f", lo, hi)
}
function add(key, a, b, c, d) {
	if (!(key in n)) order[++keys] = key
	n[key]++
	ms[key] = ms[key] " " a
	ratio[key] = ratio[key] " " b
	third[key] = third[key] " " c
	cpu[key] = cpu[key] " " d
}
FNR == 1 { split("", plain) }	# each run divides by its own rotate 0
/^size +format/ && !header { header = $0 }
/^[0-9]+x[0-9]+ / && $0 ~ /x +[0-9.]+x/ {
	split(substr($0, 53), f, " ")
	sub(/x$/, "", f[2]); sub(/x$/, "", f[3]); sub(/,$/, "", f[5])
	add(substr($0, 1, 52), f[1], f[2], f[3], f[4] == "(CPU" ? f[5] : "")
	# a rotated row over the unrotated one of its run: the ratio of the rotation goal
	scene = substr($0, 1, 31); row = substr($0, 32, 20); sub(/ +$/, "", row)
	if (row == "classic c1")
		plain[scene] = f[1]
	else if (row ~ /^classic c1 rot/ && plain[scene] > 0)
		turned[substr($0, 1, 52)] = turned[substr($0, 1, 52)] " " f[1] / plain[scene]
}
/^saver / {	# the screensaver table: the median of each column, the range of each ratio
	skey = sprintf("%-10s %-3s %-6s", $2, $3, $4)
	if (!(skey in sn)) sorder[++skeys] = skey
	sn[skey]++
	for (i = 5; i <= 11; i++) {
		v = $i
		sub(/x$/, "", v)
		sv[skey, i] = sv[skey, i] " " v
	}
	next
}
/^(seed program|fbripple --frames|exec to first)/ {
	split(substr($0, 45), f, " ")
	sub(/x$/, "", f[3])
	add(substr($0, 1, 44), f[1], f[3], f[2])
	whole[substr($0, 1, 44)] = 1
}
END {
	printf "medians of %d runs of tests/bench (ratios within each run, their range after)\n\n", runs
	printf "%-52s %9s %9s %11s %9s\n", substr(header, 1, 52), "ms/frame", "vs seed", "range", "vs floor"
	for (k = 1; k <= keys; k++) {
		key = order[k]
		if (key in whole) {
			if (!printed_whole++)
				printf "\nwhole processes (wall ms, CPU ms, speed-up over the seed program)\n"
			printf "%-44s %10.1f %10.1f", key, median(ms[key], n[key]), median(third[key], n[key])
			if (ratio[key] ~ /[0-9]/)
				printf " %8.2fx %11s", median(ratio[key], n[key]), range(ratio[key], n[key])
			printf "\n"
			continue
		}
		printf "%-52s %9.3f %8.2fx %11s %8.1fx", key, median(ms[key], n[key]),
		       median(ratio[key], n[key]), range(ratio[key], n[key]), median(third[key], n[key])
		if (cpu[key] ~ /[0-9]/)
			printf "  (CPU %.3f)", median(cpu[key], n[key])
		if (key in turned)
			printf "  (%.2fx rot 0, %s)", median(turned[key], n[key]),
			       range(turned[key], n[key])
		printf "\n"
	}
	if (skeys) {
		printf "\nscreensaver, CPU ms per second (medians; the ratios over live, their range)\n"
		printf "%-10s %-3s %-6s %8s %8s %6s %11s %8s %8s %6s %11s %9s\n", "size", "bpp", "scene",
		       "1 thr", "live", "ratio", "range", "all thr", "live", "ratio", "range", "seed prog"
	}
	for (k = 1; k <= skeys; k++) {
		key = sorder[k]
		printf "%s %8.1f %8.1f %5.2fx %11s %8.1f %8.1f %5.2fx %11s %9.1f\n", key,
		       median(sv[key, 5], sn[key]), median(sv[key, 6], sn[key]),
		       median(sv[key, 7], sn[key]), range(sv[key, 7], sn[key]),
		       median(sv[key, 8], sn[key]), median(sv[key, 9], sn[key]),
		       median(sv[key, 10], sn[key]), range(sv[key, 10], sn[key]),
		       median(sv[key, 11], sn[key])
	}
}' $files
