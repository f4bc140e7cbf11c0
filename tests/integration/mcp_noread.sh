#!/bin/sh
# tests/integration/mcp_noread.sh — `toolcage serve` with a client that
# sends many calls with large answers and never reads them: memory stays
# bounded (answers past 64 MiB unread become short errors) and every call
# still gets one answer. The driver: tests/data/mcp/noread.py.
# Exit 0 pass, 77 skip, 1 fail.
set -u
. tests/lib/mem_driver.sh
mem_driver noread tests/data/mcp/noread.py
