#!/bin/sh
# tests/demo.sh — `make demo`: toolcage on built-in defaults, in a temporary
# workspace. Shows a few tools confined and a few escapes refused.
set -u
BUILD=${BUILD:-build}
TC=$(cd "$BUILD" && pwd)/toolcage
ws=$(mktemp -d /tmp/toolcage-demo.XXXXXX)
trap 'rm -rf "$ws"' EXIT
cd "$ws"
printf 'hello from the workspace\n' > notes.txt

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
run() { step "toolcage exec $*"; "$TC" exec "$@"; echo "  -> exit $?"; }

echo "toolcage demo — workspace $ws"
run -- cat notes.txt
run -- sh -c 'id; grep -E "^(CapEff|NoNewPrivs|Seccomp):" /proc/self/status'
run -- sh -c 'echo "pid $$ of $(ls /proc | grep -c "^[0-9]") visible processes"'
echo; echo "Escapes the sandbox refuses:"
run -- cat /etc/shadow
run -- sh -c 'echo pwned > notes.txt'
run --profile write -- sh -c 'echo changed > notes.txt && cat notes.txt'
run -- sh -c 'echo x > /tmp/host-file && ls /tmp'
run -- python3 -c 'import socket; socket.create_connection(("127.0.0.1", 22))'
run -- unshare -U true
run --timeout-ms 500 -- sh -c 'setsid sleep 60 & sleep 60'
step "toolcage exec --json -- sh -c 'yes | head -c 100000000'"
"$TC" exec --json -- sh -c 'yes | head -c 100000000' | python3 -c '
import json, sys
r = json.load(sys.stdin)
print("  stdout_bytes=%d kept=%d truncated=%s wall_ms=%d max_rss_kb=%d" % (
    r["stdout_bytes"], len(r["stdout"]), r["stdout_truncated"], r["wall_ms"], r["max_rss_kb"]))'
step "toolcage check"
"$TC" check
