#!/bin/sh
# tests/integration/mcp_conformance.sh — the Model Context Protocol
# project's own conformance suite (npm @modelcontextprotocol/conformance)
# against `toolcage serve --http`, with the fixture tools of
# tests/data/mcp/conformance. Every scenario that applies to toolcage runs
# and must pass with no failure and no warning; every other scenario the
# suite knows must be listed in docs/mcp.md with the reason, so a scenario
# a newer suite adds is never skipped unseen.
# Exit 0 pass, 77 skip (no node/npm, or the suite cannot be installed: the
# message says which), anything else fail.
set -u
. tests/lib/wait.sh
TOOLCAGE=${TOOLCAGE:-build/toolcage}
BUILD=${BUILD:-build}
top=$(pwd)
case $TOOLCAGE in /*) ;; *) TOOLCAGE=$top/$TOOLCAGE ;; esac
[ -x "$TOOLCAGE" ] || { echo "skip: no toolcage binary at $TOOLCAGE"; exit 77; }
. tests/mcp/npm.sh
need_node "the MCP conformance suite"

# Pinned: 0.1.13 is the newest release that runs on Node 18 (Debian 12's),
# given undici 6 and commander 13 in place of the versions that need Node
# 20 (the suite uses neither's newer API); 0.1.14 on needs Node 22.
SUITE=0.1.13
case $BUILD in /*) prefix=$BUILD/npm-conformance ;; *) prefix=$top/$BUILD/npm-conformance ;; esac
pkg=$prefix/node_modules/@modelcontextprotocol/conformance/package.json
have=$(node -p "require('$pkg').version" 2>/dev/null)
if [ "$have" != "$SUITE" ]; then
	rm -rf "$prefix" && mkdir -p "$prefix"
	cat > "$prefix/package.json" <<-EOF
	{"private": true, "overrides": {"undici": "^6.21.0", "commander": "^13.1.0"}}
	EOF
	if ! npm install --prefix "$prefix" --no-audit --no-fund --silent \
	     "@modelcontextprotocol/conformance@$SUITE" >"$prefix/install.log" 2>&1; then
		tail -5 "$prefix/install.log"
		echo "skip: npm could not install @modelcontextprotocol/conformance@$SUITE (offline?); see $prefix/install.log"
		exit 77
	fi
fi
suite() { node "$prefix/node_modules/@modelcontextprotocol/conformance/dist/index.js" "$@"; }
echo "using @modelcontextprotocol/conformance $SUITE on node $(node --version)"

# What applies to a server of tools, and passes.
applies="server-initialize ping logging-set-level tools-list tools-call-simple-text
tools-call-error tools-call-with-progress json-schema-2020-12
tools-call-image tools-call-audio tools-call-embedded-resource tools-call-mixed-content
tools-call-with-logging tools-call-elicitation elicitation-sep1034-defaults
elicitation-sep1330-enums server-sse-polling
server-sse-multiple-streams dns-rebinding-protection"
# Of those, what runs against a second server started with --sse-poll: it
# ends a call's stream mid-call (test_reconnection runs 2 s), and the
# client resumes with GET and Last-Event-ID. The first server keeps every
# call's stream open to its answer, as by default.
polled="server-sse-polling"

fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d /tmp/tc-mcp-conformance.XXXXXX) || exit 1
pid=""
pid2=""
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	[ -n "$pid2" ] && kill "$pid2" 2>/dev/null && wait "$pid2" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# Every scenario of the suite either applies or is listed, with why not,
# in docs/mcp.md's conformance table.
suite list --server > "$tmp/list" 2>&1 || { cat "$tmp/list"; fail "conformance list"; }
known=$(sed -n 's/^  - \([a-z0-9-]*\).*/\1/p' "$tmp/list")
[ -n "$known" ] || fail "the suite lists no server scenario"
for sc in $known; do
	case " $(echo $applies) " in *" $sc "*) continue ;; esac
	grep -q "^| \`$sc\` | not run:" docs/mcp.md ||
		fail "scenario $sc neither runs here nor is listed (with why) in docs/mcp.md"
done
for sc in $applies; do
	echo "$known" | grep -qx "$sc" || fail "scenario $sc is not in the suite any more"
done

mkdir -p "$tmp/ws"
# start_server ERRFILE [OPTIONS]: serve --http on a free port; sets $spid
# and $sport.
start_server() {
	err=$1
	shift
	"$TOOLCAGE" serve --http 127.0.0.1:0 --workspace "$tmp/ws" \
		--tools "$top/tests/data/mcp/conformance" "$@" 2> "$err" &
	spid=$!
	wait_until 60 said_or_ended "$err" "$spid"
	sport=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\)/mcp.*|\1|p' "$err" 2>/dev/null)
	[ -n "$sport" ] || { cat "$err"; echo "FAIL serve --http $* did not listen"; exit 1; }
}
start_server "$tmp/err"
pid=$spid port=$sport
start_server "$tmp/err2" --sse-poll 300
pid2=$spid port2=$sport

checks=0
for sc in $applies; do
	out=$tmp/out-$sc
	p=$port
	case " $polled " in *" $sc "*) p=$port2 ;; esac
	suite server --url "http://127.0.0.1:$p/mcp" --scenario "$sc" -o "$out" \
		> "$tmp/$sc.log" 2>&1
	rc=$?
	# Every check of the scenario: SUCCESS (INFO rows only describe).
	res=$(cat "$out"/*/checks.json 2>/dev/null | python3 -c '
import json, sys
text = sys.stdin.read()
dec, i, ok, bad = json.JSONDecoder(), 0, 0, []
while i < len(text):
    while i < len(text) and text[i].isspace():
        i += 1
    if i == len(text):
        break
    rows, i = dec.raw_decode(text, i)
    for c in rows:
        if c["status"] == "SUCCESS":
            ok += 1
        elif c["status"] != "INFO":
            bad.append("%s %s: %s" % (c["id"], c["status"], c.get("errorMessage", "")))
print(ok, "; ".join(bad))')
	n=${res%% *}; bad=${res#* }
	[ "$n" = "$res" ] && bad=""
	# A check that may also come as INFO must be there as SUCCESS: the
	# server really ended the stream mid-call and the resumption got the
	# answer (INFO "did not disconnect" would pass the count above).
	case $sc in server-sse-polling)
		python3 -c 'import json, sys, glob
ok = [c for f in glob.glob(sys.argv[1] + "/*/checks.json") for c in json.load(open(f))
      if c["id"] == "server-sse-disconnect-resume" and c["status"] == "SUCCESS"]
sys.exit(0 if ok else 1)' "$out" || bad="${bad:+$bad; }server-sse-disconnect-resume is not SUCCESS"
	esac
	if [ "$rc" = 0 ] && [ "${n:-0}" -gt 0 ] && [ -z "$bad" ]; then
		echo "ok   $sc ($n checks)"
		checks=$((checks + n))
	else
		tail -15 "$tmp/$sc.log"
		fail "$sc: exit $rc, ${n:-0} passed${bad:+, $bad}"
	fi
done
kill -0 "$pid" 2>/dev/null || fail "the server died: $(tail -3 "$tmp/err")"
kill -0 "$pid2" 2>/dev/null || fail "the --sse-poll server died: $(tail -3 "$tmp/err2")"
echo "conformance: $checks checks passed in $(echo $applies | wc -w) scenarios"
[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }
