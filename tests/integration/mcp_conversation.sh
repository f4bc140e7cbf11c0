#!/bin/sh
# Scripted MCP conversations with `toolcage serve` (tests/mcp/conversation.py):
# lifecycle, every JSON-RPC error path, hostile lines, interleaving,
# progress, cancellation, elicitation approvals, EOF and SIGTERM, tool dir
# changes; on stdio, then over Streamable HTTP (serve --http: the same
# conversations, and sessions, security headers, bounds, resumption,
# draining). As root it runs a second time with the supervisor as uid 65534
# (unprivileged: a user namespace, no cgroups), from a world-readable copy.
# Exit 0 pass, 77 skip (no python3), anything else fail.
set -u
TC=${TOOLCAGE:?}
if ! command -v python3 >/dev/null 2>&1; then
	echo "skip: python3 is not installed (the conversation harness needs it)"
	exit 77
fi
# A sanitizer build runs several times slower: stretch the harness' waits.
case "${BUILD:-build}" in *asan*|*san*) TC_TEST_SLOW=${TC_TEST_SLOW:-4}; export TC_TEST_SLOW ;; esac
python3 tests/mcp/conversation.py "$TC" || exit 1
echo "== over Streamable HTTP"
python3 tests/mcp/conversation.py "$TC" --http || exit 1
# A tool's output and a client's words in serve's log lines: a failed
# call's line quotes what the tool wrote (here the client's text echoed,
# with a newline, CR, ESC, a byte that is not UTF-8 and 100 KB). It stays
# one line, with no raw ESC or CR and no line forged, and is bounded.
d=$(mktemp -d /tmp/tc-conv.XXXXXX) || exit 1
trap 'rm -rf "$d"' EXIT
mkdir "$d/ws" "$d/tools"
cat >"$d/tools/echo_fail.json" <<'JSON'
{
  "name": "echo_fail",
  "description": "Echo the text given, then fail.",
  "parameters": {"type": "object", "properties": {"text": {"type": "string", "description": "The text"}},
                 "required": ["text"]},
  "risk": "read-only",
  "command": ["/bin/sh", "-c", "printf '\\377'; cat; exit 3"],
  "stdin": "{{text}}"
}
JSON
big=$(head -c 100000 /dev/zero | tr '\0' A)
{
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
		'{"jsonrpc":"2.0","method":"notifications/initialized"}'
	printf '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo_fail","arguments":{"text":"x\\nFAKE line\\r\\u001b[2J%s"}}}\n' "$big"
	sleep 3
} | timeout 60 "$TC" serve --workspace "$d/ws" --tools "$d/tools" >"$d/out" 2>"$d/err"
if ! grep -q "^toolcage serve: error: call 1 (echo_fail): failed" "$d/err"; then
	echo "FAIL no log line for the failed call: $(head -c 300 "$d/err")"; exit 1
fi
if grep -q "^FAKE" "$d/err" || LC_ALL=C grep -q "$(printf '[\033\r]')" "$d/err" ||
	[ "$(awk 'length > 1024' "$d/err" | wc -l)" != 0 ] || [ "$(wc -l <"$d/err")" -gt 3 ]; then
	echo "FAIL a tool's output is written raw or unbounded in serve's log:"
	LC_ALL=C cat -v "$d/err" | cut -c1-200
	exit 1
fi
echo "ok   a failed call's log line is one line, shown and bounded"
rm -rf "$d"
trap - EXIT
[ "$(id -u)" = 0 ] || exit 0
if ! command -v setpriv >/dev/null 2>&1; then
	echo "skip: setpriv missing: the uid 65534 run cannot be made"
	exit 77
fi
copy=$(mktemp -d /var/tmp/tc-mcp.XXXXXX) || exit 1
trap 'rm -rf "$copy"' EXIT
mkdir -p "$copy/tests"
cp "$TC" "$copy/toolcage" && cp -r tests/mcp tests/data "$copy/tests/" && chmod -R a+rX "$copy"
echo "== again as uid 65534"
cd "$copy" && setpriv --reuid 65534 --regid 65534 --clear-groups -- env HOME=/tmp \
	sh -c 'python3 tests/mcp/conversation.py "$1" && python3 tests/mcp/conversation.py "$1" --http' \
	sh "$copy/toolcage"
