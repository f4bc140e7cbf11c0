#!/bin/sh
# tests/integration/mcp_held_args.sh — `toolcage serve` with a client that
# queues many calls with large arguments, then large request ids, behind a
# call holding the only slot: what the calls in flight hold stays bounded
# (the calls past it are busy at once) and every call still gets one
# answer. The driver: tests/data/mcp/held_args.py. Exit 0 pass, 77 skip,
# 1 fail.
set -u
. tests/lib/mem_driver.sh
mem_driver held tests/data/mcp/held_args.py "$(pwd)"
