#!/bin/sh
# tests/bench/bench_mcp.sh — `make bench`: the round trip of tools/call over
# stdio against the pipeline alone, interleaved in one run (bench_mcp.c),
# and throughput with 64 calls in flight. Target: the protocol adds under
# 0.1 ms at the median.
set -u
BUILD=${BUILD:-build}
echo "== MCP serve over stdio vs the pipeline alone"
"$BUILD/bench/bench_mcp" "$(cd "$BUILD" && pwd)/toolcage" "$(pwd)/tests/data/pipeline/tools" "${BENCH_N:-300}" ||
	exit
echo "  target: added median < 100 us (see the no-fork and read rows)"
