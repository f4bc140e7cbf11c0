#!/bin/sh
# tests/integration/approval_tty.sh — the tty approval channel as a person
# at a terminal meets it (`toolcage serve --approve tty` on a pseudo-terminal
# of its own): only an exact yes approves, a late answer to a question that
# timed out answers nothing, and the prompt shows the arguments whole.
# The driver: tests/data/approval/approve_tty.py. Exit 0 pass, 77 skip, 1 fail.
set -u
TOOLCAGE=${TOOLCAGE:-build/toolcage}
case $TOOLCAGE in /*) ;; *) TOOLCAGE=$(pwd)/$TOOLCAGE ;; esac
[ -x "$TOOLCAGE" ] || { echo "skip: no toolcage binary at $TOOLCAGE"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 is needed"; exit 77; }
tmp=$(mktemp -d /tmp/tc-approval-tty.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
python3 "$(pwd)/tests/data/approval/approve_tty.py" "$TOOLCAGE" "$tmp"
