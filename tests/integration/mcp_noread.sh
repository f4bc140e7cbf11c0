#!/bin/sh
# tests/integration/mcp_noread.sh — `toolcage serve` with a client that
# sends many calls with large answers and never reads them: memory stays
# bounded (answers past 64 MiB unread become short errors) and every call
# still gets one answer. The driver: tests/data/mcp/noread.py.
# Exit 0 pass, 77 skip, 1 fail.
set -u
TOOLCAGE=${TOOLCAGE:-build/toolcage}
case $TOOLCAGE in /*) ;; *) TOOLCAGE=$(pwd)/$TOOLCAGE ;; esac
[ -x "$TOOLCAGE" ] || { echo "skip: no toolcage binary at $TOOLCAGE"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 is needed"; exit 77; }
# An ASan build keeps freed memory in quarantine (256 MiB by default) and
# adds its own: the bound is what the plain build is held to.
extra=0
if ldd "$TOOLCAGE" 2>/dev/null | grep -q libasan; then extra=$((512 * 1024)); fi
tmp=$(mktemp -d /tmp/tc-mcp-noread.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
python3 "$(pwd)/tests/data/mcp/noread.py" "$TOOLCAGE" "$tmp" "$extra"
