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
