#!/bin/sh
# tests/bench/mcp_vs_fs.sh — `make bench`: `toolcage serve` against the
# official MCP filesystem server, side by side with the official SDK client
# (mcp_vs_fs.mjs). Both packages are installed from npm into $BUILD/npm on
# first use; without node or npm the comparison is skipped (and says so).
set -u
BUILD=${BUILD:-build}
top=$(pwd)
echo "== MCP read_file: toolcage serve vs @modelcontextprotocol/server-filesystem (SDK client)"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	echo "  skipped: node and npm are needed (apt-get install nodejs npm)"
	exit 0
fi
case $BUILD in /*) prefix=$BUILD/npm ;; *) prefix=$top/$BUILD/npm ;; esac
mkdir -p "$prefix"
[ -f "$prefix/package.json" ] || echo '{"private": true, "type": "module"}' > "$prefix/package.json"
for pkg in @modelcontextprotocol/sdk @modelcontextprotocol/server-filesystem; do
	[ -f "$prefix/node_modules/$pkg/package.json" ] && continue
	if ! npm install --prefix "$prefix" --no-audit --no-fund --silent "$pkg" >"$prefix/install.log" 2>&1; then
		echo "  skipped: npm could not install $pkg (see $prefix/install.log)"
		exit 0
	fi
done
fsjs=$prefix/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js
echo "  server-filesystem $(node -p "require('$prefix/node_modules/@modelcontextprotocol/server-filesystem/package.json').version"), node $(node --version)"
cp tests/bench/mcp_vs_fs.mjs "$prefix/mcp_vs_fs.mjs"
# Between the rounds in flight, the least a process per call costs here
# (bench_spawn floor), for the CPU-per-call line.
build=$(cd "$BUILD" && pwd)
FLOOR_BENCH=$build/bench/bench_spawn node "$prefix/mcp_vs_fs.mjs" "$build/toolcage" "$fsjs" \
	"${BENCH_MCP_SEQ:-500}" "${BENCH_MCP_INFLIGHT:-400}" "${BENCH_MCP_ROUNDS:-5}"
