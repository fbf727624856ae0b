#!/bin/sh
# Runs each cmocka test program given as an argument and prints one closing line for them all.
# FBRIPPLE_VALGRIND=1 runs each under valgrind, failing on any error it reports.
# FBRIPPLE_RUNNER is a command to run each through (tests/arm64.sh sets qemu-user).
passed=0 failed=0 skipped=0 broken=""
for t in "$@"; do
	if [ "${FBRIPPLE_VALGRIND:-0}" = 1 ]; then
		out=$(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
			--trace-children=no "$t" 2>&1)
	else
		out=$($FBRIPPLE_RUNNER "$t" 2>&1)
	fi
	rc=$?
	printf '%s\n' "$out"
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
	s=$(printf '%s\n' "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		failed=$((failed + 1)); broken="$broken $t(exit $rc)"
	fi
done
[ -n "$broken" ] && echo "test programs that died:$broken"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
