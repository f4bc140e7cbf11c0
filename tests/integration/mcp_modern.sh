#!/bin/sh
# MCP revision 2026-07-28 (stateless: per-request _meta, server/discover,
# input_required results for approvals, subscriptions/listen) with
# `toolcage serve`, on stdio and over Streamable HTTP: tests/mcp/modern.py,
# scripted from the revision's text.
# Exit 0 pass, 77 skip (no python3), anything else fail.
set -u
TC=${TOOLCAGE:?}
if ! command -v python3 >/dev/null 2>&1; then
	echo "skip: python3 is not installed (the conversation harness needs it)"
	exit 77
fi
case "${BUILD:-build}" in *asan*|*san*) TC_TEST_SLOW=${TC_TEST_SLOW:-4}; export TC_TEST_SLOW ;; esac
python3 tests/mcp/modern.py "$TC" || exit 1
echo "== over Streamable HTTP"
python3 tests/mcp/modern.py "$TC" --http
