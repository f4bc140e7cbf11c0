#!/bin/sh
# Scripted MCP conversations with `toolcage serve` (tests/mcp/conversation.py):
# lifecycle, every JSON-RPC error path, hostile lines, interleaving,
# progress, cancellation, elicitation approvals, EOF and SIGTERM.
# Exit 0 pass, 77 skip (no python3), anything else fail.
set -u
TC=${TOOLCAGE:?}
if ! command -v python3 >/dev/null 2>&1; then
	echo "skip: python3 is not installed (the conversation harness needs it)"
	exit 77
fi
# A sanitizer build runs several times slower: stretch the harness' waits.
case "${BUILD:-build}" in *asan*|*san*) TC_TEST_SLOW=${TC_TEST_SLOW:-4}; export TC_TEST_SLOW ;; esac
exec python3 tests/mcp/conversation.py "$TC"
