#!/bin/sh
# tests/bench/trace_launch.sh — `make bench`: where one `toolcage exec`
# launch spends its time, phase by phase, next to `env /bin/true`, from the
# kernel's own tracepoints (system calls, fork, exec, exit, context
# switches) in a trace instance of its own. Clock reads inside the program
# cannot see the exits: the tool's, and toolcage's own, which its caller
# waits for. Root, tracefs and python3 are needed; without them it says so
# and stops. docs/performance.md reads the figures.
set -u
BUILD=${BUILD:-build}
N=${TRACE_N:-100}
TC=$(cd "$BUILD" && pwd)/toolcage
here=$(cd "$(dirname "$0")" && pwd)
echo "== one launch, phase by phase (kernel tracepoints)"
T=/sys/kernel/tracing
[ -d $T/instances ] || T=/sys/kernel/debug/tracing
if [ "$(id -u)" != 0 ] || [ ! -d $T/instances ] || ! command -v python3 >/dev/null 2>&1; then
	echo "  (skipped: needs root, tracefs and python3)"
	exit 0
fi
I=$T/instances/toolcage-bench.$$
mkdir "$I" || exit 0
ws=$(mktemp -d)
out=$(mktemp)
cleanup() {
	echo 0 > "$I/tracing_on" 2>/dev/null
	rmdir "$I" 2>/dev/null
	rm -rf "$ws" "$out"
}
trap cleanup EXIT INT TERM
echo 32768 > "$I/buffer_size_kb"
echo mono > "$I/trace_clock"
echo 1 > "$I/options/event-fork"
for e in raw_syscalls/sys_enter raw_syscalls/sys_exit sched/sched_process_fork \
         sched/sched_process_exec sched/sched_process_exit sched/sched_switch; do
	if ! echo 1 > "$I/events/$e/enable" 2>/dev/null; then
		echo "  (skipped: this kernel has no $e tracepoint)"
		exit 0
	fi
done
# A child shell traces only itself and what it starts; the launches are
# interleaved, so that both meet the same machine.
sh -c '
	echo $$ > "$1/set_event_pid"
	echo 1 > "$1/tracing_on"
	i=0
	while [ $i -lt "$2" ]; do
		env /bin/true
		"$3" exec --profile read-only --workspace "$4" -- /bin/true
		i=$((i + 1))
	done >/dev/null
	echo 0 > "$1/tracing_on"' sh "$I" "$N" "$TC" "$ws"
cat "$I/trace" > "$out"
python3 "$here/trace_launch.py" "$out" env toolcage
