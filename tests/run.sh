#!/bin/sh
# tests/run.sh — what `make test` runs: every cmocka unit binary, every
# integration script, then the escape suite. A script exits 0 (pass), 77
# (skip: it prints why) or anything else (fail). With TC_MUST_WORK=1 (CI) a
# skip is a failure: a live test that cannot run must not pass silently.
# A test that leaves a process of this build's toolcage running fails, and
# so does one that runs longer than TC_TEST_TIMEOUT seconds (1200 unless
# set; the longest, the escape suite under ASan, takes a few minutes): its
# whole process group is killed and the rest still run, so one hang costs
# CI a test, not its time budget. Each result says how long it took. A
# test's standard input is /dev/null, as in CI: run from a terminal, a
# test in timeout's own process group would otherwise stop on reading it.
set -u
BUILD=${BUILD:-build}
export BUILD
TOOLCAGE=$(cd "$BUILD" && pwd)/toolcage
export TOOLCAGE
top=$(pwd)
pass=0 fail=0 skip=0 failed=""
limit=${TC_TEST_TIMEOUT:-1200}

# Processes of this build's toolcage still running: a test must leave
# nothing behind (a server it started, an orphaned spare or worker).
left_running() {
	find /proc -mindepth 2 -maxdepth 2 -name exe -lname "$(readlink -f "$TOOLCAGE")" 2>/dev/null |
		sed 's#^/proc/\([0-9]*\)/exe$#\1#' | tr '\n' ' '
}

run() { # name cmd...
	name=$1; shift
	t0=$(date +%s)
	out=$(timeout -k 10 "$limit" "$@" 2>&1 </dev/null); rc=$?
	took=$(($(date +%s) - t0))
	if [ $rc = 124 ] || { [ $rc = 137 ] && [ $took -ge "$limit" ]; }; then
		out="$out
timed out: still running after $limit s (TC_TEST_TIMEOUT), killed"
		rc=124
	fi
	# what the test killed may take a moment to go
	n=0 left=$(left_running)
	while [ -n "$left" ] && [ $n -lt 30 ]; do
		sleep 0.1; n=$((n + 1)); left=$(left_running)
	done
	if [ -n "$left" ]; then
		out="$out
left running after the test: $(for p in $left; do printf '%s: %s; ' "$p" "$(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null)"; done)"
		kill -9 $left 2>/dev/null
		[ $rc = 0 ] || [ $rc = 77 ] && rc=1
	fi
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $name (${took} s)" ;;
	77) if [ "${TC_MUST_WORK:-0}" = 1 ]; then
		fail=$((fail + 1)); failed="$failed $name"
		echo "FAIL $name (skipped, but TC_MUST_WORK=1; ${took} s)"; echo "$out" | tail -20
	    else
		skip=$((skip + 1)); echo "SKIP $name: $(echo "$out" | tail -1)"
	    fi ;;
	*) fail=$((fail + 1)); failed="$failed $name"
	   echo "FAIL $name (exit $rc, ${took} s)"; echo "$out" | tail -40 ;;
	esac
}

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	run "unit/$(basename "$t")" "$t"
done
for t in tests/integration/*.sh; do
	[ -f "$t" ] || continue
	run "integration/$(basename "$t" .sh)" sh "$t"
done
if [ -f tests/escape/run.sh ]; then
	run "escape" sh tests/escape/run.sh
	# TC_ESCAPE_SPARE_IDS (make asan: root) narrows the spare pass to
	# those identities; the first pass still runs as every one.
	if [ -n "${TC_ESCAPE_SPARE_IDS:-}" ] && [ "$(id -u)" = 0 ]; then
		run "escape-spare" sh tests/escape/run.sh --spare --ids "$TC_ESCAPE_SPARE_IDS"
	else
		run "escape-spare" sh tests/escape/run.sh --spare
	fi
fi

cd "$top"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ] || { echo "failed:$failed"; exit 1; }
