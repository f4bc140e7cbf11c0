#!/bin/sh
# core_pipe.sh — a tool that crashes starts no core dump helper on the host.
# Where kernel.core_pattern pipes to a program (systemd-coredump, apport),
# the kernel ignores RLIMIT_CORE 0 and starts that program as root, outside
# the call's cgroup and deadline, with the whole core of the tool on its
# stdin; 1 is the value at which it starts none. This test points
# core_pattern at a helper of its own for its length (restored at exit),
# crashes a program (SIGSEGV, comm named for the run) through toolcage exec
# (read-only and, through a spare, write; as root and as uid 65534) and
# through run_command, once as it is and once after lowering RLIMIT_CORE to
# 0 itself, and checks that the helper never saw one of them. The same
# crash run unconfined with RLIMIT_CORE 0 is the control: the helper must
# see it, or the test proves nothing.
# Exit 0 pass, 77 skip (the reason is the last line), 1 fail.
set -u
TC=${TOOLCAGE:?}
BUILD=${BUILD:-build}
[ "$(id -u)" = 0 ] || { echo "skip: setting kernel.core_pattern needs root"; exit 77; }
PY=/usr/bin/python3 # the one a read-only profile can run
[ -x $PY ] || { echo "skip: $PY is needed"; exit 77; }
command -v setpriv >/dev/null 2>&1 || { echo "skip: setpriv is needed"; exit 77; }
CP=/proc/sys/kernel/core_pattern
old=$(cat $CP) || { echo "skip: cannot read $CP"; exit 77; }

tmp=$(mktemp -d "$(cd "$BUILD" && pwd)/core-pipe.XXXXXX") || exit 1
restore() { printf '%s\n' "$old" > $CP; }
trap 'restore; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
chmod 755 "$tmp"
mkdir "$tmp/ws"
chown 65534:65534 "$tmp/ws"
# The helper: one line per core it is given (the crashed process's comm,
# the limit the kernel passed, the bytes piped). Its own process runs as
# root in the host's namespaces.
cat > "$tmp/helper" <<EOF
#!/bin/sh
n=\$(wc -c)
echo "\$1 limit=\$2 bytes=\$n" >> "$tmp/log"
EOF
chmod 755 "$tmp/helper"
: > "$tmp/log"
cat > "$tmp/ws/crash.py" <<'EOF'
# crash.py NAME [lower]: named NAME, RLIMIT_CORE lowered to 0 with
# "lower", then a SIGSEGV of a real fault (which kills even a pid 1)
import ctypes, resource, sys
libc = ctypes.CDLL(None)
libc.prctl(15, sys.argv[1].encode())  # PR_SET_NAME
if len(sys.argv) > 2:
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
print("core limit", resource.getrlimit(resource.RLIMIT_CORE), flush=True)
ctypes.string_at(0)
EOF
chmod 644 "$tmp/ws/crash.py"
printf '{"policy": {"levels": {"destructive": "allow"}}}\n' > "$tmp/allow.json"
printf '|%s %%e %%c\n' "$tmp/helper" > $CP 2>/dev/null ||
	{ echo "skip: cannot write $CP (read-only /proc/sys?)"; exit 77; }

tag=$$
i=0
names=""
run() { # how... : crashes once as is and once lowered, each under its own name
	for lower in "" lower; do
		i=$((i + 1))
		name="tcc$tag-$i"
		names="$names $name"
		"$@" "$name" $lower > "$tmp/out.$i" 2>&1
	done
}
# crash.py's arguments come last: through exec, or in run_command's argv
ex_ro_root() { (cd "$tmp/ws" && "$TC" exec --profile read-only --workspace . -- "$PY" crash.py "$@"); }
ex_wr_spare() { (cd "$tmp/ws" && "$TC" exec --spare --profile write --workspace . -- "$PY" crash.py "$@"); }
ex_ro_nobody() {
	(cd "$tmp/ws" && setpriv --reuid 65534 --regid 65534 --clear-groups -- \
		"$TC" exec --profile read-only --workspace . -- "$PY" crash.py "$@")
}
call_run() {
	args=$(printf '{"argv": ["%s", "crash.py", "%s"%s]}' $PY "$1" "${2:+, \"$2\"}")
	"$TC" call -c "$tmp/allow.json" -w "$tmp/ws" run_command "$args"
}
run ex_ro_root
run ex_wr_spare
run ex_ro_nobody
run call_run

# The control: unconfined, RLIMIT_CORE lowered to 0, the same crash.
control="tcc$tag-ctl"
{ (cd "$tmp/ws" && exec "$PY" crash.py "$control" lower) > "$tmp/out.ctl" 2>&1; } 2>/dev/null
n=0
while ! grep -q "^$control " "$tmp/log" && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
sleep 0.5 # the helpers of the runs above, were any started
restore

fail=0
if ! grep -q "^$control " "$tmp/log"; then
	echo "FAIL control: the helper never saw an unconfined crash with RLIMIT_CORE 0"
	echo "  (core_pattern was set to '|$tmp/helper %e %c'; log: $(cat "$tmp/log"))"
	fail=1
fi
k=0
for name in $names; do
	k=$((k + 1))
	if ! grep -q 'core limit' "$tmp/out.$k"; then
		echo "FAIL $name: the program did not run: $(tail -3 "$tmp/out.$k")"
		fail=1
	elif grep -q "^$name " "$tmp/log"; then
		echo "FAIL $name: a core dump helper was started for the tool: $(grep "^$name " "$tmp/log")"
		echo "  its output: $(tail -3 "$tmp/out.$k")"
		fail=1
	fi
done
[ $fail = 0 ] && echo "pass: no helper for $k crashes in the sandbox; the unconfined control started one"
exit $fail
