#!/bin/sh
# tests/integration/mcp_http_flood.sh — `toolcage serve --http` under a flood
# of idle sessions, GET streams and tool answers nobody reads, and idle
# connections: memory stays within the documented bound, the session past
# the limit is refused, and the server keeps answering. The driver:
# tests/data/mcp/flood.py. Exit 0 pass, 77 skip, 1 fail.
set -u
. tests/lib/mem_driver.sh
mem_driver flood tests/data/mcp/flood.py "$(pwd)"
