#!/bin/sh
# tests/bench/run.sh — `make bench`: benchmarks, not tests. Every figure is a
# median (and p99) of repeated runs, reported as a ratio to a baseline run in
# the same process or script, interleaved, because the machine is shared.
set -u
BUILD=${BUILD:-build}
TC=$(cd "$BUILD" && pwd)/toolcage
B=$BUILD/bench
N=${BENCH_N:-300}

echo "== sandbox launch (issue 2)"
"$B/bench_spawn" api "$N"

echo
echo "== CLI launch: toolcage exec vs env(1) and other jails (median / p99, ratio to env)"
ws=$(mktemp -d)
# timeout(1) forks, execs and waits: the floor of any launcher that stays to
# supervise the tool, as toolcage exec must (docs/performance.md). One
# toolcage row here: after another toolcage run it would start with warmer
# caches than a one-shot launch has; the profiles are compared below.
set -- :: env /bin/true :: timeout 30 /bin/true \
	:: "$TC" exec --profile read-only --workspace "$ws" -- /bin/true
if command -v bwrap >/dev/null 2>&1 && bwrap --unshare-all --ro-bind / / /bin/true 2>/dev/null; then
	set -- "$@" :: bwrap --unshare-all --ro-bind / / /bin/true
else
	echo "  (bwrap not installed or not usable here: apt-get install bubblewrap)"
fi
if command -v firejail >/dev/null 2>&1; then
	set -- "$@" :: firejail --quiet --noprofile /bin/true
fi
"$B/bench_spawn" cli "$((N / 3))" "$@"
echo "  targets: read-only <= 1.35x env; <= 0.5x bwrap"
echo
echo "== CLI launch by profile (each after env(1); ratio to env)"
set --
for p in read-only write network destructive; do
	set -- "$@" :: env /bin/true :: "$TC" exec --profile "$p" --workspace "$ws" -- /bin/true
done
"$B/bench_spawn" cli "$((N / 3))" "$@"
rmdir "$ws"

echo
echo "== pipeline: a built-in call end to end, and throughput (issue 4)"
"$B/bench_pipeline" "$N"

for extra in tests/bench/*.sh; do
	[ "$extra" = tests/bench/run.sh ] && continue
	echo
	sh "$extra"
done
