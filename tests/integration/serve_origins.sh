#!/bin/sh
# tests/integration/serve_origins.sh — `serve --http --allow-origin`: an
# ORIGIN a browser could never send (a trailing /, a path, no scheme,
# capitals) is a usage error that says what an origin looks like, since
# the match is exact and it would admit nothing; one in the browser's own
# form admits a page from there, and a page from elsewhere is still 403.
# Exit 0 pass, 77 skip (no curl, or no libmicrohttpd), anything else fail.
set -u
. tests/lib/wait.sh
. tests/lib/http.sh
TC=${TOOLCAGE:-build/toolcage}
case $TC in /*) ;; *) TC=$(pwd)/$TC ;; esac
[ -x "$TC" ] || { echo "skip: no toolcage binary at $TC"; exit 77; }
command -v curl >/dev/null || { echo "skip: no curl"; exit 77; }
d=$(mktemp -d /tmp/tc-origins.XXXXXX) || exit 1
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$d"' EXIT INT TERM
mkdir "$d/ws"
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
ended() { ! alive "$1"; }

for o in https://app.example/ app.example https://App.example https://app.example/mcp ''; do
	"$TC" serve --workspace "$d/ws" --http 127.0.0.1:0 --allow-origin "$o" \
		</dev/null >/dev/null 2>"$d/err" &
	pid=$!
	wait_until 10 ended "$pid"
	if alive "$pid"; then
		bad "--allow-origin '$o' was taken: $(head -1 "$d/err")"
		kill "$pid"; wait "$pid" 2>/dev/null
	else
		wait "$pid"; rc=$?
		if [ "$rc" = 2 ] && grep -qF "toolcage serve: --allow-origin '$o' is not an origin" "$d/err" &&
			grep -qF "SCHEME://HOST[:PORT]" "$d/err"; then
			ok "--allow-origin '$o' refused, saying what an origin is"
		else
			bad "--allow-origin '$o': exit $rc: $(head -1 "$d/err")"
		fi
	fi
	pid=
done

"$TC" serve --workspace "$d/ws" --http 127.0.0.1:0 --allow-origin https://app.example \
	</dev/null >/dev/null 2>"$d/err" &
pid=$!
http_port "$d/err" "$pid"
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"origins","version":"1"}}}'
status() { # ORIGIN: the HTTP status of an initialize sent from that page
	curl -s -o /dev/null -w '%{http_code}' -H "Origin: $1" -H 'Content-Type: application/json' \
		-H 'Accept: application/json, text/event-stream' -d "$init" "http://127.0.0.1:$port/mcp"
}
st=$(status https://app.example)
[ "$st" = 200 ] && ok "a page from the allowed origin is admitted" || bad "allowed origin: HTTP $st"
st=$(status https://other.example)
[ "$st" = 403 ] && ok "a page from another origin is 403" || bad "other origin: HTTP $st"
kill -TERM "$pid"
wait "$pid" 2>/dev/null
pid=
[ "$fails" = 0 ] || exit 1
echo "all origin checks passed"
