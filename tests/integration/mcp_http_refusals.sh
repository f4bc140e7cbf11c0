#!/bin/sh
# tests/integration/mcp_http_refusals.sh — `serve --http` on loopback
# without a token refuses other users' connections, and a flood of them
# grows the audit log by a bounded number of lines: the first refusal of
# a uid alone (connection-refused), the rest counted in one
# connections-refused line per window and one at shutdown (final), the
# counts adding up to the refusals made; a uid quiet for a whole window is
# written alone again; past the table of uids, refusals are counted as
# "others". Requests come from uids 65534 and 60000-60039 (setpriv).
# Exit 0 pass, 77 skip (not root, no setpriv, curl or libmicrohttpd), else fail.
set -u
. tests/lib/wait.sh
. tests/lib/http.sh
TC=${TOOLCAGE:-build/toolcage}
case $TC in /*) ;; *) TC=$(pwd)/$TC ;; esac
[ "$(id -u)" = 0 ] || { echo "skip: requests of other uids need root"; exit 77; }
for p in setpriv curl python3; do
	command -v $p >/dev/null || { echo "skip: no $p"; exit 77; }
done
# A python uid 65534 can run (not a shim under root's home).
PY=
for c in /usr/bin/python3 "$(python3 -c 'import sys; print(sys.executable)')"; do
	if setpriv --reuid 65534 --regid 65534 --clear-groups -- "$c" -c '' 2>/dev/null; then
		PY=$c
		break
	fi
done
[ -n "$PY" ] || { echo "skip: no python3 that uid 65534 can run"; exit 77; }
WINDOW_S=10 # HTTP_REFUSAL_SUMMARY_MS
UIDS_MAX=32 # HTTP_REFUSAL_UIDS
d=$(mktemp -d /tmp/tc-refusals.XXXXXX) || exit 1
chmod 755 "$d"
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$d"' EXIT INT TERM
mkdir "$d/ws"
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

start() { # AUDIT: a server on a free loopback port; sets pid and port
	"$TC" serve --workspace "$d/ws" --http 127.0.0.1:0 --audit "$1" </dev/null \
		>"$d/out" 2>"$d/err" &
	pid=$!
	http_port "$d/err" "$pid"
}
stop() {
	kill -TERM "$pid"
	wait "$pid" 2>/dev/null
	pid=
}
INIT='{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion":
"2025-06-18", "capabilities": {}, "clientInfo": {"name": "refusals", "version": "1"}}}'
# refused UID N: N requests from UID, each on a fresh connection; prints
# how many were answered 403, then any other status.
refused() {
	setpriv --reuid "$1" --regid "$1" --clear-groups -- "$PY" -c '
import http.client, sys
n403, other = 0, []
for _ in range(int(sys.argv[2])):
    c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=30)
    c.request("POST", "/mcp", body=sys.argv[3].encode(), headers={
        "Content-Type": "application/json", "Connection": "close",
        "Accept": "application/json, text/event-stream"})
    r = c.getresponse()
    r.read()
    if r.status == 403:
        n403 += 1
    else:
        other.append(r.status)
    c.close()
print(n403, *other)' "$port" "$2" "$INIT" 2>&1
}
# tally AUDIT: "FULL SUPPRESSED SUMMARIES FINALS OTHERS LINES" of the refusal lines.
tally() {
	"$PY" - "$1" <<'PY'
import json, sys
full = sup = summaries = finals = others = lines = 0
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["event"] == "connection-refused":
        full += 1; lines += 1
    elif e["event"] == "connections-refused":
        summaries += 1; lines += 1
        n = sum(u["suppressed"] for u in e["by_uid"]) + e.get("others", 0)
        assert n == e["suppressed"], f"by_uid and others do not add up: {e}"
        sup += e["suppressed"]; finals += e.get("final", False); others += e.get("others", 0)
print(full, sup, summaries, finals, others, lines)
PY
}

# 1. A flood from one uid: one line alone, the rest in the windows'
# summaries (one per window at most, so the burst's length bounds them).
audit=$d/audit.jsonl
start "$audit"
n=200
t0=$(date +%s)
out=$(refused 65534 $n)
[ "$out" = $n ] && ok "$n requests of uid 65534: 403 each" || bad "not refused: $out"
# The summaries come as windows close: all of the burst's, 60 s at most.
tallied() { set -- $(tally "$audit"); [ "$2" -ge $((n - 1)) ]; }
wait_until 60 tallied
windows=$((($(date +%s) - t0) / WINDOW_S + 1))
set -- $(tally "$audit")
[ "$1 $2 $4" = "1 $((n - 1)) 0" ] && [ "$3" -ge 1 ] && [ "$3" -le "$windows" ] &&
	ok "$n refusals: 1 line alone, $3 summaries ($windows windows at most) of $2 more" ||
	bad "after the burst: full $1, suppressed $2, summaries $3, finals $4 (want 1 $((n - 1)) 1..$windows 0)"
grep -q '"connections-refused".*"by_uid":\[{"suppressed":[0-9]*,"uid":65534}\]' "$audit" &&
	ok "the summary counts by uid" || bad "the summary: $(grep '"connections-refused"' "$audit")"

# The server's own user is still served, and not counted.
code=$(curl -s -o /dev/null -w "%{http_code}" -H "Content-Type: application/json" \
	-H "Accept: application/json, text/event-stream" -d "$INIT" "http://127.0.0.1:$port/mcp")
[ "$code" = 200 ] && ok "the server's own user is served" || bad "own user: HTTP $code"

# 2. Quiet for a whole window: the uid's next refusal is written alone again.
sleep $((WINDOW_S + 2))
m=100
out=$(refused 65534 $m)
[ "$out" = $m ] || bad "not refused: $out"
stop
set -- $(tally "$audit")
[ "$1 $2 $4" = "2 $((n - 1 + m - 1)) 1" ] && [ $(($1 + $2)) -eq $((n + m)) ] &&
	ok "after a quiet window: alone again; at shutdown a final summary; $((n + m)) refusals in $6 lines" ||
	bad "second burst: full $1, suppressed $2, summaries $3, finals $4 (want 2 $((n - 1 + m - 1)) _ 1)"
tail -1 "$audit" | grep -q '"connections-refused".*"final":true' &&
	ok "the final summary is the last line" || bad "last line: $(tail -1 "$audit")"

# 3. More uids than the table holds: the table's worth alone, the rest as
# others, memory fixed.
audit=$d/audit2.jsonl
start "$audit"
k=$((UIDS_MAX + 8))
# All in one window (a uid leaves the table after a window it was not
# refused in): one process forks a child per uid, as a python start per
# uid took longer than a window on a loaded machine. Its 40 uids at once
# stay within the connections other users may hold together (64,
# HTTP_FOREIGN_CONNECTIONS), past which one is ended without its 403.
# Prints the uids not refused twice.
out=$("$PY" - "$port" "$k" "$INIT" <<'PY'
import http.client, os, sys
port, k, body = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].encode()
kids = {}
for uid in range(60000, 60000 + k):
    pid = os.fork()
    if pid == 0:
        n = 0
        try:
            os.setgroups([]); os.setresgid(uid, uid, uid); os.setresuid(uid, uid, uid)
            for _ in range(2):
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                c.request("POST", "/mcp", body=body, headers={
                    "Content-Type": "application/json", "Connection": "close",
                    "Accept": "application/json, text/event-stream"})
                r = c.getresponse(); r.read(); c.close()
                n += r.status == 403
        finally:
            os._exit(n)
    kids[pid] = uid
bad = []
for pid, uid in kids.items():
    _, st = os.waitpid(pid, 0)
    if not os.WIFEXITED(st) or os.WEXITSTATUS(st) != 2:
        bad.append(str(uid))
print(" ".join(bad))
PY
)
[ -z "$out" ] || bad "uids not refused: $out"
stop
set -- $(tally "$audit")
[ "$1" = $UIDS_MAX ] && [ "$5" = $(((k - UIDS_MAX) * 2)) ] && [ $(($1 + $2)) -eq $((k * 2)) ] &&
	ok "$k uids: $1 alone, $5 refusals as others, all $((k * 2)) counted" ||
	bad "$k uids: full $1, suppressed $2, summaries $3, others $5 (want $UIDS_MAX, others $(((k - UIDS_MAX) * 2)), sum $((k * 2)))"

[ $fails = 0 ] || { echo "$fails failed"; exit 1; }
