#!/bin/sh
# tests/integration/mcp_http_slowloris.sh — `serve --http` on loopback
# without a token serves its own user alone, but every local user reaches
# the port, from the one address 127.0.0.1: another user (uid 65534) opens
# as many connections as libmicrohttpd admits from one address and sends
# half a request line on each, never the rest (slowloris). The server's
# owner must still be answered (/health, and an initialize), and the
# connections past the few another user may hold must be ended at once.
# Exit 0 pass, 77 skip (not root, no setpriv or libmicrohttpd), else fail.
set -u
. tests/lib/wait.sh
. tests/lib/http.sh
TC=${TOOLCAGE:-build/toolcage}
case $TC in /*) ;; *) TC=$(pwd)/$TC ;; esac
[ "$(id -u)" = 0 ] || { echo "skip: connections of another uid need root"; exit 77; }
command -v setpriv >/dev/null || { echo "skip: no setpriv"; exit 77; }
PY=
for c in /usr/bin/python3 "$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)"; do
	if [ -n "$c" ] && setpriv --reuid 65534 --regid 65534 --clear-groups -- "$c" -c '' 2>/dev/null
	then
		PY=$c
		break
	fi
done
[ -n "$PY" ] || { echo "skip: no python3 that uid 65534 can run"; exit 77; }
HELD=128   # HTTP_CONNECTIONS_PER_IP: what one address may hold
FOREIGN=64 # HTTP_FOREIGN_CONNECTIONS: half of it
d=$(mktemp -d /tmp/tc-slowloris.XXXXXX) || exit 1
chmod 755 "$d"
pid= holder=
trap '[ -n "$holder" ] && kill "$holder" 2>/dev/null; [ -n "$pid" ] && kill "$pid" 2>/dev/null
	rm -rf "$d"' EXIT INT TERM
mkdir "$d/ws" "$d/other"
chown 65534:65534 "$d/other"
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

"$TC" serve --workspace "$d/ws" --http 127.0.0.1:0 </dev/null >"$d/out" 2>"$d/err" &
pid=$!
http_port "$d/err" "$pid"

# The other user: HELD connections, each with half a request line, held
# open; then, after a moment, how many the server has not ended.
setpriv --reuid 65534 --regid 65534 --clear-groups -- "$PY" -c '
import socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
socks = []
for _ in range(n):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"POST /mcp HTTP/1.1\r\n")
        socks.append(s)
    except OSError:
        break
time.sleep(2)
alive = 0
for s in socks:
    s.setblocking(False)
    try:
        if s.recv(1):
            alive += 1
    except BlockingIOError:
        alive += 1
    except OSError:
        pass
import os
open(sys.argv[3] + ".tmp", "w").write("%d\n%d\n" % (len(socks), alive))
os.rename(sys.argv[3] + ".tmp", sys.argv[3])
time.sleep(60)
' "$port" "$HELD" "$d/other/held" &
holder=$!
wait_until 30 nonempty "$d/other/held"
opened=$(sed -n 1p "$d/other/held") alive=$(sed -n 2p "$d/other/held")
[ "${opened:-0}" -ge "$HELD" ] || bad "the other user opened only ${opened:-0} connections"

# The owner, while they are held.
owner=$("$PY" -c '
import http.client, json, sys
port = int(sys.argv[1])
out = []
try:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.request("GET", "/health")
    out.append(str(c.getresponse().status))
except OSError as e:
    out.append(type(e).__name__)
try:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.request("POST", "/mcp", body=json.dumps({"jsonrpc": "2.0", "id": 1,
        "method": "initialize", "params": {"protocolVersion": "2025-06-18",
        "capabilities": {}, "clientInfo": {"name": "owner", "version": "1"}}}),
        headers={"Content-Type": "application/json",
                 "Accept": "application/json, text/event-stream"})
    out.append(str(c.getresponse().status))
except OSError as e:
    out.append(type(e).__name__)
print(" ".join(out))
' "$port")
[ "$owner" = "200 200" ] && ok "the owner is answered while another user holds $opened" ||
	bad "the owner while another user holds $opened connections: $owner (want 200 200)"
[ "${alive:-0}" -le "$FOREIGN" ] && ok "the other user keeps $alive of them (at most $FOREIGN)" ||
	bad "the other user keeps ${alive:-?} connections open (at most $FOREIGN)"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
holder=
kill -TERM "$pid"
wait "$pid" 2>/dev/null
pid=
[ "$fails" = 0 ] || exit 1
echo "all slowloris checks passed"
