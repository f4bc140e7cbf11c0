#!/bin/sh
# tests/bench/run.sh — `make bench`: benchmarks, not tests. Every figure is a
# median (and p99) of repeated runs, reported as a ratio to a baseline run in
# the same process or script, interleaved, because the machine is shared.
set -u
BUILD=${BUILD:-build}
TC=$(cd "$BUILD" && pwd)/toolcage
B=$BUILD/bench
N=${BENCH_N:-300}
# A benchmark that fails is named at the end and makes the run fail: a
# broken benchmark must not pass for a slow one
# (tests/integration/bench_runs.sh runs this script at its smallest sizes).
failed=""
bench() {
	"$@" && return
	rc=$?
	echo "  FAILED (exit $rc): $*"
	failed="$failed
  $*"
}

echo "== sandbox launch"
bench "$B/bench_spawn" api "$N"

echo
echo "== the timeline of a launch: when the child ends each step of its setup"
bench "$B/bench_spawn" timeline "$((N / 3))"

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
bench "$B/bench_spawn" cli "$((N / 3))" "$@"
echo "  targets: read-only <= 1.35x env; <= 0.5x bwrap"
echo
echo "== CLI launch by profile (each after env(1); ratio to env)"
set --
for p in read-only write network destructive; do
	set -- "$@" :: env /bin/true :: "$TC" exec --profile "$p" --workspace "$ws" -- /bin/true
done
bench "$B/bench_spawn" cli "$((N / 3))" "$@"

echo
echo "== the network profile against read-only (ratio to read-only; target <= 1.3x)"
bench "$B/bench_spawn" cli "$((N / 3))" :: "$TC" exec --profile read-only --workspace "$ws" -- /bin/true \
	:: "$TC" exec --profile network --workspace "$ws" -- /bin/true
# The network profile adds a network namespace of the call's own, its
# routes and listeners, sent to the supervisor (docs/network.md); a spare
# (serve, replay) makes them ahead of the call.
bench "$B/bench_spawn" api "$N" read-only network
bench "$B/bench_spawn" api "$N" network

echo
echo "== what the walls cost: read-only from a file, then without one wall (ratio to env)"
# A profile from a file is parsed at each launch (a built-in one is
# compiled in), so the variants are compared with read-only from a file.
# Each variant leaves out one thing a launch must do; none ships.
pd=$(mktemp -d)
ro=profiles/read-only.json
no_cgroups() { sed -e '/"processes":/d' -e '/"memory_mb":/d'; }
no_hidden_paths() { sed -e '/"hidden": \[/,/\]/c\    "hidden": [],'; }
no_pid_namespace() { sed -e '/"namespaces": \[/,/\]/c\  "namespaces": ["mount", "uts"],'; }
cp "$ro" "$pd/read-only.json"
no_cgroups < "$ro" > "$pd/no-cgroups.json"
no_hidden_paths < "$ro" > "$pd/no-hidden-paths.json"
no_pid_namespace < "$ro" > "$pd/no-pid-namespace.json"
no_cgroups < "$ro" | no_hidden_paths | no_pid_namespace > "$pd/none-of-the-three.json"
set -- :: env /bin/true
for f in read-only no-cgroups no-hidden-paths no-pid-namespace none-of-the-three; do
	if ! cmp -s "$ro" "$pd/$f.json" || [ "$f" = read-only ]; then
		"$TC" exec --profile "$pd/$f.json" --workspace "$ws" -- /bin/true &&
			set -- "$@" :: "$TC" exec --profile "$pd/$f.json" --workspace "$ws" -- /bin/true
	fi
done
bench "$B/bench_spawn" cli "$((N / 3))" "$@"
rm -r "$pd"
rmdir "$ws"

echo
echo "== egress: proxy throughput against a direct loopback copy"
bench "$B/bench_egress" "${BENCH_EGRESS_MB:-256}" "${BENCH_EGRESS_ROUNDS:-7}"
# A host whose congestion control paces (bbr) paces the direct copy, a
# program of the host's, while the proxy's hops over loopback are unpaced
# (docs/performance.md, pacing): the same bench again in a network
# namespace of its own at reno, where nothing paces, as under cubic (the
# kernel's default), so the relay against an unpaced copy is in the run.
cc=$(sysctl -n net.ipv4.tcp_congestion_control 2>/dev/null)
if [ -n "$cc" ] && [ "$cc" != reno ] && [ "$cc" != cubic ] && [ "$(id -u)" = 0 ] &&
	command -v unshare >/dev/null 2>&1 && command -v ip >/dev/null 2>&1; then
	echo "  the same in a network namespace of the bench's own at reno (this host's is $cc):"
	bench unshare -n sh -c 'ip link set lo up && sysctl -q -w net.ipv4.tcp_congestion_control=reno &&
		exec "$@"' sh "$B/bench_egress" "${BENCH_EGRESS_MB:-256}" "${BENCH_EGRESS_ROUNDS:-7}"
fi

echo
echo "== pipeline: a built-in call end to end, and throughput"
bench "$B/bench_pipeline" "$N"

for extra in tests/bench/*.sh; do
	[ "$extra" = tests/bench/run.sh ] && continue
	echo
	bench sh "$extra"
done
if [ -n "$failed" ]; then
	echo
	echo "benchmarks that failed:$failed"
	exit 1
fi
