#!/bin/sh
# tests/integration/mcp_channel.sh — a running tool's channel to the client
# (docs/tools-api.md, "channel") with hostile tools: a flood, garbage and a
# forged approval answer, a question dressed as the approval prompt, a tool
# that never reads its answers; the bounds hold and other calls go on. The
# driver: tests/data/mcp/channel.py. Exit 0 pass, 77 skip, 1 fail.
set -u
TOOLCAGE=${TOOLCAGE:-build/toolcage}
case $TOOLCAGE in /*) ;; *) TOOLCAGE=$(pwd)/$TOOLCAGE ;; esac
[ -x "$TOOLCAGE" ] || { echo "skip: no toolcage binary at $TOOLCAGE"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 is needed"; exit 77; }
[ -x /usr/bin/python3 ] || { echo "skip: the test tools run /usr/bin/python3"; exit 77; }
tmp=$(mktemp -d /tmp/tc-mcp-channel.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
python3 "$(pwd)/tests/data/mcp/channel.py" "$TOOLCAGE" "$tmp" "$(pwd)/tests/data/mcp/channel" ||
	{ tail -20 "$tmp/err"; exit 1; }
