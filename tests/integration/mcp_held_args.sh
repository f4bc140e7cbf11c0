#!/bin/sh
# tests/integration/mcp_held_args.sh — `toolcage serve` with a client that
# queues many calls with large arguments behind a call holding the only
# slot: what the calls in flight hold stays bounded (the calls past it are
# busy at once) and every call still gets one answer. The driver:
# tests/data/mcp/held_args.py. Exit 0 pass, 77 skip, 1 fail.
set -u
TOOLCAGE=${TOOLCAGE:-build/toolcage}
case $TOOLCAGE in /*) ;; *) TOOLCAGE=$(pwd)/$TOOLCAGE ;; esac
[ -x "$TOOLCAGE" ] || { echo "skip: no toolcage binary at $TOOLCAGE"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 is needed"; exit 77; }
# An ASan build keeps freed memory in quarantine (256 MiB by default) and
# adds its own: the bound is what the plain build is held to.
extra=0
if ldd "$TOOLCAGE" 2>/dev/null | grep -q libasan; then extra=$((512 * 1024)); fi
tmp=$(mktemp -d /tmp/tc-mcp-held.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
python3 "$(pwd)/tests/data/mcp/held_args.py" "$TOOLCAGE" "$tmp" "$(pwd)" "$extra"
