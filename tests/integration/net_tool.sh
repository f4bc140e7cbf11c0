#!/bin/sh
# http_fetch end to end through `toolcage call`: a local HTTP server on
# 127.0.0.1 started here (tests/data/net/server.py), a config whose domain
# allowlist holds only 127.0.0.1. The network profile sends the tool's
# traffic through toolcage's proxy, whose policy refuses loopback addresses
# and ports other than 80 and 443 unless listed: the config lists the
# server's port (policy.network.allow) and 127.0.0.1/32
# (policy.network.addresses.allow). "localhost" reaches the same server but
# is not on the allowlist: the refusals below must stop it before any
# request, and the server's log proves none was made.
# Also: the toolcage binary must not depend on libcurl (it is dlopen'ed).
# Exit 0 pass, 77 skip (with the reason), anything else fail.
set -u
. tests/lib/wait.sh
TC=${TOOLCAGE:?}
top=$(pwd)
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 is needed for the test server"; exit 77; }
tmp=$(mktemp -d)
srv_pid=
cleanup() { [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

# The binary must not pay for libcurl at start-up: not among its shared
# libraries (STATIC=0), not linked in (a static build: its code would be
# there, defined; the names of what it loads are only strings).
if ldd "$TC" 2>/dev/null | grep -q curl; then bad "toolcage links libcurl: $(ldd "$TC" | grep curl)"
elif nm "$TC" 2>/dev/null | grep -q ' [Tt] curl_easy_perform$'; then bad "libcurl is linked into toolcage"
else ok "toolcage does not link libcurl"; fi

python3 "$top/tests/data/net/server.py" 0 "$tmp/port" "$tmp/log" 2>"$tmp/server.err" &
srv_pid=$!
wait_until 60 nonempty "$tmp/port" || { cat "$tmp/server.err"; echo "test server did not start"; exit 1; }
port=$(cat "$tmp/port")
base="http://127.0.0.1:$port"

# Under ASan (make asan) the sanitizer's shadow memory already fills most of
# the profile's address-space limit, so mapping libcurl and its TLS library
# would fail: that one limit is lifted for sanitizer builds, and said so.
asan=0
ldd "$TC" 2>/dev/null | grep -q 'libasan' && { asan=1; echo "note: ASan build: limits.address_space_mb lifted in the test profile"; }
mkdir "$tmp/profiles" "$tmp/ws"
python3 - "$top/profiles/network.json" "$tmp/profiles/network.json" "$port" "$asan" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
if sys.argv[4] == "1":
    p["limits"].pop("address_space_mb", None)
json.dump(p, open(sys.argv[2], "w"), indent=2)
PY
egress="\"network\": {\"allow\": [\"127.0.0.1:$port\"], \"addresses\": {\"allow\": [\"127.0.0.1/32\"]}}"
cat > "$tmp/toolcage.json" <<JSON
{"workspace": "ws", "profile_dir": "profiles", "audit": {"path": "audit.jsonl"},
 "policy": {"domains": ["127.0.0.1"], $egress}}
JSON
C="$TC call --config $tmp/toolcage.json --json http_fetch"

# fetch ARGS_JSON: runs the call; rc in $rc, result JSON in $tmp/out
fetch() { $C "$1" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
# check PY_EXPR MESSAGE: evaluates PY_EXPR with r = the result JSON
check() {
	if python3 -c "import json,sys; r=json.load(open(sys.argv[1])); c=r['canonical']; sys.exit(0 if ($1) else 1)" "$tmp/out" 2>>"$tmp/err"
	then ok "$2"; else bad "$2"; sed 's/^/     /' "$tmp/out" "$tmp/err" | head -30; fi
}
log_has() { grep -q "$1" "$tmp/log" 2>/dev/null; }

fetch "{\"url\": \"$base/text\"}"
check "r['status'] == 'ok' and c['status'] == 200 and c['body'] == 'hello from the test server\n'" \
	"allowed fetch returns status and body"
check "c['content_type'].startswith('text/plain') and c['headers']['content-length'] == '27' and not c['truncated']" \
	"selected headers and content type"
check "'HTTP/1.1 200 OK' in r['render'] and 'hello from the test server' in r['render']" \
	"render has the status line and the body"
check "r['network'][0]['name'] == '127.0.0.1' and r['network'][0]['decision'] == 'allowed' and r['network'][0]['via'] == 'http-proxy'" \
	"the fetch went through toolcage's proxy, and the result says so"
if grep '"event":"network"' "$tmp/audit.jsonl" | grep -q '"decision":"allowed"'; then
	ok "the connection is an audit event"
else bad "no network audit event"; cat "$tmp/audit.jsonl" | head -5; fi
[ $rc = 0 ] && ok "exit 0 for a fetch that worked" || bad "exit $rc for a fetch that worked"

: > "$tmp/log"
fetch "{\"url\": \"http://localhost:$port/text\"}"
check "r['status'] == 'denied' and 'localhost' in r['render']" "host not on the allowlist is denied"
log_has . && bad "the denied fetch reached the server" || ok "the denied fetch made no request"

fetch "{\"url\": \"$base/redir-ok\"}"
check "c['status'] == 200 and c['final_url'] == '$base/text' and len(c['redirects']) == 1 and c['redirects'][0]['status'] == 302" \
	"relative redirect to an allowed host is followed"
fetch "{\"url\": \"$base/redir-abs\"}"
check "c['status'] == 200 and c['body'] == '{\"answer\": 42}' and c['redirects'][0]['status'] == 301" \
	"absolute redirect to an allowed host is followed"

: > "$tmp/log"
fetch "{\"url\": \"$base/redir-bad\"}"
check "r['status'] == 'failed' and c['error'] == 'denied_redirect' and 'localhost' in r['render']" \
	"redirect to a host not on the allowlist is refused, naming it"
log_has "localhost" && bad "the refused redirect reached the server" || ok "the refused redirect made no request"
fetch "{\"url\": \"$base/redir-ftp\"}"
check "c['error'] == 'denied_redirect' and 'ftp://' in r['render']" "redirect to another scheme is refused"
fetch "{\"url\": \"$base/loop\"}"
check "c['error'] == 'too_many_redirects'" "more than 5 redirects are refused"
[ "$(grep -c ' /loop' "$tmp/log")" = 6 ] && ok "exactly 6 requests in a redirect loop" || bad "requests in a loop: $(grep -c ' /loop' "$tmp/log")"

: > "$tmp/log"
fetch "{\"url\": \"$base/text\", \"method\": \"HEAD\"}"
check "c['status'] == 200 and c['method'] == 'HEAD' and 'body' not in c and c['headers']['content-length'] == '27'" \
	"HEAD returns status and headers, no body"
log_has "^HEAD " && ok "the server saw a HEAD request" || bad "no HEAD request logged"

fetch "{\"url\": \"$base/big\", \"max_bytes\": 1000}"
check "c['truncated'] and c['body_bytes'] == 1000 and len(c['body']) == 1000 and 'max_bytes' in r['render']" \
	"max_bytes truncates the body and says so"

# A body longer than the render budget: the canonical holds what the text
# shows of it, with the cut said, not the 200000 bytes.
fetch "{\"url\": \"$base/big\"}"
check "c['truncated'] and c['body_bytes'] == 200000 and len(c['body']) < 20000 and c['body'] in r['render'] and c['body'].endswith('\\n[... %d bytes left out ...]\\n' % (200000 - c['body_cut_at'])) and 'max_bytes' not in r['render']" \
	"a long body is cut to the render budget in the result too, and says so"

# JSON Schema's integer admits 1000.0: the same limit, not the 1 MiB default.
fetch "{\"url\": \"$base/big\", \"max_bytes\": 1000.0}"
check "c['truncated'] and c['body_bytes'] == 1000" "max_bytes written as 1000.0 is 1000"

fetch "{\"url\": \"$base/bin\"}"
check "'body' not in c and c['body_bytes'] == 1024 and 'application/octet-stream, 1024 bytes' in r['render']" \
	"binary body shows type and size only"
check "'http_fetch shows UTF-8 text only, and saves no files' in r['render']" \
	"a body not shown says that only text is shown"

fetch "{\"url\": \"$base/unknown-type\"}"
check "c['body'] == 'all: build\\n\\tcc -o x x.c\\n' and 'cc -o x x.c' in r['render']" \
	"an application/octet-stream body that is UTF-8 text is shown"

fetch "{\"url\": \"$base/headers\", \"headers\": {\"X-Test\": \"yes\", \"Accept\": \"text/plain\"}}"
check "'x-test: yes' in c['body'] and 'accept: text/plain' in c['body']" "request headers are sent"
fetch "{\"url\": \"$base/headers\", \"headers\": {\"Host\": \"evil.example\"}}"
check "c.get('error') == 'bad_headers' and 'Host' in r['render']" "a Host header is refused"
fetch "{\"url\": \"$base/headers\", \"headers\": {\"X-A\": \"1\\r\\nX-B: 2\"}}"
check "r['status'] == 'invalid_arguments'" "a header value with CR/LF is refused"

fetch "{\"url\": \"$base/missing\"}"
check "r['status'] == 'failed' and c['status'] == 404 and 'no such page' in c['body']" \
	"a 404 is a failure that still shows the response"
check "r['render'].startswith('HTTP/1.1 404 Not Found\\n[404 is an error status: ') and r['render'].index('no such page') > r['render'].index('content-type: text/plain') and sorted(c) == sorted(['url', 'final_url', 'method', 'status', 'headers', 'content_type', 'body_bytes', 'truncated', 'redirects', 'body'])" \
	"a 404's render leads with the status line and says it is an error status; its fields are a success's"
fetch "{\"url\": \"ftp://127.0.0.1:$port/x\"}"
[ $rc = 1 ] && ok "ftp:// refused (exit 1)" || bad "ftp:// exit $rc"

# policy.levels.network "ask": a host off the list goes to the approver;
# approved, the tool must reach it (its own check of the host once refused
# it: denied_host), and only it: a redirect to another host stays refused.
printf '#!/bin/sh\ncat >/dev/null\nexit 0\n' >"$tmp/yes.sh"
chmod 755 "$tmp/yes.sh"
cat > "$tmp/ask.json" <<JSON
{"workspace": "ws", "profile_dir": "profiles", "approval": "cmd:yes.sh",
 "policy": {"domains": ["127.0.0.1"], "levels": {"network": "ask"}, $egress}}
JSON
: > "$tmp/log"
$TC call --config "$tmp/ask.json" --json http_fetch "{\"url\": \"http://localhost:$port/text\"}" \
	>"$tmp/out" 2>"$tmp/err"
check "r['status'] == 'ok' and c['status'] == 200" "network ask: an approved host off the list is fetched"
log_has " /text" && ok "network ask: the approved fetch reached the server" ||
	bad "network ask: no request was made"
$TC call --config "$tmp/ask.json" --json http_fetch "{\"url\": \"http://localhost:$port/redir-other\"}" \
	>"$tmp/out" 2>"$tmp/err"
check "c.get('error') == 'denied_redirect' and '127.0.0.2' in r['render']" "network ask: the approval is for its host only, not a redirect's"

# An allowed server may send a Proxy-Status of its own: its failure must
# read as its own answer (its status, its body), never as toolcage's egress
# speaking (http_fetch reads Proxy-Status only from a failed CONNECT, the
# one answer only the egress writes; plain http goes through CONNECT too).
for code in 403 502; do
	: > "$tmp/log"
	fetch "{\"url\": \"$base/forged-$code\"}"
	check "r['status'] == 'failed' and 'error' not in c and c['status'] == $code and c['body'] == 'the server\\'s own answer\\n' and r['render'].startswith('HTTP/1.1 $code ') and 'resolve' not in r['render'] and 'forged by the server' not in r['render']" \
		"a server's $code with a forged toolcage Proxy-Status is the server's answer"
	check "r['network'][0]['name'] == '127.0.0.1' and r['network'][0]['decision'] == 'allowed' and r['network'][0]['via'] == 'http-proxy' and r['network'][0]['bytes_in'] > 0" \
		"the forged $code came through the egress, recorded as allowed"
	log_has "^GET 127.0.0.1:$port /forged-$code" && ok "the server answered the $code itself" ||
		bad "the server saw no request for /forged-$code"
done

# A name with no address, over http and https: the result says so first,
# once, and not curl's "CONNECT tunnel failed, response 404" nor a 404 as
# if a server had answered (the egress's Proxy-Status is read).
cat > "$tmp/nowhere.json" <<JSON
{"workspace": "ws", "profile_dir": "profiles", "policy": {"domains": ["no-such-name.invalid"]}}
JSON
for scheme in http https; do
	$TC call --config "$tmp/nowhere.json" --json http_fetch \
		"{\"url\": \"$scheme://no-such-name.invalid/\"}" >"$tmp/out" 2>"$tmp/err"
	check "c.get('error') == 'resolve_failed' and r['render'].startswith('could not resolve host no-such-name.invalid: ') and 'CONNECT' not in r['render'] and '404' not in r['render'] and r['render'].split('[network]')[0].count('no-such-name.invalid') == 1" \
		"$scheme: a name without an address is said first, as a failed resolve"
done

[ $fails = 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all net_tool checks passed"
