#!/bin/sh
# tests/demo.sh — `make demo`: toolcage on built-in defaults, in a temporary
# workspace. A scripted model's calls (tests/demo/scenario.jsonl) go through
# the four stages: a read, a schema error fed back, a write, a destructive
# call denied and then approved by a scripted approver, a tool killed at its
# deadline, an output cut, escape attempts contained. Then the sandbox alone.
set -u
BUILD=${BUILD:-build}
TC=$(cd "$BUILD" && pwd)/toolcage
top=$(pwd)
ws=$(mktemp -d /tmp/toolcage-demo.XXXXXX)
trap 'rm -rf "$ws"' EXIT
cd "$ws"
printf 'hello from the workspace\nsecond line\n' > notes.txt

echo "toolcage demo — workspace $ws"
echo "== a scripted model's calls through validate, authorize, execute, render"
if ! command -v python3 >/dev/null 2>&1; then   # a bare machine: the plain table
	"$TC" replay --tools "$top/tests/demo/tools" "$top/tests/demo/scenario.jsonl"
else
"$TC" replay --json --tools "$top/tests/demo/tools" "$top/tests/demo/scenario.jsonl" |
python3 -c '
import json, sys, textwrap
for line in sys.stdin:
    r = json.loads(line)
    if "summary" in r:
        s = r["summary"]
        print("\ntotals: %d calls, %d ok, %d denied, %d other failures" % (s["calls"], s["ok"], s["denied"], s["failed"]))
        continue
    print("\n[%d] %s  decision=%s  status=%s  %d ms%s" % (r["call"], r["tool"], r["decision"], r["status"],
          r["ms"], "  (render cut)" if r["truncated"] else ""))
    lines = r["render"].splitlines()
    show = lines if len(lines) <= 6 else lines[:3] + [l for l in lines if l.startswith("[...")] + lines[-2:]
    for l in show:   # wrapped, not cut: a denial says at its end what to do
        print(textwrap.fill(l, 100, initial_indent="    ", subsequent_indent="    ",
                            break_on_hyphens=False, replace_whitespace=False) if l else "")
'
fi
echo; echo "plan.md after the approved delete: $( [ -e plan.md ] && echo still there || echo gone)"

echo; echo "== the sandbox alone: toolcage exec"
# Each command is shown quoted as a shell needs it, so that it can be pasted.
quote() { for a; do case $a in
	'' | *[!A-Za-z0-9_./:=@%+,-]*) printf " '%s'" "$(printf '%s' "$a" | sed "s/'/'\\\\''/g")" ;;
	*) printf ' %s' "$a" ;;
	esac; done; }
run() { printf '\n$ toolcage exec%s\n' "$(quote "$@")"; "$TC" exec "$@"; echo "  -> exit $?"; }
run -- sh -c 'id; grep -E "^(CapEff|NoNewPrivs|Seccomp):" /proc/self/status; echo "$(ls /proc | grep -c "^[0-9]") processes visible"'
run -- cat /etc/shadow
run -- sh -c 'echo pwned > notes.txt'
command -v python3 >/dev/null 2>&1 &&
	run -- python3 -c 'import socket; socket.create_connection(("127.0.0.1", 22))'
run -- unshare -U true
run --timeout-ms 500 -- sh -c 'setsid sleep 60 & sleep 60'
