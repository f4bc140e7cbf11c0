#!/bin/sh
# tests/integration/mcp_http_headers.sh — `serve --http ... --token-file`
# against clients that trickle their request headers (slowloris): every
# connection slot (HTTP_CONNECTIONS_MAX) is held, most by connections from
# two loopback addresses that send half a request line and then a byte a
# second, one by a kept-alive connection whose second request trickles so.
# A client with the token must be answered soon after the header deadline
# (HTTP_HEADERS_DEADLINE_S), the trickling connections must have been
# ended then and not before half of it, and an SSE stream and a kept-alive
# connection idle between requests must not be. The driver:
# tests/data/mcp/slow_headers.py. Exit 0 pass, 77 skip, 1 fail.
set -u
. tests/lib/wait.sh
. tests/lib/http.sh
TC=${TOOLCAGE:-build/toolcage}
case $TC in /*) ;; *) TC=$(pwd)/$TC ;; esac
[ -x "$TC" ] || { echo "skip: no toolcage binary at $TC"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 is needed"; exit 77; }
limit() { sed -n "s/^#define $1 *\([0-9]*\).*/\1/p" supervisor/mcp/mcp_http.h; }
DEADLINE=$(limit HTTP_HEADERS_DEADLINE_S)
MAX=$(limit HTTP_CONNECTIONS_MAX)
PER_IP=$(limit HTTP_CONNECTIONS_PER_IP)
[ -n "$DEADLINE" ] && [ -n "$MAX" ] && [ -n "$PER_IP" ] ||
	{ echo "FAIL the limits are not in supervisor/mcp/mcp_http.h"; exit 1; }
# The files a server and its clients hold, and some to spare.
[ "$(ulimit -n)" -ge $((MAX * 2 + 64)) ] 2>/dev/null || ulimit -n $((MAX * 2 + 64)) 2>/dev/null ||
	{ echo "skip: $((MAX * 2 + 64)) open files are needed"; exit 77; }
d=$(mktemp -d /tmp/tc-headers.XXXXXX) || exit 1
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$d"' EXIT INT TERM
mkdir "$d/ws"
head -c 32 /dev/urandom | base64 >"$d/token"
chmod 600 "$d/token"
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

"$TC" serve --workspace "$d/ws" --http 127.0.0.1:0 --token-file "$d/token" \
	</dev/null >"$d/out" 2>"$d/err" &
pid=$!
http_port "$d/err" "$pid"
python3 tests/data/mcp/slow_headers.py "$port" "$(cat "$d/token")" "$DEADLINE" "$MAX" \
	"$PER_IP" || fails=$((fails + 1))
alive "$pid" && ok "the server still runs" || bad "the server ended: $(tail -3 "$d/err")"
kill -TERM "$pid"
wait "$pid" 2>/dev/null
pid=
# What stderr says of them: the first alone, the rest counted, bounded.
lines=$(grep -c "request headers" "$d/err")
if grep -q "connection from 127.0.0.[0-9]*:[0-9]* ended: its request headers were not all in within $DEADLINE s" "$d/err" &&
	grep -q "connections in all were ended for request headers" "$d/err" && [ "$lines" -le 4 ]; then
	ok "stderr tells of them in $lines lines: $(grep "in all" "$d/err" | sed 's/^toolcage serve: //')"
else
	bad "stderr does not tell of the ended connections in a few lines ($lines): $(grep -i "header" "$d/err" | head -5)"
fi
[ "$fails" = 0 ] || exit 1
echo "all header deadline checks passed"
