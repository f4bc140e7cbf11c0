#!/bin/sh
# tests/integration/mcp_http_flood.sh — `toolcage serve --http` under a flood
# of idle sessions, GET streams and tool answers nobody reads, and idle
# connections: memory stays within the documented bound, the session past
# the limit is refused, and the server keeps answering. The driver:
# tests/data/mcp/flood.py. Exit 0 pass, 77 skip, 1 fail.
set -u
TOOLCAGE=${TOOLCAGE:-build/toolcage}
case $TOOLCAGE in /*) ;; *) TOOLCAGE=$(pwd)/$TOOLCAGE ;; esac
[ -x "$TOOLCAGE" ] || { echo "skip: no toolcage binary at $TOOLCAGE"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 is needed"; exit 77; }
# An ASan build keeps freed memory in quarantine (256 MiB by default) and
# adds its own: the bound is what the plain build is held to.
extra=0
if ldd "$TOOLCAGE" 2>/dev/null | grep -q libasan; then extra=$((512 * 1024)); fi
tmp=$(mktemp -d /tmp/tc-mcp-flood.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
python3 "$(pwd)/tests/data/mcp/flood.py" "$TOOLCAGE" "$tmp" "$(pwd)" "$extra"
